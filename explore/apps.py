from django.apps import AppConfig


class ExploreConfig(AppConfig):
    name = "explore"

    def ready(self) -> None:
        # Imported once every app is loaded: importing them registers the
        # owners, the receivers and the sweeper.
        from explore import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the posts' events)
            sweeps,
        )

        sweeps.register()  # its sweeper runs by itself (socialsite/periodic.py)

        # The matching posts on search, and where a post's hashtags link
        # (docs/architecture.md#explicit-wiring).
        from explore import views
        from socialsite import extensions

        extensions.add_page_context("search", views.search_context)
        extensions.add_link("tag", "explore:tag")
