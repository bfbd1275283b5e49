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
