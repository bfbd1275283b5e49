"""Appending to bounded buckets: *Storing Comments*'s "Hybrid Schema Design",
shared by the comment store `buckets` (comments/stores/buckets.py) and the
messages of a conversation (messaging/services.py).

A parent document (the post, the conversation) keeps the number of the
bucket being filled (`counter`; missing means 0). An append is the seed's
find-and-modify upsert on that bucket (`$inc` its count and bytes, `$push`
the item); when the bucket it landed in has reached its size, in items or
in bytes, the counter is bumped by an update whose query holds the number
just used, so of several racers only one advances it. Therefore:

- nothing is lost: every item is one atomic `$push`;
- no bucket is empty: a bucket only comes into being by the upsert that
  pushes an item into it;
- a bucket holds at most its size plus the writers that read the old number
  before the bump (the seed's "soft" limit), so its bytes stay bounded too;
- two racers upserting a bucket that does not exist yet: the unique index on
  (owner, bucket) lets one insert land, the other gets E11000 and retries,
  which then finds the bucket and pushes into it.

Every write names one bucket by the whole shard key (owner, bucket).
"""

from collections.abc import Callable
from dataclasses import dataclass

from bson import BSON, ObjectId
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

ATTEMPTS = 16  # retried upserts before giving up


class BucketsMissing(LookupError):
    """The parent document that numbers the buckets does not exist."""


class AppendFailed(RuntimeError):
    """No attempt landed (a pathological race): nothing was stored."""


@dataclass(frozen=True)
class Buckets:
    """Where the buckets of one kind live and how big they grow."""

    buckets: Callable[[], Collection]  # the bucket collection
    parents: Callable[[], Collection]  # the collection holding the counter
    owner: str  # the buckets' field naming the parent ("discussion_id", "conversation")
    items: str  # the buckets' array ("comments", "messages")
    counter: str  # the parent's field numbering the bucket being filled
    size: Callable[[], int]  # items per bucket
    max_bytes: Callable[[], int | None] = lambda: None  # bytes per bucket, if bounded

    def counter_is(self, n: int) -> dict:
        """`counter == n`, where a parent without the field is at bucket 0."""
        return {self.counter: n} if n else {self.counter: {"$in": [0, None]}}

    def append(
        self,
        parent_id: ObjectId,
        item: dict,
        *,
        guard: Callable[[dict], dict] | None = None,
        on_conflict: Callable[[dict], dict | None] | None = None,
        number: int | None = None,
    ) -> tuple[int, dict] | None:
        """Push `item` into the bucket being filled: (bucket number, item).

        `guard(item)` is added to the bucket's filter (the comments' `$ne` on
        the slug, so a bucket never holds a slug twice). When a guarded
        upsert fails with E11000, `on_conflict(item)` says what next: the
        item to try again (itself, or a new one), or None to stop (the
        append then returns None). `number`: the bucket being filled as the
        caller just read it, which spares the first attempt its read."""
        buckets, size, max_bytes = self.buckets(), self.size(), self.max_bytes()
        for attempt in range(ATTEMPTS):
            if number is None or attempt:
                head = self.parents().find_one({"_id": parent_id}, {self.counter: 1})
                if head is None:
                    raise BucketsMissing(f"no parent {parent_id}")
                number = head.get(self.counter) or 0
            try:
                bucket = buckets.find_one_and_update(
                    {self.owner: parent_id, "bucket": number, **(guard(item) if guard else {})},
                    {
                        "$inc": {"count": 1, "bytes": len(BSON.encode({"i": item}))},
                        "$push": {self.items: item},
                    },
                    projection={"count": 1, "bytes": 1},
                    upsert=True,
                    return_document=ReturnDocument.AFTER,
                )
            except DuplicateKeyError:
                # A racer created this bucket first (retry), or the guard
                # refused an existing bucket (the caller decides).
                if guard is not None and on_conflict is not None:
                    again = on_conflict(item)
                    if again is None:
                        return None
                    item = again
                continue
            assert bucket is not None  # an upsert that returns the document after
            full = bucket["count"] >= size or (
                max_bytes is not None and bucket.get("bytes", 0) >= max_bytes
            )
            if full:
                # Race-safe rollover: only the first writer to see it full moves on.
                self.parents().update_one(
                    {"_id": parent_id, **self.counter_is(number)}, {"$inc": {self.counter: 1}}
                )
            return number, item
        raise AppendFailed(f"could not append to the buckets of {parent_id}")
