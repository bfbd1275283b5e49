from django.apps import AppConfig


class FeedsConfig(AppConfig):
    name = "feeds"

    def ready(self):
        from socialsite import demo

        demo.register("feeds", "feeds.demo.seed_stage")
        demo.register("delivery", "feeds.demo.delivery_stage", last=True)
        from feeds import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the graph signals)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)

        # The wall on the profile page, the matching posts on search
        # (docs/architecture.md#explicit-wiring).
        from feeds.views import discovery, pages
        from socialsite import extensions

        extensions.add_page_context("profile", pages.wall_context)
        extensions.add_page_context("search", discovery.search_context)
