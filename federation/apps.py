from django.apps import AppConfig


class FederationConfig(AppConfig):
    name = "federation"

    def ready(self) -> None:
        from federation import (
            outbox,
            owners,  # noqa: F401  (declares its collections' owners)
            sweeps,
        )

        outbox.connect()  # activities out of the apps' events (docs/federation.md)
        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)
