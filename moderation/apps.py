from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "moderation"

    def ready(self) -> None:
        from socialsite import demo

        demo.register("moderation", "moderation.demo.seed_stage")
        from moderation import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the comment events)
            sweeps,
        )

        sweeps.register()  # its sweepers run by themselves (socialsite/periodic.py)

        # The Report control on cards, comments, profiles and messages
        # (docs/architecture.md#explicit-wiring).
        from socialsite import extensions

        extensions.add_to_slot("report", "moderation/_report.html")
