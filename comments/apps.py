from django.apps import AppConfig


class CommentsConfig(AppConfig):
    name = "comments"

    def ready(self):
        from socialsite import demo

        demo.register("comments", "comments.demo.seed_stage")
