from django.apps import AppConfig


class SocialsiteConfig(AppConfig):
    name = "socialsite"

    def ready(self):
        from socialsite import mongo

        mongo.connect()
