from typing import Any

from django.apps import AppConfig


class SocialsiteConfig(AppConfig):
    name = "socialsite"

    def ready(self) -> None:
        from socialsite import checks, logging, mongo  # noqa: F401 (checks: registers them)

        logging.configure()  # first: connecting logs whether the server answers
        mongo.connect()
        from socialsite import owners

        owners.register_core()
        from socialsite import durable

        durable.register()
        from django.core.signals import request_started

        request_started.connect(_start_sweeping, dispatch_uid="socialsite.start_sweeping")


def _start_sweeping(**kwargs: Any) -> None:
    """A server's first request starts the sweepers on the thread backend's
    worker (socialsite/periodic.py): the web process of the embedded demo
    and of a single-server install runs them, with no cron."""
    from django.tasks import task_backends

    start = getattr(task_backends["default"], "start_sweeping", None)
    if start is not None:
        start()
