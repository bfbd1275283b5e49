"""Keyset cursors: a position in a list ordered newest first by (ts, _id),
as pages pass it in `?before=` (the feeds, notifications, moderation, ads).

Timestamps are stored to the millisecond (docs/storage-models.md), so a
cursor is milliseconds since the epoch and an ObjectId: pages never `skip`.
"""

import re
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from bson import ObjectId

from socialsite.clock import aware
from socialsite.ids import parse_object_id

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_MS = timedelta(milliseconds=1)
# The last millisecond a datetime can hold (year 9999): a cursor past it
# cannot come from a page we rendered, and would overflow (a cursor's
# time is milliseconds since the epoch).
MAX_MILLIS = (datetime(9999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC) - EPOCH) // ONE_MS
# ASCII digits only: str.isdigit() also accepts "²" or "٣", which int() then
# reads or refuses in ways no cursor of ours ever needs.
CURSOR_RE = re.compile(r"([0-9]{1,15})_([0-9a-fA-F]{24})")


class Cursor(NamedTuple):
    ts: datetime
    id: ObjectId

    def encode(self) -> str:
        # Integer arithmetic: exact, whatever float rounding would make of it.
        return f"{(aware(self.ts) - EPOCH) // ONE_MS}_{self.id}"

    @classmethod
    def decode(cls, value: object) -> "Cursor | None":
        """A cursor from `?before=`, or None when it is malformed or out of range."""
        match = CURSOR_RE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            return None
        millis = int(match.group(1))
        post_id = parse_object_id(match.group(2))
        if post_id is None or millis > MAX_MILLIS:
            return None
        return cls(EPOCH + millis * ONE_MS, post_id)

    @classmethod
    def of(cls, entry: dict) -> "Cursor":
        return cls(aware(entry["ts"]), entry["id"])


def sort_key(entry: dict) -> tuple[datetime, ObjectId]:
    return (aware(entry["ts"]), entry["id"])


def older_than(entry: dict, cursor: Cursor | None) -> bool:
    return cursor is None or sort_key(entry) < (cursor.ts, cursor.id)


def older_expr(cursor: Cursor) -> dict:
    """`older_than` as an aggregation condition on `$$e` (an entry in `$filter`)."""
    return {
        "$or": [
            {"$lt": ["$$e.ts", cursor.ts]},
            {"$and": [{"$eq": ["$$e.ts", cursor.ts]}, {"$lt": ["$$e.id", cursor.id]}]},
        ]
    }
