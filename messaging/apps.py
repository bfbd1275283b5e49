from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "messaging"

    def ready(self) -> None:
        from socialsite import demo

        demo.register("messaging", "messaging.demo.seed_stage")
        from messaging import owners  # noqa: F401  (declares its collections' owners)
