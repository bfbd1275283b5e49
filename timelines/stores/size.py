"""`size`: buckets of FEED_BUCKET_SIZE entries, a new bucket when the last is full.

The article's "grouped by size". Each user and kind has one *open* bucket
(`slot: "open"`, unique with owner and kind). A delivery sends, per reader and
in order, (1) "close the open bucket if it is full" - closing sets `slot` to
the delivered post's id, unique per reader - and (2) an upsert that pushes the
entry into the open bucket unless it holds it already. Both go in one bulk
write per batch. The push's guard sees only the open bucket, and a delivery
that died between its close and its push (or whose bucket another post closed
since) would find the entry in a closed one: so a delivery that runs again
first leaves out the readers that hold it already (`holding`, one read per
batch), and re-delivering a post is a no-op. An upsert that collides because
another worker created the open bucket at the same moment is retried once
(socialsite/bulk.py) and then pushes into that bucket; what still
collides is already there.

A page reads buckets by `max_ts`, newest first, and merges them, so entries
that arrived out of order (backfill after a follow) still come out in order.
"""

from bson import ObjectId
from django.conf import settings
from pymongo import InsertOne, UpdateOne
from pymongo.collection import Collection

from socialsite.bulk import bulk_upsert
from socialsite.clock import aware
from socialsite.cursors import Cursor, older_than, sort_key
from timelines.documents import SizeTimeline
from timelines.stores.base import Chunk, EntryArrayStore, Lookups, newest_of_parts

OPEN = "open"
LAST_ID = ObjectId("f" * 24)  # sorts after every real id with the same ts


def _collection() -> Collection:
    return SizeTimeline._get_collection()


class SizeStore(EntryArrayStore):
    name = "size"
    document = SizeTimeline

    @property
    def bucket_size(self) -> int:
        return settings.FEED_BUCKET_SIZE

    def _ops(
        self, kind: str, owner: str, entries: list[dict], close_with: ObjectId
    ) -> list[UpdateOne]:
        ts = [e["ts"] for e in entries]
        push = {
            "$push": {"entries": {"$each": entries}},
            "$inc": {"size": len(entries)},
            "$min": {"min_ts": min(ts)},
            "$max": {"max_ts": max(ts)},
        }
        open_bucket = {"owner": owner, "kind": kind, "slot": OPEN}
        guard = {"entries.id": {"$ne": entries[0]["id"]}} if len(entries) == 1 else {}
        return [
            UpdateOne(
                {**open_bucket, "size": {"$gte": self.bucket_size}}, {"$set": {"slot": close_with}}
            ),
            UpdateOne({**open_bucket, **guard}, push, upsert=True),
        ]

    def reposts_from(self, after: Cursor) -> dict:
        # A bucket spans its entries' times: one whose newest entry is older
        # than the cursor holds nothing at or above it (the max_ts index).
        return {"max_ts": {"$gte": after.ts}}

    def holding(self, kind: str, owners: list[str], entry: dict) -> set[str]:
        # Open or closed, the bucket that holds it spans its time: the
        # (owner, kind, max_ts) index bounds the read.
        rows = _collection().find(
            {
                "owner": {"$in": sorted(owners)},
                "kind": kind,
                "max_ts": {"$gte": entry["ts"]},
                "min_ts": {"$lte": entry["ts"]},
                "entries.id": entry["id"],
            },
            {"_id": 0, "owner": 1},
        )
        return {row["owner"] for row in rows.batch_size(len(owners) + 1)}

    def deliver(self, kind: str, owners: list[str], entry: dict) -> None:
        ops = []
        for owner in owners:
            ops += self._ops(kind, owner, [entry], close_with=entry["id"])
        bulk_upsert(_collection(), ops, ordered=True)

    def append(self, kind: str, owner: str, entries: list[dict]) -> None:
        if entries:
            bulk_upsert(_collection(), self._ops(kind, owner, entries, ObjectId()), ordered=True)

    def filled(self, kind: str, owner: str, entries: list[dict]) -> list[dict]:
        # One at a time, entries go into the open bucket in delivery order;
        # the delivery that finds it full closes it with its own post's id
        # (`slot`), so each full bucket is closed by the first entry of the
        # next, and the last stays open, full or not.
        n = self.bucket_size
        chunks = [entries[i : i + n] for i in range(0, len(entries), n)]
        return [
            {
                "owner": owner,
                "kind": kind,
                "slot": chunks[i + 1][0]["id"] if i + 1 < len(chunks) else OPEN,
                "entries": chunk,
                "size": len(chunk),
                "min_ts": chunk[0]["ts"],  # in time order
                "max_ts": chunk[-1]["ts"],
            }
            for i, chunk in enumerate(chunks)
        ]

    def replace(self, kind: str, owner: str, entries: list[dict]) -> None:
        _collection().delete_many({"owner": owner, "kind": kind})
        ordered = sorted(entries, key=sort_key)  # oldest first, as delivery fills them
        n = self.bucket_size
        chunks = [ordered[i : i + n] for i in range(0, len(ordered), n)]
        ops = []
        for i, chunk in enumerate(chunks):
            ops.append(
                InsertOne(
                    {
                        "owner": owner,
                        "kind": kind,
                        "slot": OPEN if i == len(chunks) - 1 else ObjectId(),
                        "size": len(chunk),
                        "min_ts": chunk[0]["ts"],
                        "max_ts": chunk[-1]["ts"],
                        "entries": chunk,
                    }
                )
            )
        if ops:
            _collection().bulk_write(ops, ordered=True)

    def entries(
        self,
        kind: str,
        owner: str,
        before: Cursor | None,
        limit: int,
        *,
        copies: bool = True,
        lookups: Lookups | None = None,
    ) -> Chunk:
        query: dict = {"owner": owner, "kind": kind}
        if before is not None:
            query["min_ts"] = {"$lte": before.ts}
        fields = {"entries": 1, "max_ts": 1} if copies else {"entries.post": 0}
        buckets = _collection().find(query, fields).sort("max_ts", -1)
        return newest_of_parts(
            buckets,
            limit,
            entries_of=lambda bucket: (e for e in bucket["entries"] if older_than(e, before)),
            # Every bucket still to come is no newer than this one's max_ts:
            # once `limit + 1` entries are newer than that, the page is settled.
            settles=lambda previous, bucket, found: (
                sort_key(found[limit]) > (aware(bucket["max_ts"]), LAST_ID)
            ),
        )

    def remove_post(self, post_id: ObjectId) -> None:
        _collection().update_many(
            {"entries.id": post_id}, {"$pull": {"entries": {"id": post_id}}, "$inc": {"size": -1}}
        )
