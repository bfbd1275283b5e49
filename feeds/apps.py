from django.apps import AppConfig


class FeedsConfig(AppConfig):
    name = "feeds"

    def ready(self):
        from feeds import receivers  # noqa: F401  (connects the graph signals)
