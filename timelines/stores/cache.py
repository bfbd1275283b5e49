"""`cache`: one document per user and kind holding the newest FEED_CACHE_SIZE entries.

The article's "cache the top": a delivery is one `$push` with `$each`,
`$sort` and `$slice` into one document per reader, so a fan-out batch is one
`update_many` with `$in`; a page is one read of one document. A reader who
scrolls past the cap, or who has no cache document, is served by the read
model (`Chunk.complete = False`).
"""

from django.conf import settings
from pymongo import UpdateOne
from pymongo.collection import Collection
from pymongo.errors import BulkWriteError

from socialsite.cursors import Cursor, older_expr, sort_key
from timelines.documents import CacheTimeline
from timelines.stores.base import KINDS, WITHOUT_COPIES, Chunk, EntryArrayStore, Lookups

NEWEST_FIRST = {"ts": -1, "id": -1}


def _collection() -> Collection:
    return CacheTimeline._get_collection()


class CacheStore(EntryArrayStore):
    name = "cache"
    document = CacheTimeline

    @property
    def cap(self) -> int:
        return settings.FEED_CACHE_SIZE

    def _push(self, entries: list[dict]) -> dict:
        return {
            "$push": {"entries": {"$each": entries, "$sort": NEWEST_FIRST, "$slice": self.cap}}
        }

    def deliver(self, kind: str, owners: list[str], entry: dict) -> None:
        # No upsert: readers without a cache document are served by the read
        # model and get their cache built on their next visit.
        _collection().update_many(
            {"owner": {"$in": list(owners)}, "kind": kind, "entries.id": {"$ne": entry["id"]}},
            self._push([entry]),
        )

    def append(self, kind: str, owner: str, entries: list[dict]) -> None:
        if entries:
            _collection().update_one(
                {"owner": owner, "kind": kind}, self._push(entries), upsert=True
            )

    def replace(self, kind: str, owner: str, entries: list[dict]) -> None:
        ordered = sorted(entries, key=lambda e: (e["ts"], e["id"]), reverse=True)[: self.cap]
        _collection().update_one(
            {"owner": owner, "kind": kind}, {"$set": {"entries": ordered}}, upsert=True
        )

    def filled(self, kind: str, owner: str, entries: list[dict]) -> list[dict]:
        # `ensure_owner`'s document, then each `$push` sorts and slices it:
        # the newest `cap`, newest first. One for a timeline with no entries.
        newest = sorted(entries, key=sort_key, reverse=True)[: self.cap]
        return [{"owner": owner, "kind": kind, "entries": newest}]

    def fill_room(self, kind: str, owners: list[str]) -> None:
        # A sign-up made an empty document (`ensure_owner`); one with entries
        # stays, and the insert then fails loudly on the unique index.
        _collection().delete_many(
            {"owner": {"$in": owners}, "kind": kind, "entries.0": {"$exists": False}}
        )

    def ensure_owner(self, owners: list[str]) -> None:
        ops = [
            UpdateOne({"owner": o, "kind": k}, {"$setOnInsert": {"entries": []}}, upsert=True)
            for o in owners
            for k in KINDS
        ]
        if ops:
            try:
                _collection().bulk_write(ops, ordered=False)
            except BulkWriteError as exc:  # racing creators: the document exists, fine
                if any(e.get("code") != 11000 for e in exc.details.get("writeErrors", [])):
                    raise

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
        entries_expr: str | dict = "$entries"
        if before is not None:
            entries_expr = {
                "$filter": {"input": "$entries", "as": "e", "cond": older_expr(before)}
            }
        pipeline: list[dict] = [
            {"$match": {"owner": owner, "kind": kind}},
            {"$limit": 1},
            {
                "$project": {
                    "page": {"$slice": [entries_expr, limit + 1]},
                    "stored": {"$size": "$entries"},
                }
            },
        ]
        if not copies:
            pipeline.append(WITHOUT_COPIES)
        if lookups is not None:
            pipeline += lookups.stages("page")
        rows = list(_collection().aggregate(pipeline))
        if not rows:
            return Chunk([], exhausted=False, complete=False)
        stored = rows[0]["stored"]
        found = rows[0]["page"] if lookups is None else lookups.take(rows[0], "page")
        # The array is kept in (ts, id) order by `$push`'s `$sort`; sorting the
        # page again costs nothing and keeps it exact whatever the server did
        # with entries of the same millisecond.
        page = sorted(found, key=sort_key, reverse=True)
        pulled = None if lookups is None else lookups.pulled(rows[0])
        pinned = None if lookups is None else lookups.pinned(rows[0])
        if len(page) > limit:
            return Chunk(page[:limit], exhausted=False, pulled=pulled, pinned=pinned)
        if stored >= self.cap:
            # Past the cap: what is older than the cache lives only in `post`.
            return Chunk(page, exhausted=False, complete=False, pulled=pulled, pinned=pinned)
        return Chunk(page, exhausted=True, pulled=pulled, pinned=pinned)
