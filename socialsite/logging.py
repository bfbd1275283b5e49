"""JSON log lines (docs/architecture.md#stack): one per request, one per task run, and every
other record (Django's, pymongo's, ours) in the same shape, one line each.

settings.LOGGING formats the console handler with `JsonFormatter` and filters
it with `RefusedRequestFilter`; `configure()` (called at start-up) sends
structlog's loggers through the same handler. The request line is written by
`socialsite.middleware.RequestLogMiddleware`, the task line here.
"""

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import structlog
from structlog.typing import Processor

if TYPE_CHECKING:
    from django.tasks.base import TaskResult

# Applied to every record: structlog's own and the standard library's.
_SHARED: list[Processor] = [
    structlog.contextvars.merge_contextvars,  # the request_id of the request being served
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]

task_log = structlog.get_logger("socialsite.tasks")


def configure() -> None:
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    _connect_task_log()


class JsonFormatter(structlog.stdlib.ProcessorFormatter):
    """One JSON object per line; a traceback becomes the "exception" string."""

    def __init__(self) -> None:
        super().__init__(
            foreign_pre_chain=_SHARED,
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(),
            ],
        )


class RefusedRequestFilter(logging.Filter):
    """No second line and no traceback for a refused request (4xx).

    Django logs every 4xx response on `django.request` (`django.server` under
    runserver), a 403 with the PermissionDenied traceback; the request line
    already has the status and path, so those records go. A `django.security.*`
    record (400: a bad Host header, a forged upload) is an event of its own: it
    stays, without the traceback. 5xx records keep theirs.
    """

    DUPLICATES = ("django.request", "django.server")

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if not isinstance(status, int) or status >= 500:
            return True
        if record.name in self.DUPLICATES:
            return False
        record.exc_info = None
        record.exc_text = None
        return True


def log_task(name: str, outcome: str, ms: float | None) -> None:
    """The task line: the task's dotted path, "successful" or "failed", duration."""
    line = task_log.error if outcome == "failed" else task_log.info
    line("task", task=name, outcome=outcome, ms=None if ms is None else round(ms, 1))


@contextmanager
def task_run(name: str) -> Iterator[None]:
    """The task line for a worker that calls the task itself (socialsite.rq_backend)."""
    started = time.perf_counter()
    try:
        yield
    except Exception:
        log_task(name, "failed", (time.perf_counter() - started) * 1000)
        raise
    log_task(name, "successful", (time.perf_counter() - started) * 1000)


def _task_finished(sender: object, task_result: "TaskResult", **kwargs: Any) -> None:
    # Backends that run tasks through django.tasks (the immediate one) send this.
    started, finished = task_result.started_at, task_result.finished_at
    ms = (finished - started).total_seconds() * 1000 if started and finished else None
    log_task(task_result.task.module_path, str(task_result.status).lower(), ms)


def _connect_task_log() -> None:
    from django.tasks.signals import task_finished

    task_finished.connect(_task_finished, dispatch_uid="socialsite.logging.task_finished")
