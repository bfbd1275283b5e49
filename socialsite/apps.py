from django.apps import AppConfig


class SocialsiteConfig(AppConfig):
    name = "socialsite"

    def ready(self):
        from socialsite import checks, logging, mongo  # noqa: F401 (checks: registers them)

        logging.configure()  # first: connecting logs whether the server answers
        mongo.connect()
        from socialsite import owners

        owners.register_core()
