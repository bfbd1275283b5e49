"""The buckets on a real cluster: a shard key that splits a celebrity's
notifications, named in full by every single-document write, and old buckets
that expire."""

from datetime import timedelta

import pytest
from bson import ObjectId
from pymongo import InsertOne, UpdateMany

from notifications import services as notifications
from notifications.documents import BUCKET_TTL_SECONDS, NotificationBucket
from socialsite.clock import now
from socialsite.management.commands import shard_plan
from tests.notifications.helpers import make_post, stored

SINGLE_WRITES = ("update_one", "delete_one", "replace_one", "find_one_and_update")


@pytest.fixture
def bucket_writes(monkeypatch):
    """The filter of every single-document write on `notification_buckets`."""
    seen: list[tuple[str, dict]] = []
    collection = NotificationBucket._get_collection()
    for name in SINGLE_WRITES:
        original = getattr(collection, name)

        def spy(filter, *args, _original=original, _name=name, **kw):
            seen.append((_name, dict(filter)))
            return _original(filter, *args, **kw)

        monkeypatch.setattr(collection, name, spy)

    def bulk_spy(requests, *args, _original=collection.bulk_write, **kw):
        requests = list(requests)
        seen.extend(
            (type(op).__name__, dict(op._filter))
            for op in requests
            if not isinstance(op, (InsertOne, UpdateMany))
        )
        return _original(requests, *args, **kw)

    monkeypatch.setattr(collection, "bulk_write", bulk_spy)
    return seen


def test_the_shard_key_is_the_owner_and_the_bucket():
    assert shard_plan.shard_key(NotificationBucket) == {"owner": 1, "slot": 1}
    assert shard_plan.key_problems(NotificationBucket, {"owner": 1, "slot": 1}) == []


def test_every_single_bucket_write_names_owner_and_slot(make_user, settings, bucket_writes):
    settings.NOTIFICATIONS_BUCKET_SIZE = 2
    ann = make_user("ann")
    for handle in ("bob", "cat", "dan"):
        make_user(handle)
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="like", actor="cat", post_id=post)  # joins
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="cat")  # rolls over
    notifications.notify(recipient="ann", kind="follow", actor="cat")  # already there
    assert len(stored("ann")) == 3
    assert {name for name, _ in bucket_writes} >= {"update_one", "UpdateOne"}
    for name, query in bucket_writes:
        assert query.get("owner") == "ann", (name, query)
        assert query.get("slot") == "open", (name, query)


def test_old_buckets_expire(make_user):
    """A TTL index on `max_ts`: a bucket goes BUCKET_TTL_SECONDS after its newest item."""
    buckets = NotificationBucket._get_collection()
    info = buckets.index_information()["max_ts_ttl"]
    assert info["key"] == [("max_ts", 1)]
    assert info["expireAfterSeconds"] == BUCKET_TTL_SECONDS == 180 * 24 * 3600
    make_user("ann")
    make_user("bob")
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    old = now() - timedelta(seconds=BUCKET_TTL_SECONDS + 60)
    item = {"id": ObjectId(), "kind": "follow", "actor": "cat", "ts": old}
    closed = {"owner": "ann", "slot": ObjectId(), "size": 1, "min_ts": old, "max_ts": old}
    buckets.insert_one({**closed, "items": [item]})
    # The embedded database expires on read, as a server's TTL monitor would soon after.
    assert [(i["kind"], i["actor"]) for i in stored("ann")] == [("follow", "bob")]
