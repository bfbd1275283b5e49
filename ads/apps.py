from django.apps import AppConfig

from socialsite import demo, extensions


class AdsConfig(AppConfig):
    name = "ads"
    verbose_name = "Ad network"

    def ready(self) -> None:
        demo.register("ads", "ads.demo.seed_stage")
        # In ready(), not at the top: importing `owners` registers the app's
        # collections, wiring that belongs after every app is loaded; this
        # module is read while the app registry is still being filled.
        from ads import (
            owners,  # noqa: F401  (declares its collections' owners)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)

        # The ad slots of the feed, walls and search
        # (docs/architecture.md#explicit-wiring).
        extensions.add_to_slot("ad", "ads/_slot_hook.html")
