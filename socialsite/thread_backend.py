"""A django.tasks backend that runs tasks on a worker thread of this process.

Why: a request must never wait for work that is not its own: a post's
fan-out to a thousand followers, a follow's backfill, the copies a like
refreshes, the notifications an action sends (see
docs/performance.md#writes-never-wait-for-fan-out). The immediate backend
runs tasks inside the request; RQ needs Redis and a second process, which
the demo cannot have: its embedded database lives in this process's memory.
This backend is the demo's: `enqueue` puts the task on an in-memory queue
and returns, and one daemon thread runs the queue in order, with the same
signals (and so the same log lines) as the immediate backend.

    TASKS = {"default": {"BACKEND": "socialsite.thread_backend.ThreadBackend"}}

What a dying process leaves half done is recovered as with any worker:
deliveries, backfills and counts keep their state in the database, and the
sweepers finish them. This thread runs them too, every TASKS_SWEEP_SECONDS,
once the server has called `start_sweeping` (socialsite/periodic.py,
docs/operations.md#sweepers-run-by-themselves). The queue itself lives in
memory, but every task in it is marked in the database before it is queued
(socialsite/durable.py), so a sweeper runs again what a dead process lost.
The thread starts on the first `enqueue` in a process, so a server that
forks after start-up (gunicorn, `manage.py demo`) runs it in the worker. A
process that ends normally first runs what is queued (up to
DRAIN_AT_EXIT_SECONDS, within gunicorn's grace period; the sweepers finish
the rest): a management command from cron (`redeliver_pending`,
`rebuild_feeds`) queues its tasks here and exits, and they must not be lost.
Results are kept for the latest RESULTS_KEPT tasks, for `get_result`.

A task with a `run_after` (`task.using(run_after=...)`) waits in memory
until then, beside the queue, and runs in turn after it: what a coalesced
task asks (socialsite/durable.py), so the requests of those seconds join one
run. Its mark holds it too: a process that dies meanwhile loses nothing.
"""

import atexit
import heapq
import itertools
import logging
import os
import queue
import socket
import threading
import time
from collections import OrderedDict
from datetime import UTC, datetime
from traceback import format_exception

from django.conf import settings
from django.tasks.backends.base import BaseTaskBackend
from django.tasks.base import Task, TaskContext, TaskError, TaskResult, TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist
from django.tasks.signals import task_enqueued, task_finished, task_started
from django.utils import timezone
from django.utils.crypto import get_random_string
from django.utils.json import normalize_json

from socialsite import periodic

log = logging.getLogger(__name__)

RESULTS_KEPT = 1000
# How long a process that is ending waits for the tasks still queued: within
# gunicorn's `graceful_timeout` (10 s, socialsite/gunicorn_conf.py), after
# which the arbiter kills the worker anyway. What is left then is not lost:
# its marks are in the database, and the sweepers finish it
# (docs/operations.md#durable-background-work).
DRAIN_AT_EXIT_SECONDS = 8


# One backend per configured alias in a process. Django keeps a task
# backend per thread (and per request under ASGI: `task_backends` is an
# asgiref Local), which here would be a queue, a worker thread and a
# sweeper loop per request thread. Keyed by the settings dict itself, so a
# test's `override_settings(TASKS=...)` gets a backend of its own.
_SHARED: dict[tuple[str, int], "ThreadBackend"] = {}
_SHARED_LOCK = threading.Lock()


class ThreadBackend(BaseTaskBackend):
    supports_defer = True
    supports_async_task = False
    supports_get_result = True
    supports_priority = False

    def __new__(cls, alias: str, params: dict[str, object]) -> "ThreadBackend":
        with _SHARED_LOCK:
            key = (alias, id(params))
            shared = _SHARED.get(key)
            if shared is None or type(shared) is not cls or shared._params is not params:
                shared = super().__new__(cls)
                _SHARED[key] = shared
            return shared

    def __init__(self, alias: str, params: dict[str, object]) -> None:
        if getattr(self, "_params", None) is params:
            return  # this process's backend for these settings: already made
        self._params = params
        super().__init__(alias, params)
        self.worker_id = get_random_string(32)
        self._queue: queue.Queue[TaskResult | None] = queue.Queue()
        self._results: OrderedDict[str, TaskResult] = OrderedDict()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._sweeping = False
        # Tasks with a `run_after`: (monotonic time due, order, result).
        self._deferred: list[tuple[float, int, TaskResult]] = []
        self._order = itertools.count()

    # --- the request's side -------------------------------------------------

    def enqueue(
        self, task: Task, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> TaskResult:
        self.validate_task(task)
        result = TaskResult(
            task=task,
            id=get_random_string(32),
            status=TaskResultStatus.READY,
            enqueued_at=timezone.now(),
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        self._keep(result)
        task_enqueued.send(type(self), task_result=result)
        self._ensure_worker()
        delay = 0.0
        if task.run_after is not None:
            delay = (task.run_after - datetime.now(UTC)).total_seconds()
        if delay > 0:
            with self._lock:
                entry = (time.monotonic() + delay, next(self._order), result)
                heapq.heappush(self._deferred, entry)
            self._queue.put(None)  # the worker's wait now ends sooner
        else:
            self._queue.put(result)
        return result

    def get_result(self, result_id: str) -> TaskResult:
        with self._lock:
            try:
                return self._results[result_id]
            except KeyError as exc:
                raise TaskResultDoesNotExist(result_id) from exc

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until every task queued so far has run, deferred ones too;
        False on a timeout. For tests and benchmarks that look at a task's
        effects."""
        deadline = time.monotonic() + timeout
        while self.pending:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    @property
    def pending(self) -> int:
        """Tasks queued or deferred and not finished yet (the health page
        shows it). A deferred task moves to the queue under the lock, so it
        is never out of both."""
        with self._lock:
            return len(self._deferred) + self._queue.unfinished_tasks

    # --- the worker's side ---------------------------------------------------

    def _ensure_worker(self) -> None:
        pid = os.getpid()
        with self._lock:
            if self._thread is not None and self._thread.is_alive() and self._pid == pid:
                return
            if self._pid != pid:
                # A forked child inherits the parent's queue object but no thread:
                # what the parent queued is the parent's.
                self._queue = queue.Queue()
                self._deferred = []
                if self._pid is not None:
                    self._sweeping = False  # the child's server starts its own
            if self._pid is None:
                atexit.register(self._drain_at_exit)
            self._pid = pid
            self._thread = threading.Thread(
                target=self._work, name=f"tasks-{self.alias}", daemon=True
            )
            self._thread.start()

    def _drain_at_exit(self) -> None:
        ours = self._pid == os.getpid()
        if ours and self.pending and not self.wait_idle(DRAIN_AT_EXIT_SECONDS):
            log.error("exiting with %d task(s) not run", self.pending)

    def start_sweeping(self) -> None:
        """From now on the worker thread also runs the sweepers and periodic
        jobs every TASKS_SWEEP_SECONDS, the first at once: a server that
        starts after a crash finishes what the last one left
        (socialsite/periodic.py). A server calls it on its first request;
        a management command from cron never does."""
        if settings.TASKS_SWEEP_SECONDS <= 0:
            return
        self._ensure_worker()  # first: a forked child starts afresh there
        if self._sweeping:
            return
        self._sweeping = True
        self._queue.put(None)  # wakes a worker that waits for a task

    def stop_sweeping(self) -> None:
        """The worker thread runs tasks only, from its next turn on."""
        self._sweeping = False
        self._queue.put(None)

    def _work(self) -> None:
        next_sweep = time.monotonic()
        owner = f"{socket.gethostname()}:{os.getpid()}"
        while True:
            if self._sweeping and time.monotonic() >= next_sweep:
                try:
                    periodic.run_due(owner=owner)
                except Exception:  # the database away for a moment: next period
                    log.exception("periodic jobs could not run")
                next_sweep = time.monotonic() + settings.TASKS_SWEEP_SECONDS
            wait = self._release_due()
            if self._sweeping:
                until_sweep = max(0.0, next_sweep - time.monotonic())
                wait = until_sweep if wait is None else min(wait, until_sweep)
            try:
                result = self._queue.get(timeout=wait)
            except queue.Empty:
                continue
            if result is None:  # a wake-up: sweeping started, or a task deferred
                self._queue.task_done()
                continue
            try:
                self._run(result)
            except BaseException:  # never let one task end the worker
                log.exception("task %s crashed its runner", result.task.module_path)
            finally:
                self._queue.task_done()

    def _release_due(self) -> float | None:
        """Queue the deferred tasks that are due; seconds until the next one
        (None: none waits)."""
        with self._lock:
            t = time.monotonic()
            while self._deferred and self._deferred[0][0] <= t:
                self._queue.put(heapq.heappop(self._deferred)[2])
            return self._deferred[0][0] - t if self._deferred else None

    def _run(self, result: TaskResult) -> None:
        """The immediate backend's lifecycle, on this thread: RUNNING, then
        SUCCESSFUL with the return value or FAILED with the traceback."""
        task = result.task
        started = timezone.now()
        object.__setattr__(result, "status", TaskResultStatus.RUNNING)
        object.__setattr__(result, "started_at", started)
        object.__setattr__(result, "last_attempted_at", started)
        result.worker_ids.append(self.worker_id)
        task_started.send(sender=type(self), task_result=result)
        try:
            if task.takes_context:
                value = task.call(TaskContext(task_result=result), *result.args, **result.kwargs)
            else:
                value = task.call(*result.args, **result.kwargs)
            object.__setattr__(result, "_return_value", normalize_json(value))
        except Exception as exc:
            kind = type(exc)
            result.errors.append(
                TaskError(
                    exception_class_path=f"{kind.__module__}.{kind.__qualname__}",
                    traceback="".join(format_exception(exc)),
                )
            )
            object.__setattr__(result, "status", TaskResultStatus.FAILED)
            log.warning("task %s failed: %s", task.module_path, exc, exc_info=exc)
        else:
            object.__setattr__(result, "status", TaskResultStatus.SUCCESSFUL)
        object.__setattr__(result, "finished_at", timezone.now())
        task_finished.send(type(self), task_result=result)

    def _keep(self, result: TaskResult) -> None:
        with self._lock:
            self._results[result.id] = result
            while len(self._results) > RESULTS_KEPT:
                self._results.popitem(last=False)
