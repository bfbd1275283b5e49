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
        # A conversation's messages: one report dialog for the page, and per
        # message a link to the report page that the dialog stands in for.
        extensions.add_to_slot("report_form", "moderation/_report_dialog.html")
        extensions.add_link("report", "moderation:report")
