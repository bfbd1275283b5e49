"""Sweepers and periodic jobs that run by themselves
(docs/operations.md#sweepers-run-by-themselves).

Every piece of background work keeps its state in MongoDB, and a sweeper
finds and finishes what a dead process left (a post still `pending`, an
erasure with no recent batch). Those sweepers must not wait for an operator
to set up cron: each app registers its own here, in `AppConfig.ready()` (as
the demo's seeders and the owners registry are: this module imports no
app), and the worker loop runs them every TASKS_SWEEP_SECONDS: the web
process's worker thread with the `thread` backend (socialsite/
thread_backend.py), the worker process with `rq`
(`manage.py run_worker`). cron can still run the same commands; it is
never needed.

Several processes run the loop (gunicorn's workers, several RQ workers):
each job is claimed before it runs, by one conditional upsert on its
`periodic_job` document (`due <= now`, setting the next `due`), so a job
runs once per period across all of them. A job that fails is logged and
recorded; it runs again next period, as do the others meanwhile. Jobs are
sweepers: running one twice, or after a process died in it, is harmless.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from pymongo.errors import DuplicateKeyError

from socialsite.clock import now
from socialsite.documents import PeriodicJob

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    name: str
    # What it did, in a few words for the log ("3 post(s) re-enqueued").
    run: Callable[[], str]


_jobs: dict[str, Job] = {}


def register(name: str, run: Callable[[], str]) -> None:
    """Run `run` every TASKS_SWEEP_SECONDS from the worker loop."""
    _jobs[name] = Job(name, run)


def jobs() -> list[Job]:
    return [_jobs[name] for name in sorted(_jobs)]


def _claim(name: str, owner: str) -> bool:
    """Take this period's run of the job: True for exactly one caller per
    period. The document's `due` is when the next run may start; a caller
    finding it not due yet fails the filter, and its upsert then collides
    with the existing `_id` (E11000): not its turn."""
    t = now()
    try:
        PeriodicJob._get_collection().update_one(
            {"_id": name, "due": {"$lte": t}},
            {
                "$set": {
                    "due": t + timedelta(seconds=settings.TASKS_SWEEP_SECONDS),
                    "owner": owner,
                    "started": t,
                }
            },
            upsert=True,
        )
    except DuplicateKeyError:
        return False
    return True


def run_due(*, owner: str) -> list[str]:
    """Run every registered job whose period is over; the names it ran."""
    ran = []
    for job in jobs():
        if not _claim(job.name, owner):
            continue
        ran.append(job.name)
        error = ""
        try:
            outcome = job.run()
        except Exception as exc:  # one failing job must not stop the others
            log.exception("periodic job %s failed", job.name)
            outcome, error = "", f"{type(exc).__name__}: {exc}"[:500]
        else:
            if outcome:
                log.info("periodic job %s: %s", job.name, outcome)
        PeriodicJob._get_collection().update_one(
            {"_id": job.name},
            {"$set": {"finished": now(), "outcome": outcome[:500], "error": error}},
        )
    return ran


def health() -> dict[str, dict[str, object]]:
    """Per job: seconds since it last started, and its last error ("" when
    it went well): what /healthz shows. One read."""
    t = now()
    rows = {row["_id"]: row for row in PeriodicJob._get_collection().find({})}
    report: dict[str, dict[str, object]] = {}
    for job in jobs():
        row = rows.get(job.name) or {}
        started = row.get("started")
        if started is not None and started.tzinfo is None:
            started = started.replace(tzinfo=t.tzinfo)
        report[job.name] = {
            "age": round((t - started).total_seconds()) if started else None,
            "error": row.get("error", ""),
        }
    return report


def loop(*, owner: str, stop: threading.Event) -> None:
    """Run the due jobs every TASKS_SWEEP_SECONDS until `stop` is set (the
    RQ worker's thread: `manage.py run_worker`)."""
    while not stop.is_set():
        try:
            run_due(owner=owner)
        except Exception:  # the database away for a moment: next period
            log.exception("periodic jobs could not run")
        stop.wait(settings.TASKS_SWEEP_SECONDS)
