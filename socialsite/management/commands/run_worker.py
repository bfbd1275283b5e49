import os
import socket
import threading
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from redis import Redis
from rq import SimpleWorker

from socialsite import mongo, periodic


class Command(BaseCommand):
    help = (
        "Run an RQ worker for the background tasks (TASKS_BACKEND=rq), on the Redis "
        "at REDIS_URL. It connects to MongoDB at start-up like every manage.py command."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        options = settings.TASKS.get("default", {}).get("OPTIONS", {})
        parser.add_argument(
            "--queue",
            action="append",
            dest="queues",
            help=f"RQ queue to serve; repeat for more (default {options.get('QUEUE', 'default')})",
        )
        parser.add_argument("--burst", action="store_true", help="Run the queued jobs, then exit.")

    def handle(self, *args: Any, queues: list[str] | None, burst: bool, **options: Any) -> None:
        default = settings.TASKS.get("default", {}).get("OPTIONS", {}).get("QUEUE", "default")
        queues = queues or [default]
        connection = Redis.from_url(settings.REDIS_URL)
        connection.ping()  # fail at once, with redis' own message, when it is not there
        self.stdout.write(
            f"run_worker: serving queue(s) {', '.join(queues)} on {_redact(settings.REDIS_URL)}"
            + (" (burst)" if burst else "")
        )
        if mongo.is_demo():
            self.stderr.write(
                self.style.WARNING(
                    "DEMO MODE: this worker has its own in-memory database and cannot see "
                    "the site's data. Set MONGODB_URI to the site's MongoDB."
                )
            )
        # SimpleWorker runs jobs in this process: no fork per job, so the
        # MongoDB connection made at start-up is reused (pymongo is not fork-safe).
        worker = SimpleWorker(queues, connection=connection)
        # The sweepers and periodic jobs run beside the jobs, on a thread of
        # this worker (socialsite/periodic.py): no cron needed. A burst run
        # only empties the queue.
        stop = threading.Event()
        if not burst and settings.TASKS_SWEEP_SECONDS > 0:
            owner = f"{socket.gethostname()}:{os.getpid()}"
            threading.Thread(
                target=periodic.loop,
                kwargs={"owner": owner, "stop": stop},
                name="periodic",
                daemon=True,
            ).start()
        try:
            # The scheduler queues the deferred jobs when they are due
            # (socialsite/durable.py's coalesced tasks).
            worker.work(
                burst=burst,
                with_scheduler=True,
                logging_level=settings.LOGGING["root"]["level"],
            )
        finally:
            stop.set()


def _redact(url: str) -> str:
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    return url
