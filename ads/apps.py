from django.apps import AppConfig


class AdsConfig(AppConfig):
    name = "ads"
    verbose_name = "Ad network"

    def ready(self):
        from socialsite import demo

        demo.register("ads", "ads.demo.seed_stage")
        from ads import (
            owners,  # noqa: F401  (declares its collections' owners)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)

        # The ad slots of the feed, walls and search
        # (docs/architecture.md#explicit-wiring).
        from socialsite import extensions

        extensions.add_to_slot("ad", "ads/_slot_hook.html")
