from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"

    def ready(self):
        from moderation import receivers  # noqa: F401  (connects the comment events)
