"""Background work nothing can lose (docs/operations.md#durable-background-work).

A queue (the worker thread, RQ) makes work quick; it is never the only
record of it. A task declared with `durable_task` writes a mark (one
`task_mark` document: the task and its arguments) before it is queued, and
the run that finishes it deletes the mark. A process that dies with the task
still queued, or halfway through it, leaves the mark behind; the sweeper
(`marks_sweep`, a periodic job run by the worker loop) finds the marks older
than TASKS_LEASE_SECONDS and queues their tasks again. Every durable task is
idempotent: a second run finds its work done and changes nothing, so a run
that finished and died before deleting its mark is harmless.

The `immediate` backend (the test suite's) runs a task inside `enqueue`,
with no queue that could lose it: no mark is written there.

A run that raises keeps its mark, with the error; the sweeper tries again up
to TASKS_MAX_ATTEMPTS runs in all, then marks it `failed`: logged, listed on
the moderation dashboard and in /healthz, never retried on its own.

A task declared with `coalesced_task` is work that many requests ask for at
once and one run answers: refreshing a post's embedded copies after a burst
of likes. Its mark carries a key (one waiting mark per key, on a unique
index) and the items asked for; a request that finds a mark waiting for its
key adds its items to it, in the same single upsert, and queues nothing. The
run is queued to start after a delay (the backend's `run_after`), so every
request of those seconds joins the one run; the run first releases the key,
so a request that comes while it works starts the next mark.

Some kinds keep their state on their own documents instead, cleared in the
write that finishes them: a post's or a repost's delivery (`pending`), the
counts' tokens, an erasure's job, an export's state. Their sweepers are their
apps' (feeds/sweeps.py, profiles/sweeps.py).
"""

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bson import ObjectId
from django.conf import settings
from django.tasks import Task, TaskResult
from django.tasks.backends.immediate import ImmediateBackend
from django.utils.module_loading import import_string
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from socialsite.clock import aware, now
from socialsite.documents import TaskMark

log = logging.getLogger(__name__)

# The keyword argument that carries a run's mark across the queue.
MARK = "_mark"
# A coalesced task's items: a field of its mark, the keyword of its function.
ITEMS = "items"
# Marks the sweeper takes in one pass; the rest wait for the next.
SWEEP_BATCH = 500

_running: ContextVar[str | None] = ContextVar("task_mark", default=None)


def _collection() -> Collection:
    return TaskMark._get_collection()


def lease() -> timedelta:
    """How long a queued run may take before the sweeper takes it as lost."""
    return timedelta(seconds=settings.TASKS_LEASE_SECONDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class DurableTask(Task):
    """A task whose `enqueue` first writes its mark (one insert)."""

    def enqueue(self, *args: object, **kwargs: object) -> TaskResult:
        backend = self.get_backend()
        if isinstance(backend, ImmediateBackend):
            # The test suite's backend runs the task inside this call: there is
            # no queue to lose it, so no mark (a test of the marks queues on the
            # dummy or thread backend).
            return backend.enqueue(self, args, kwargs)
        t = now()
        mark = ObjectId()
        _collection().insert_one(
            {
                "_id": mark,
                "kind": self.module_path,
                "args": list(args),
                "kwargs": kwargs,
                "created": t,
                "queued": t,
                "attempts": 0,
                "state": "pending",
                "error": "",
            }
        )
        return self.enqueue_marked(mark, args, kwargs)

    def enqueue_marked(
        self, mark: ObjectId, args: Iterable[object], kwargs: Mapping[str, object]
    ) -> TaskResult:
        """Queue a run for a mark already written (the sweeper's way)."""
        return self.get_backend().enqueue(self, tuple(args), {**kwargs, MARK: str(mark)})


def durable_task(function: Callable[..., Any]) -> DurableTask:
    """`@task`, with a mark written before each run is queued and deleted by
    the run that finishes. The function must be idempotent."""

    # Any, as `function`'s own signature says: a durable task takes and
    # returns whatever its function does.
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        mark = kwargs.pop(MARK, None)
        return _run_marked(function, mark, *args, **kwargs)

    return DurableTask(func=run)


def _run_marked(function: Callable[..., Any], mark: str | None, *args: Any, **kwargs: Any) -> Any:
    """Run the work of `mark` (None: the immediate backend's, unmarked):
    the mark goes when it is done, and keeps the error when it raises."""
    token = _running.set(mark)
    try:
        result = function(*args, **kwargs)
    except Exception as exc:
        if mark:
            _collection().update_one(
                {"_id": ObjectId(mark)},
                {"$set": {"error": f"{type(exc).__name__}: {exc}"[:500]}},
            )
        raise
    finally:
        _running.reset(token)
    if mark:
        _collection().delete_one({"_id": ObjectId(mark)})
    return result


@dataclass(frozen=True, slots=True, kw_only=True)
class CoalescedTask(DurableTask):
    """A durable task that one run does for every request of a few seconds."""

    def enqueue_coalesced(
        self, key: str, *args: object, items: Iterable[str], delay: float
    ) -> TaskResult | None:
        """Ask for the work under `key`, with `items`, to start in `delay`
        seconds. Joins the mark already waiting for `key` (None: its run will
        do this too), else writes one and queues its run. One round trip,
        either way."""
        wanted = sorted(set(items))
        backend = self.get_backend()
        if isinstance(backend, ImmediateBackend):
            return backend.enqueue(self, args, {ITEMS: wanted})
        t = now()
        due = t + timedelta(seconds=max(delay, 0))
        mark = ObjectId()
        join = {"$addToSet": {ITEMS: {"$each": wanted}}}
        fresh = {
            "_id": mark,
            "kind": self.module_path,
            "args": list(args),
            "kwargs": {},
            "created": t,
            # Its lease counts from when it is due: a deferred run is not lost.
            "queued": due,
            "attempts": 0,
            "state": "pending",
            "error": "",
        }
        try:
            written = _collection().update_one(
                {"key": key}, {**join, "$setOnInsert": fresh}, upsert=True
            )
        except DuplicateKeyError:
            # A request racing this one wrote the mark between our filter and
            # our insert (a real server's upsert is not atomic across both):
            # join it. Gone already (its run started): the next mark.
            if _collection().update_one({"key": key}, join).matched_count:
                return None
            return self.enqueue_coalesced(key, *args, items=wanted, delay=delay)
        if written.upserted_id is None:
            return None
        task = self.using(run_after=due) if delay > 0 and backend.supports_defer else self
        return task.enqueue_marked(mark, args, {})


def coalesced_task(function: Callable[..., Any]) -> CoalescedTask:
    """A durable task whose function takes its arguments and `items`: the
    union of what every request it answers asked for. Idempotent, as every
    durable task."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        mark = kwargs.pop(MARK, None)
        items = kwargs.pop(ITEMS, [])
        if mark:
            # Release the key before the work reads anything, so a request
            # from now on gets a run of its own; the mark stays until the work
            # is done. The items are the mark's: every request that joined it.
            row = _collection().find_one_and_update(
                {"_id": ObjectId(mark)},
                {"$unset": {"key": ""}},
                projection={ITEMS: 1},
                return_document=ReturnDocument.AFTER,
            )
            if row is None:  # a run of the same mark finished it
                return None
            items = row.get(ITEMS) or []
        return _run_marked(function, mark, *args, items=items)

    return CoalescedTask(func=run)


def running_mark() -> str | None:
    """The mark of the durable task running now (a stable id for its work:
    a second run of the same mark can recognise what the first wrote)."""
    return _running.get()


def marks_sweep(*, limit: int = SWEEP_BATCH) -> tuple[int, int]:
    """Queue again the tasks whose marks outlived their lease; mark `failed`
    those past TASKS_MAX_ATTEMPTS. (re-queued, failed). Three round trips
    however many marks: one read, one update that takes them (a fresh lease
    and one more attempt), one that fails the spent ones."""
    t = now()
    # The lease is the sweeper's setting, not the one of the process that
    # wrote the mark: a mark is lost when it was last queued this long ago.
    lost = {"state": "pending", "queued": {"$lte": t - lease()}}
    rows = list(_collection().find(lost).sort([("state", 1), ("queued", 1)]).limit(limit))
    if not rows:
        return 0, 0
    _collection().update_many(
        {"_id": {"$in": [row["_id"] for row in rows]}, **lost},
        {"$inc": {"attempts": 1}, "$set": {"queued": t}},
    )
    spent: list[dict] = []
    again: list[dict] = []
    for row in rows:
        runs = row.get("attempts", 0) + 1  # the lost or failed run counts
        (spent if runs >= settings.TASKS_MAX_ATTEMPTS else again).append(row)
    tasks: list[tuple[dict, DurableTask]] = []
    for row in again:
        try:
            task = import_string(row["kind"])
        except ImportError:
            task = None
        if not isinstance(task, DurableTask):
            row["error"] = f"no durable task {row['kind']}"
            spent.append(row)
            continue
        tasks.append((row, task))
    if spent:
        _collection().update_many(
            {"_id": {"$in": [row["_id"] for row in spent]}},
            # A failed mark no longer holds its key: the next request starts afresh.
            {"$set": {"state": "failed"}, "$unset": {"key": ""}},
        )
        for row in spent:
            log.error(
                "task_failed",
                extra={"kind": row["kind"], "mark": str(row["_id"]), "error": row.get("error")},
            )
    for row, task in tasks:
        try:
            task.enqueue_marked(row["_id"], row.get("args") or [], row.get("kwargs") or {})
        except Exception:  # the queue away: the mark stays, next lease
            log.exception("task_requeue_failed", extra={"kind": row["kind"]})
    return len(tasks), len(spent)


def health() -> dict[str, dict[str, int | None]]:
    """Per task kind: marks pending, marks failed, and the age in seconds of
    the oldest pending one (what /healthz and the moderation dashboard
    show). One aggregate."""
    t = now()
    report: dict[str, dict[str, int | None]] = {}
    for row in _collection().aggregate(
        [
            {"$match": {"state": {"$in": ["pending", "failed"]}}},
            {
                "$group": {
                    "_id": {"kind": "$kind", "state": "$state"},
                    "n": {"$sum": 1},
                    "oldest": {"$min": "$created"},
                }
            },
        ]
    ):
        kind, state = row["_id"]["kind"], row["_id"]["state"]
        entry = report.setdefault(kind, {"pending": 0, "failed": 0, "oldest": None})
        entry[state] = row["n"]
        if state == "pending" and row.get("oldest") is not None:
            entry["oldest"] = round((t - aware(row["oldest"])).total_seconds())
    return dict(sorted(report.items()))


def failed(*, limit: int = 50) -> list[dict]:
    """The newest failed marks, for the moderation dashboard."""
    rows = (
        _collection().find({"state": "failed"}).sort([("state", 1), ("queued", -1)]).limit(limit)
    )
    return [
        {
            "id": str(row["_id"]),
            "kind": row["kind"],
            "created": aware(row["created"]),
            "attempts": row.get("attempts", 0),
            "error": row.get("error", ""),
        }
        for row in rows
    ]


def marks_erase(handle: str, limit: int) -> int:
    """An erasure deletes the marks whose arguments name the person: their
    work goes with them."""
    return _collection().delete_many({"args": handle}).deleted_count


def register() -> None:
    from socialsite import periodic

    def sweep() -> str:
        again, spent = marks_sweep()
        return f"{again} task(s) queued again, {spent} failed."

    periodic.register("socialsite.task_marks", sweep)
