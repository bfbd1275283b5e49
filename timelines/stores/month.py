"""`month`: one document per user, kind and month, as *Storing Updates and Profiles* stores
`social.wall` and `social.news`, in parts of at most FEED_MONTH_CAP entries.

A busy reader's month would pass the 16 MB document limit (docs/performance.md), so
a month is one or more *parts*, unique on (owner, kind, month, part). Each
part's array is kept newest first (`$push` with `$sort`), so a page reads only
the head of each part.

A delivery is one bulk write of per-reader upserts into "the part of this
month with room that does not hold the entry", creating part 0 when nothing
matches. Such an upsert ends in E11000 when another worker created part 0 at
the same moment (its retry pushes into it, socialsite/bulk.py), when the
entry is already there, or when every part is full. The readers whose upsert
collides again are sorted out with one read of their parts: already there
means nothing to do; otherwise the entry goes into a new part after the last
(retried the same way if another worker rolls over at the same moment).

The guard sees only the part it would push into: once a month has rolled
over, the entry may sit in an older part. So a delivery that runs again (a
crash, the sweeper) first asks which readers hold it already (`holding`, one
read per batch) and leaves them out; pages keep the first of each id anyway.
"""

from dataclasses import dataclass
from typing import Any

from bson import ObjectId
from django.conf import settings
from pymongo import UpdateOne
from pymongo.collection import Collection

from socialsite.bulk import bulk_upsert
from socialsite.cursors import Cursor, older_expr, sort_key
from timelines.documents import MonthTimeline
from timelines.stores.base import (
    WITHOUT_COPIES,
    Chunk,
    EntryArrayStore,
    Lookups,
    month_of,
    newest_of_parts,
)

NEWEST_FIRST = {"ts": -1, "id": -1}
# Rollovers tried for one write before it fails: each is lost only to another
# worker rolling over the same month at the same moment.
ROLLOVER_ROUNDS = 3


class PlacementFailed(RuntimeError):
    """Entries that found no part with room after ROLLOVER_ROUNDS rollovers."""


def _collection() -> Collection:
    return MonthTimeline._get_collection()


@dataclass
class _Placement:
    """Entries (at most a part's worth) for one owner's month."""

    owner: str
    month: str
    entries: list[dict]


class MonthStore(EntryArrayStore):
    name = "month"
    document = MonthTimeline

    @property
    def cap(self) -> int:
        return settings.FEED_MONTH_CAP

    def _filter(self, kind: str, item: _Placement, part: int | None = None) -> dict:
        query: dict[str, Any] = {
            "owner": item.owner,
            "kind": kind,
            "month": item.month,
            # Room for them all: a full part does not match.
            f"entries.{self.cap - len(item.entries)}": {"$exists": False},
        }
        if len(item.entries) == 1:
            query["entries.id"] = {"$ne": item.entries[0]["id"]}
        if part is not None:
            query["part"] = part
        return query

    def _push(self, item: _Placement) -> dict:
        return {"$push": {"entries": {"$each": item.entries, "$sort": NEWEST_FIRST}}}

    def _place(self, kind: str, items: list[_Placement], entry_id: ObjectId | None = None) -> None:
        ops = [
            UpdateOne(
                self._filter(kind, item),
                {**self._push(item), "$setOnInsert": {"part": 0}},
                upsert=True,
            )
            for item in items
        ]
        left = [items[i] for i in bulk_upsert(_collection(), ops)]
        for _ in range(ROLLOVER_ROUNDS):
            if not left:
                return
            left = self._roll_over(kind, left, entry_id)
        if left:
            raise PlacementFailed(f"{kind}: no room for {len(left)} placement(s)")

    def _roll_over(
        self, kind: str, items: list[_Placement], entry_id: ObjectId | None
    ) -> list[_Placement]:
        """Put what collided twice into new parts, after one read of the
        parts of those months (and, for a delivery, whether one holds the
        entry already). Returns what collided again."""
        project: dict = {"_id": 0, "owner": 1, "month": 1, "part": 1}
        if entry_id is not None:
            project["held"] = {"$in": [entry_id, "$entries.id"]}
        rows = _collection().aggregate(
            [
                {
                    "$match": {
                        "owner": {"$in": sorted({i.owner for i in items})},
                        "kind": kind,
                        "month": {"$in": sorted({i.month for i in items})},
                    }
                },
                {"$project": project},
            ]
        )
        last: dict[tuple, int] = {}
        held: set[tuple] = set()
        for row in rows:
            key = (row["owner"], row["month"])
            last[key] = max(last.get(key, -1), row.get("part") or 0)
            if row.get("held"):
                held.add(key)
        ops, placed = [], []
        for item in items:
            key = (item.owner, item.month)
            if key in held:
                continue
            last[key] = last.get(key, -1) + 1
            ops.append(
                UpdateOne(self._filter(kind, item, part=last[key]), self._push(item), upsert=True)
            )
            placed.append(item)
        return [placed[i] for i in bulk_upsert(_collection(), ops)] if ops else []

    def reposts_from(self, after: Cursor) -> dict:
        # An entry lives in the parts of its own month: months before the
        # cursor's hold nothing at or above it.
        return {"month": {"$gte": month_of(after.ts)}}

    def holding(self, kind: str, owners: list[str], entry: dict) -> set[str]:
        # Every part of the entry's month, by the unique index's prefix.
        rows = _collection().find(
            {
                "owner": {"$in": sorted(owners)},
                "kind": kind,
                "month": month_of(entry["ts"]),
                "entries.id": entry["id"],
            },
            {"_id": 0, "owner": 1},
        )
        return {row["owner"] for row in rows.batch_size(len(owners) + 1)}

    def deliver(self, kind: str, owners: list[str], entry: dict) -> None:
        month = month_of(entry["ts"])
        items = [_Placement(owner, month, [entry]) for owner in owners]
        if items:
            self._place(kind, items, entry_id=entry["id"])

    def append(self, kind: str, owner: str, entries: list[dict]) -> None:
        by_month: dict[str, list[dict]] = {}
        for entry in entries:
            by_month.setdefault(month_of(entry["ts"]), []).append(entry)
        cap = self.cap
        items = [
            _Placement(owner, month, chunk[i : i + cap])
            for month, chunk in by_month.items()
            for i in range(0, len(chunk), cap)
        ]
        if items:
            self._place(kind, items)

    def filled(self, kind: str, owner: str, entries: list[dict]) -> list[dict]:
        # One at a time, an entry goes into its month's part with room, and
        # a full part rolls over to the next: part n holds the month's
        # entries n * cap to (n + 1) * cap - 1, oldest first, each part kept
        # newest first by `$push`'s `$sort`.
        by_month: dict[str, list[dict]] = {}
        for entry in entries:
            by_month.setdefault(month_of(entry["ts"]), []).append(entry)
        cap = self.cap
        return [
            {
                "owner": owner,
                "kind": kind,
                "month": month,
                "part": part,
                "entries": sorted(chunk[start : start + cap], key=sort_key, reverse=True),
            }
            for month, chunk in by_month.items()
            for part, start in enumerate(range(0, len(chunk), cap))
        ]

    def replace(self, kind: str, owner: str, entries: list[dict]) -> None:
        _collection().delete_many({"owner": owner, "kind": kind})
        self.append(kind, owner, entries)

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
        """One aggregate: the parts newest month first, each cut to its
        `limit + 1` newest entries older than the cursor (parts are sorted,
        so `$slice` keeps exactly those). A month is settled once all of its
        parts are read, since its parts interleave in time; months do not."""
        match: dict = {"owner": owner, "kind": kind}
        older: str | dict = "$entries"
        if before is not None:
            match["month"] = {"$lte": month_of(before.ts)}
            older = {"$filter": {"input": "$entries", "as": "e", "cond": older_expr(before)}}
        pipeline = [
            {"$match": match},
            {"$sort": {"month": -1, "part": -1}},
            {"$project": {"_id": 0, "month": 1, "page": {"$slice": [older, limit + 1]}}},
        ]
        rows = _collection().aggregate(pipeline if copies else [*pipeline, WITHOUT_COPIES])
        return newest_of_parts(
            rows,
            limit,
            entries_of=lambda row: row["page"],
            # A new month: every entry still to come is older than the found ones.
            settles=lambda previous, row, found: (
                previous is not None and row["month"] != previous["month"]
            ),
        )
