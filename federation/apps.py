from django.apps import AppConfig


class FederationConfig(AppConfig):
    name = "federation"

    def ready(self) -> None:
        from federation import (
            outbox,
            owners,  # noqa: F401  (declares its collections' owners)
            page_context,
            sweeps,
        )
        from socialsite import extensions

        outbox.connect()  # activities out of the apps' events (docs/federation.md)
        extensions.add_page_context("search", page_context.search_context)
        extensions.add_page_context("profile", page_context.profile_context)
        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)
