from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "Client API"

    def ready(self) -> None:
        from api import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the domain events)
            sweeps,
        )
        from api.views import sessions
        from socialsite import extensions

        # The sessions page (profiles) lists the apps beside the browsers.
        extensions.add_page_context("sessions", sessions.sessions_context)
        extensions.add_to_slot("authorized_apps", "api/_authorized_apps.html")
        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)
