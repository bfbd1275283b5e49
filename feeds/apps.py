from django.apps import AppConfig


class FeedsConfig(AppConfig):
    name = "feeds"

    def ready(self) -> None:
        from socialsite import demo

        demo.register("feeds", "feeds.demo.seed_stage")
        from feeds import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the graph's events)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)

        # The matching posts on search (docs/architecture.md#explicit-wiring).
        from feeds.views import discovery
        from socialsite import extensions

        extensions.add_page_context("search", discovery.search_context)
