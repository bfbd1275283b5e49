"""Erasing an account (docs/accounts.md#erasure).

`erasure_begin` is what the delete page does at once: the account can no
longer sign in or be seen (status "erasing"), its sessions end, its handle is
held for HANDLE_HOLD_DAYS, and the walk is queued. `erasure_run` is the
walk: every eraser of the owner registry (socialsite/owners.py), top app
first, each called in batches of ERASURE_BATCH until it has nothing left,
with its place saved on the `erasure` job after every batch. A worker that
dies leaves the job's `beat` behind; `accounts_sweep` queues the walk again,
which starts over at the saved step (erasers are safe to repeat).
"""

import hashlib
import hmac
import logging
from datetime import timedelta
from time import monotonic

from django.conf import settings
from pymongo.collection import Collection

from profiles.documents import ErasureJob, HeldHandle, User
from socialsite import owners
from socialsite.clock import now
from socialsite.sessions import end_sessions_of

log = logging.getLogger(__name__)
# The erasure's own job: it names the person until the walk's very end.
JOBS = "erasure"
# How often a long batch tells the sweeper it is alive: well inside the
# sweeper's stalled-walk age (accounts_sweep), a write per that many seconds.
LEASE_REFRESH_SECONDS = 10


def handle_digest(handle: str) -> str:
    """The held handle's key: keyed by SECRET_KEY, so the hold names no one
    and a guessed handle cannot be checked against a copy of the database."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, b"held-handle:" + handle.encode(), hashlib.sha256).hexdigest()


def handle_held(handle: str) -> bool:
    return HeldHandle.objects(digest=handle_digest(handle), until__gt=now()).count() > 0


def erasure_begin(*, user: User) -> None:
    """Close the account now; the walk erases the rest (a task)."""
    from profiles import tasks  # tasks import the services

    HeldHandle._get_collection().update_one(
        {"_id": handle_digest(user.handle)},
        {"$set": {"until": now() + timedelta(days=settings.HANDLE_HOLD_DAYS)}},
        upsert=True,
    )
    ErasureJob._get_collection().update_one(
        {"_id": user.handle},
        {"$setOnInsert": {"step": "", "started": now(), "beat": now(), "runs": 0}},
        upsert=True,
    )
    User._get_collection().update_one({"_id": user.handle}, {"$set": {"status": "erasing"}})
    end_sessions_of(user.handle)
    tasks.erase_account.enqueue(user.handle)


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


def user_erase(handle: str, limit: int) -> int:
    """The `user` collection's eraser: the person leaves everyone's block
    and mute lists, then their own document goes (the walk's last step of
    this app, so the erasers above could still read it)."""
    users = User._get_collection()
    changed = 0
    for field in ("blocked", "muted"):
        holders = [row["_id"] for row in users.find({field: handle}, {"_id": 1}).limit(limit)]
        if holders:
            users.update_many({"_id": {"$in": holders}}, {"$pull": {field: handle}})
            changed += len(holders)
    if changed:
        return changed
    return users.delete_one({"_id": handle}).deleted_count
