from django.apps import AppConfig

from socialsite import demo


class ProfilesConfig(AppConfig):
    name = "profiles"

    def ready(self) -> None:
        demo.register("profiles", "profiles.demo.seed_stage", seeded="profiles.demo.seeded")
        # In ready(), not at the top: importing `owners` registers the app's
        # collections, wiring that belongs after every app is loaded; this
        # module is read while the app registry is still being filled.
        from profiles import (
            owners,  # noqa: F401  (declares its collections' owners)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)
