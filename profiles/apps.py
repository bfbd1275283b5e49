from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"

    def ready(self):
        from socialsite import demo

        demo.register("profiles", "profiles.demo.seed_stage", seeded="profiles.demo.seeded")
        from profiles import (
            owners,  # noqa: F401  (declares its collections' owners)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)
