from django.apps import AppConfig


class CommentsConfig(AppConfig):
    name = "comments"

    def ready(self):
        from socialsite import demo

        demo.register("comments", "comments.demo.seed_stage")
        from comments import (
            owners,  # noqa: F401  (declares its collections' owners)
            receivers,  # noqa: F401  (connects the domain events)
        )
