"""The erasure walk (docs/accounts.md#erasure): what the task
`profiles.tasks.erase_account` runs after `erasure_begin`
(profiles/services/erasure.py) closed the account and queued it.

`erasure_run` walks every eraser of the owner registry (socialsite/owners.py),
top app first, each called in batches of ERASURE_BATCH until it has nothing
left, with its place saved on the `erasure` job after every batch. A worker
that dies leaves the job's `beat` behind; `accounts_sweep` queues the walk
again, which starts over at the saved step (erasers are safe to repeat).

Apart from `erasure_begin` because the task that runs the walk imports it,
while `erasure_begin` queues that task: one module holding both would import
the tasks and be imported by them.
"""

import logging
from datetime import timedelta
from time import monotonic

from django.conf import settings
from pymongo.collection import Collection

from profiles.documents import ErasureJob
from socialsite import owners
from socialsite.clock import now

log = logging.getLogger(__name__)
# The erasure's own job: it names the person until the walk's very end.
JOBS = "erasure"
# How often a long batch tells the sweeper it is alive: well inside the
# sweeper's stalled-walk age (accounts_sweep), a write per that many seconds.
LEASE_REFRESH_SECONDS = 10


def erasure_run(handle: str, *, batch: int | None = None) -> bool:
    """Walk the registry for `handle` from the job's saved step, then verify.
    Returns True when the account is gone (False: no such erasure, or
    something still names the person: the job stays for the sweeper)."""
    batch = batch or settings.ERASURE_BATCH
    jobs = ErasureJob._get_collection()
    job = jobs.find_one_and_update({"_id": handle}, {"$inc": {"runs": 1}, "$set": {"beat": now()}})
    if job is None:
        return False
    entries = owners.erasers()
    names = [entry.collection for entry in entries]
    start = names.index(job["step"]) if job.get("step") in names else 0
    batches = 0
    for entry in entries[start:]:
        batches += _erase_all(entry, handle, batch, jobs)
    # The verification pass: every declared field, read again. What a
    # notification or a summary written after its eraser ran left behind is
    # erased now; the job goes only when nothing names the person.
    left = owners.naming(handle, besides=(JOBS,))
    if left:
        log.warning("erasure_leftovers", extra={"fields": [f"{c}.{f}" for c, f in left]})
        by_collection = {entry.collection: entry for entry in entries}
        for collection in sorted({collection for collection, _ in left}):
            again = by_collection.get(collection)
            if again is not None:
                batches += _erase_all(again, handle, batch, jobs)
        left = owners.naming(handle, besides=(JOBS,))
    if left:
        # Kept: the sweeper runs the walk again later (accounts_sweep).
        log.error("erasure_incomplete", extra={"fields": [f"{c}.{f}" for c, f in left]})
        jobs.update_one({"_id": handle}, {"$set": {"left": [f"{c}.{f}" for c, f in left]}})
        return False
    jobs.delete_one({"_id": handle})
    log.info("account_erased", extra={"batches": batches})
    return True


def _erase_all(entry: owners.Owned, handle: str, batch: int, jobs: Collection) -> int:
    """Run one eraser until it has nothing left, the job's place and beat
    saved after each batch (a crash in the next one repeats it). Inside a
    long batch the eraser's `owners.lease_keep()` refreshes the beat, at most
    every LEASE_REFRESH_SECONDS, so the sweeper never takes a live walk for a
    dead one. Returns the batches run."""
    assert entry.erase is not None  # erasers() lists only the entries that have one
    last_beat = [monotonic()]

    def refresh() -> None:
        if monotonic() - last_beat[0] >= LEASE_REFRESH_SECONDS:
            jobs.update_one({"_id": handle}, {"$set": {"beat": now()}})
            last_beat[0] = monotonic()

    batches = 0
    with owners.lease_kept(refresh):
        while True:
            changed = entry.erase(handle, batch)
            batches += 1
            jobs.update_one({"_id": handle}, {"$set": {"step": entry.collection, "beat": now()}})
            last_beat[0] = monotonic()
            if not changed:
                return batches


def erasures_stalled(*, older_than_seconds: int) -> list[str]:
    """The walks whose last batch ended that long ago: their worker died."""
    cutoff = now() - timedelta(seconds=older_than_seconds)
    return [row["_id"] for row in ErasureJob._get_collection().find({"beat": {"$lt": cutoff}})]
