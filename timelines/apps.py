from django.apps import AppConfig


class TimelinesConfig(AppConfig):
    name = "timelines"

    def ready(self) -> None:
        from socialsite import demo, extensions
        from timelines import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the graph's and the posts' events)
            views,
        )

        # After every other app's demo: the copies carry their comments and votes.
        demo.register("delivery", "timelines.demo.delivery_stage", last=True)
        # The wall on the profile page, with its composer
        # (docs/architecture.md#explicit-wiring).
        extensions.add_page_context("profile", views.wall_context)
        extensions.add_composer_page("profiles:profile")
        extensions.add_composer_page("timelines:feed")
