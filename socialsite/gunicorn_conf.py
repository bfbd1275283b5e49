"""gunicorn settings: `gunicorn -c python:socialsite.gunicorn_conf socialsite.wsgi`.

`manage.py demo` serves with the same settings, in its own process (one worker:
the demo database lives in that process's memory; see the command).

Threads, not processes, give the concurrency: a page mostly waits on MongoDB,
and the gthread worker keeps idle keep-alive connections off its threads.
"""

import os
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gunicorn.arbiter import Arbiter
    from gunicorn.workers.base import Worker

bind = os.environ.get("BIND", "127.0.0.1:8000")
# gunicorn itself reads WEB_CONCURRENCY for the default; named here so the
# file says what runs.
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
# Under the ASGI worker (`gunicorn -k asgi socialsite.asgi`, `manage.py demo`):
# open connections one process holds, live streams among them (docs/live.md).
asgi_connections = int(os.environ.get("ASGI_CONNECTIONS", "10000"))
# Seconds an idle keep-alive connection stays open: a browser's next click
# (or a proxy's next request) reuses it instead of a new TCP handshake.
keepalive = 5
# A gthread worker beats from its main loop, not from the request threads, so
# this only catches a stuck process, never a slow page.
timeout = 60
graceful_timeout = 10
# RequestLogMiddleware writes one JSON line per request: no access log here.
accesslog = None
# Its default path ($HOME/.gunicorn/gunicorn.ctl) is one per user: a second
# server (a test, the benchmark) would take the first one's socket over.
control_socket_disable = True


def post_fork(server: "Arbiter", worker: "Worker") -> None:
    """A MongoClient made before the fork is closed there (`demo` does so) and
    reopens in the worker on first use; pymongo still warns, for the record."""
    warnings.filterwarnings("ignore", message="MongoClient opened before fork")
