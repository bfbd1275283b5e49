"""Opaque page cursors.

Three kinds, each tied to how a store pages:
- "t": a full slug, the keyset of the threaded order (documents, embedded);
- "c": (posted, _id), the keyset of the chronological order (documents);
- "o": a position in the chronological sequence, oldest first (embedded's
  `$slice` and buckets' skip/limit; appends never move a position);
- "r": (rank, _id), the keyset of the `best` and `top` orders (documents).

A cursor is urlsafe base64 of "<kind>|<value>", so a view passes it through
`?after=` / `?before=` untouched. Decoding anything else raises InvalidCursor.
"""

import base64
import binascii
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bson import ObjectId

from comments.stores.base import InvalidCursor
from socialsite.ids import parse_object_id

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_LENGTH = 4000
# ASCII digits only: str.isdigit() also accepts "²" or "٣", which int() then
# refuses (or reads as another number), and an unbounded millisecond count
# overflows datetime. Both would be a 500, not a bad cursor.
_MILLIS = re.compile(r"-?[0-9]{1,16}")
# A position fits the int32 that MongoDB's `$slice` takes, with room for a page.
_POSITION = re.compile(r"[0-9]{1,9}")


def _encode(kind: str, value: str) -> str:
    return base64.urlsafe_b64encode(f"{kind}|{value}".encode()).decode().rstrip("=")


def _decode(kind: str, cursor: object) -> str:
    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_LENGTH:
        raise InvalidCursor("malformed cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise InvalidCursor("malformed cursor") from exc
    got, sep, value = raw.partition("|")
    if not sep or got != kind:
        raise InvalidCursor("this cursor belongs to another order or store")
    return value


def threaded(full_slug: str) -> str:
    return _encode("t", full_slug)


def decode_threaded(cursor: object) -> str:
    value = _decode("t", cursor)
    if not value:
        raise InvalidCursor("empty cursor")
    return value


def chrono(posted: datetime, comment_id: str) -> str:
    millis = (posted - _EPOCH) // timedelta(milliseconds=1)
    return _encode("c", f"{millis}|{comment_id}")


def decode_chrono(cursor: object) -> tuple[datetime, ObjectId]:
    millis, _, comment_id = _decode("c", cursor).partition("|")
    oid = parse_object_id(comment_id)
    if oid is None or not _MILLIS.fullmatch(millis):
        raise InvalidCursor("malformed cursor")
    try:
        return _EPOCH + timedelta(milliseconds=int(millis)), oid
    except OverflowError as exc:  # before year 1 or after 9999
        raise InvalidCursor("cursor time out of range") from exc


def ranked(rank: float | int, comment_id: str) -> str:
    # repr() of a float reads back as the same float: the keyset's bound
    # equals the stored `best` exactly.
    return _encode("r", f"{rank!r}|{comment_id}")


#: A rank as `ranked` writes it: an int (a score) or a float's repr.
_RANK = re.compile(r"-?[0-9]{1,12}(\.[0-9]{1,20})?(e-?[0-9]{1,3})?")


def decode_ranked(cursor: object) -> tuple[float | int, ObjectId]:
    rank, _, comment_id = _decode("r", cursor).partition("|")
    oid = parse_object_id(comment_id)
    if oid is None or not _RANK.fullmatch(rank):
        raise InvalidCursor("malformed cursor")
    return (float(rank) if any(c in rank for c in ".e") else int(rank)), oid


def offset(position: int) -> str:
    return _encode("o", str(position))


def decode_offset(cursor: object) -> int:
    value = _decode("o", cursor)
    if not _POSITION.fullmatch(value):
        raise InvalidCursor("malformed cursor")
    return int(value)


def decode_optional[T](
    decode: Callable[[object], T], after: str | None, before: str | None
) -> tuple[T | None, T | None]:
    """Decode `after`/`before` (at most one may be given)."""
    if after is not None and before is not None:
        raise InvalidCursor("pass after or before, not both")
    return (
        decode(after) if after is not None else None,
        decode(before) if before is not None else None,
    )
