import os
import re
import time
from argparse import ArgumentParser
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, OutputWrapper
from gunicorn import glogging
from gunicorn.app.base import BaseApplication
from mongoengine.connection import get_connection

from socialsite import gunicorn_conf, indexes, mongo

if TYPE_CHECKING:
    from django.core.handlers.wsgi import WSGIHandler
    from gunicorn.config import Config

    from socialsite.asgi import PagesOnAPool

# runserver's forms: "8000", "0.0.0.0:8000", "[::1]:8000", "localhost:8000".
ADDRPORT = re.compile(r"^(?:(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(?P<port>\d{1,5})$")


class Command(BaseCommand):
    help = (
        "Run the site with demo data: indexes, seed (when the database is empty), "
        "static files (when DEBUG is off), then gunicorn in this same process: one "
        "worker with threads, forked after seeding, so the demo database (which "
        "lives in this process's memory) is the one it serves."
    )

    # It builds the indexes itself, first: the index check would only list
    # what is about to be created, and it collects the static files it needs.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--users", type=int, default=settings.DEMO_USERS)
        parser.add_argument("--maxfollows", type=int, default=settings.DEMO_MAXFOLLOWS)
        parser.add_argument(
            "--threads", type=int, default=gunicorn_conf.threads, help="threads that run pages"
        )
        parser.add_argument(
            "--server",
            choices=("asgi", "wsgi"),
            default="asgi",
            help="asgi (default): pages and live streams from this one process "
            "(socialsite/asgi.py, docs/live.md); wsgi: pages only, with gthread, "
            "and the pages poll instead of streaming",
        )

    def handle(
        self,
        *args: Any,
        addrport: str,
        users: int,
        maxfollows: int,
        threads: int,
        server: str,
        **options: Any,
    ) -> None:
        bind = parse_addrport(addrport)
        if "SITE_URL" not in os.environ and not bind.startswith(("0.0.0.0:", "[::]:")):
            # Federation's ids and handles name the address the demo serves
            # (docs/federation.md#settings); the server is forked from here.
            settings.SITE_URL = f"http://{bind}"
        if threads < 1:
            raise CommandError("--threads must be at least 1.")
        changes = indexes.ensure_all()
        for change in changes:
            if change.action != "created":
                self.stdout.write(
                    f"{change.action} {change.collection}.{change.name} ({change.detail})"
                )
        created = sum(1 for change in changes if change.action == "created")
        self.stdout.write(f"{created} index(es) created.")
        started = time.perf_counter()
        call_command(
            "seed_demo", users=users, maxfollows=maxfollows, if_empty=True, stdout=self.stdout
        )
        # benchmarks/http_mix.py reads this line.
        self.stdout.write(f"Demo data ready in {time.perf_counter() - started:.1f} s.")
        if mongo.is_demo():
            self.stdout.write(
                self.style.WARNING("DEMO MODE: in-memory database; set MONGODB_URI for MongoDB.")
            )
        else:
            # The worker is forked from this process: its client reopens there,
            # with no monitor thread caught half-way by the fork.
            get_connection().close()
        collect_static(self.stdout)
        self.stdout.write(
            f"Serving on http://{bind}/ with gunicorn ({server.upper()}, {threads} threads)."
        )
        self.stdout.flush()
        DemoServer(bind=bind, threads=threads, server=server).run()


def parse_addrport(addrport: str) -> str:
    match = ADDRPORT.match(addrport)
    if not match or not 0 < int(match["port"]) < 65536:
        raise CommandError(f"{addrport!r} is not a port or address:port.")
    return f"{match['host'] or '127.0.0.1'}:{match['port']}"


class JsonLinesLogger(glogging.Logger):
    """gunicorn's own lines (start, stop, worker errors) go through the site's
    JSON log handler, like every other line the process writes."""

    def setup(self, cfg: "Config") -> None:
        super().setup(cfg)
        self.error_log.handlers.clear()
        self.error_log.propagate = True


class DemoServer(BaseApplication):
    """gunicorn, run from this process with socialsite/gunicorn_conf.py's settings.

    The site is loaded before the fork (`preload_app`), so the worker inherits
    the seeded demo database and answers its first request at once. One worker
    only: a second would hold a copy of the database of its own.
    """

    def __init__(self, *, bind: str, threads: int, server: str = "asgi") -> None:
        self.server = server
        self.threads = threads
        self.options = {
            **{
                name: value
                for name, value in vars(gunicorn_conf).items()
                if not name.startswith("_")
            },
            "bind": bind,
            "threads": threads,
            "workers": 1,
            "preload_app": True,
            "logger_class": JsonLinesLogger,
        }
        if server == "asgi":
            # Pages run on the application's own pool of `threads`; the worker's
            # event loop holds the connections, open streams among them.
            self.options.update(
                worker_class="asgi",
                worker_connections=gunicorn_conf.asgi_connections,
                asgi_lifespan="off",
            )
        super().__init__()

    def load_config(self) -> None:
        for name, value in self.options.items():
            if name in self.cfg.settings and value is not None:
                self.cfg.set(name, value)

    def load(self) -> "WSGIHandler | PagesOnAPool":
        if self.server == "asgi":
            from socialsite.asgi import PagesOnAPool

            return PagesOnAPool(self.threads)
        from django.core.wsgi import get_wsgi_application

        return get_wsgi_application()


def collect_static(stdout: OutputWrapper) -> bool:
    """With DEBUG off, pages name static files by their hashed names, looked up in
    STATIC_ROOT's manifest (socialsite/checks.py): collect them, every start, so
    the manifest matches the code. True when it did."""
    if settings.DEBUG:
        return False
    call_command("collectstatic", interactive=False, verbosity=0)
    stdout.write(f"Static files collected in {settings.STATIC_ROOT}.")
    return True
