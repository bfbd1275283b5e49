"""`month`: one document per user, kind and month, as seed 000 stores
`social.wall` and `social.news`.

A delivery is one bulk write of per-reader upserts keyed by the unique
(owner, kind, month) index: a reader whose month document already holds the
entry fails the `entries.id $ne` filter, the upsert then collides with the
existing document and is ignored, so re-delivery never duplicates. A page
walks the months newest first (seed 000's `get_posts`).
"""

from pymongo import UpdateOne

from feeds.documents import MonthTimeline
from feeds.timelines.base import (
    Chunk,
    EntryArrayStore,
    month_of,
    older_than,
    sort_key,
)
from feeds.timelines.bulk import bulk_ignoring_duplicates


def _collection():
    return MonthTimeline._get_collection()


class MonthStore(EntryArrayStore):
    name = "month"
    document = MonthTimeline

    def deliver(self, kind, owners, entry):
        month = month_of(entry["ts"])
        bulk_ignoring_duplicates(
            _collection(),
            [
                UpdateOne(
                    {"owner": o, "kind": kind, "month": month, "entries.id": {"$ne": entry["id"]}},
                    {"$push": {"entries": entry}},
                    upsert=True,
                )
                for o in owners
            ],
        )

    def append(self, kind, owner, entries):
        by_month: dict[str, list[dict]] = {}
        for entry in entries:
            by_month.setdefault(month_of(entry["ts"]), []).append(entry)
        bulk_ignoring_duplicates(
            _collection(),
            [
                UpdateOne(
                    {"owner": owner, "kind": kind, "month": month},
                    {"$push": {"entries": {"$each": chunk}}},
                    upsert=True,
                )
                for month, chunk in by_month.items()
            ],
        )

    def replace(self, kind, owner, entries):
        _collection().delete_many({"owner": owner, "kind": kind})
        self.append(kind, owner, entries)

    def entries(self, kind, owner, before, limit):
        query = {"owner": owner, "kind": kind}
        if before is not None:
            query["month"] = {"$lte": month_of(before.ts)}
        found: list[dict] = []
        # Months arrive newest first; each month's array is in arrival order,
        # so it is sorted here (backfilled entries land out of order).
        for doc in _collection().find(query, {"entries": 1}).sort("month", -1):
            older = [e for e in doc["entries"] if older_than(e, before)]
            found += sorted(older, key=sort_key, reverse=True)
            if len(found) > limit:
                return Chunk(found[:limit], exhausted=False)
        return Chunk(found, exhausted=True)
