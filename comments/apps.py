from django.apps import AppConfig


class CommentsConfig(AppConfig):
    name = "comments"

    def ready(self):
        from socialsite import demo

        demo.register("comments", "comments.demo.seed_stage")
        from comments import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the domain events)
            views,
        )
        from socialsite import extensions

        # The thread on the post page (docs/architecture.md#explicit-wiring).
        extensions.add_page_context("post", views.thread_context)
