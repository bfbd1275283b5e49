"""Site-wide documents: web sessions, rate-limit counters, the periodic
jobs' schedule and the marks of background work not finished yet."""

from datetime import timedelta

import mongoengine as me
from pymongo import ReadPreference, WriteConcern
from pymongo.collection import Collection


class PinnedToPrimary:
    """A document whose reads must see the writes before them and whose
    writes must outlive a failover, whatever the URI says (a URI may ask for
    `readPreference=secondaryPreferred` or `w=1` for the rest of the site):
    sessions, rate-limit counters, and the user document, which holds the
    one-use codes and links (docs/operations.md#using-a-real-mongodb). Its
    collection reads from the primary and writes with `w: "majority"`."""

    @classmethod
    def _get_collection(cls) -> Collection:
        collection = super()._get_collection()  # type: ignore[misc]
        return collection.with_options(
            read_preference=ReadPreference.PRIMARY, write_concern=WriteConcern("majority")
        )


class SessionRecord(PinnedToPrimary, me.Document):
    """A Django session, expired by a TTL index on `expire`.

    `user` is the signed-in handle, so that every session of a user can be
    ended at once (password change, suspension) with one indexed delete.
    """

    key = me.StringField(primary_key=True)
    data = me.StringField(required=True)
    expire = me.DateTimeField(required=True)
    user = me.StringField()
    # When it was last written or used (at most every LAST_SEEN_RESOLUTION):
    # the account's sessions page shows it.
    seen = me.DateTimeField()

    meta = {
        "collection": "session",
        "indexes": [
            {"fields": ["expire"], "expireAfterSeconds": 0, "name": "expire_ttl"},
            {"fields": ["user"], "name": "user", "sparse": True},
        ],
        # Read and written by `_id` alone, so the key is `_id`, which also keeps
        # it unique across shards (`create` relies on the duplicate-key error);
        # hashed, since no query wants `_id` order. Ending a user's sessions
        # by `user` scatters to every shard: rare (password change, suspension).
        "shard_key": ("key",),
        "shard_hashed": "key",
        "auto_create_index": False,
    }


class RateCounter(PinnedToPrimary, me.Document):
    """Hits of one (scope, key) in one fixed window; TTL-expired after it."""

    key = me.StringField(primary_key=True)
    hits = me.IntField(default=0)
    expire = me.DateTimeField(required=True)

    meta = {
        "collection": "ratelimit",
        "indexes": [{"fields": ["expire"], "expireAfterSeconds": 0, "name": "expire_ttl"}],
        # `_id` is "<scope>|<key>|<window>": ranged, one busy scope would fill
        # one chunk; every access is by `_id` equality, so it is hashed.
        "shard_key": ("key",),
        "shard_hashed": "key",
        "auto_create_index": False,
    }


class OnceKey(PinnedToPrimary, me.Document):
    """A one-time key a form or a client sent with a write (socialsite/once.py,
    docs/features.md#posting-twice): what the write made, for a day."""

    key = me.StringField(primary_key=True)
    value = me.ObjectIdField(required=True)
    expire = me.DateTimeField(required=True)

    meta = {
        "collection": "once_key",
        "indexes": [{"fields": ["expire"], "expireAfterSeconds": 0, "name": "expire_ttl"}],
        # Read and written by `_id` equality alone (a keyed hash), so hashed.
        "shard_key": ("key",),
        "shard_hashed": "key",
        "auto_create_index": False,
    }


class PeriodicJob(me.Document):
    """One periodic job's schedule and last run (socialsite/periodic.py):
    `due` is when its next run may be claimed. A handful of documents, each
    written once a period."""

    name = me.StringField(primary_key=True)
    due = me.DateTimeField(required=True)
    owner = me.StringField(default="")  # the process that claimed the run
    started = me.DateTimeField()
    finished = me.DateTimeField()
    outcome = me.StringField(default="")
    error = me.StringField(default="")

    # Unsharded: a handful of small documents (docs/operations.md#sharding).
    meta = {"collection": "periodic_job", "auto_create_index": False}


class GridFile(me.Document):
    """A GridFS bucket's file documents, which GridFS writes: subclasses
    name a bucket's `<bucket>.files` and declare the index that finds a
    person's files (their erasure, docs/accounts.md#erasure), as every index
    is declared (socialsite/indexes.py)."""

    metadata = me.DictField()

    meta = {"abstract": True, "strict": False}


class GridChunk(me.Document):
    """A GridFS bucket's chunks. GridFS makes the unique (files_id, n) index
    itself; declared here too, so that an empty test database has it and
    the index check knows it. Sharded on it, as GridFS's chunks are."""

    files_id = me.ObjectIdField()
    n = me.IntField()

    meta = {"abstract": True, "strict": False}


def orphan_chunks_delete(bucket: str, *, older_than_seconds: int = 3600) -> int:
    """Delete the bucket's chunks whose file has no files document: an upload
    that died before GridFS wrote it (the files document comes last). Only
    files older than `older_than_seconds`, by their ObjectId's time, so an
    upload in progress keeps its chunks. Called by the erasers of the apps
    that own the buckets (their erasure's verification, docs/accounts.md#erasure).
    Two reads (the chunks' distinct files, on the `files_id` index; those
    that have a files document) and a delete when some are orphans."""
    from bson import ObjectId

    from socialsite.clock import now
    from socialsite.mongo import database

    db = database()
    cutoff = ObjectId.from_datetime(now() - timedelta(seconds=older_than_seconds))
    ids = db[f"{bucket}.chunks"].distinct("files_id", {"files_id": {"$lt": cutoff}})
    if not ids:
        return 0
    kept = {row["_id"] for row in db[f"{bucket}.files"].find({"_id": {"$in": ids}}, {"_id": 1})}
    orphans = [file_id for file_id in ids if file_id not in kept]
    if not orphans:
        return 0
    return db[f"{bucket}.chunks"].delete_many({"files_id": {"$in": orphans}}).deleted_count


def grid_chunk_meta(collection: str) -> dict:
    return {
        "collection": collection,
        "indexes": [{"fields": ["files_id", "n"], "unique": True, "name": "files_id_1_n_1"}],
        "shard_key": ("files_id", "n"),
        "auto_create_index": False,
    }


def grid_file_meta(collection: str) -> dict:
    return {
        "collection": collection,
        "indexes": [{"fields": ["metadata.owner"], "name": "metadata_owner", "sparse": True}],
        "auto_create_index": False,
    }


class TaskMark(me.Document):
    """One piece of background work not finished yet (socialsite/durable.py,
    docs/operations.md#durable-background-work): written before its task is
    queued, deleted by the run that finishes it. A mark `queued` longer ago
    than TASKS_LEASE_SECONDS lost its run; past TASKS_MAX_ATTEMPTS it is
    `failed` and stays for a person to look at."""

    kind = me.StringField(required=True)  # the task's dotted path
    args = me.ListField()
    kwargs = me.DictField()
    created = me.DateTimeField(required=True)
    queued = me.DateTimeField(required=True)  # when its latest run was queued
    attempts = me.IntField(default=0)
    state = me.StringField(default="pending", choices=("pending", "failed"))
    error = me.StringField(default="")
    # A coalesced task's key while no run has started (socialsite/durable.py
    # `coalesced_task`): later requests for the same work join this mark.
    key = me.StringField()
    items = me.ListField(me.StringField())  # what the joined requests asked for

    meta = {
        "collection": "task_mark",
        "indexes": [
            # One waiting mark per key; marks without one are not indexed.
            {"fields": ["key"], "name": "key", "unique": True, "sparse": True},
            # The sweeper's read: pending marks whose lease is over, oldest first.
            {"fields": ["state", "queued"], "name": "state_queued"},
            # An erasure deletes the marks whose arguments name the person.
            {"fields": ["args"], "name": "args"},
        ],
        # Unsharded: small and short-lived, one document per task in flight
        # (docs/operations.md#sharding).
        "auto_create_index": False,
    }
