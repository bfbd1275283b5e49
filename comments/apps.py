from django.apps import AppConfig

from socialsite import demo, extensions


class CommentsConfig(AppConfig):
    name = "comments"

    def ready(self) -> None:
        demo.register("comments", "comments.demo.seed_stage")
        # In ready(), not at the top: importing `owners` and `receivers`
        # registers the app's collections and connects its receivers, wiring
        # that belongs after every app is loaded; this module is read while
        # the app registry is still being filled.
        from comments import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the domain events)
            views,
        )

        # The thread on the post page (docs/architecture.md#explicit-wiring).
        extensions.add_page_context("post", views.thread_context)
