"""The `comment_log` of the array stores (`embedded`, `buckets`): see
`comments.documents.CommentLogEntry` for why it exists.

Every query here is served by one of its indexes: `since` counts on
`posted`, `recent` walks (author, -posted) and stops after `n`, `forget`
deletes by the (discussion_id, slug) prefix.
"""

from contextlib import suppress
from datetime import datetime

from bson import ObjectId
from pymongo import DESCENDING
from pymongo.collection import Collection
from pymongo.errors import BulkWriteError, DuplicateKeyError

from comments.documents import CommentLogEntry


def _log() -> Collection:
    return CommentLogEntry._get_collection()


def _line(discussion_id: ObjectId, comment: dict) -> dict:
    return {
        "_id": comment["_id"],
        "discussion_id": discussion_id,
        "slug": comment["slug"],
        "posted": comment["posted"],
        "author": comment["author"]["id"],
        "mentions": comment.get("mentions") or [],
    }


def record(discussion_id: ObjectId, comment: dict) -> None:
    """Log a comment just stored (its stored form, from `slugs.new_comment`).

    Both array stores log here, under the comment's id: with shadow stores
    the second one finds the line there already, which is fine."""
    with suppress(DuplicateKeyError):
        _log().insert_one(_line(discussion_id, comment))


def record_many(discussion_id: ObjectId, comments: list[dict]) -> None:
    """Log a converted thread's comments (one write), skipping lines there already."""
    if not comments:
        return
    try:
        _log().insert_many([_line(discussion_id, c) for c in comments], ordered=False)
    except BulkWriteError as exc:
        if any(e.get("code") != 11000 for e in exc.details.get("writeErrors", [])):
            raise


def since(ts: datetime) -> int:
    return _log().count_documents({"posted": {"$gte": ts}})


def recent(handle: str, n: int | None) -> list[tuple[ObjectId, str]]:
    """(discussion_id, slug) of the author's newest `n` comments (None: all), newest first."""
    rows = (
        _log()
        .find({"author": handle}, {"discussion_id": 1, "slug": 1})
        .sort("posted", DESCENDING)
        .limit(n or 0)
    )
    return [(row["discussion_id"], row["slug"]) for row in rows]


def forget(discussion_id: ObjectId) -> None:
    _log().delete_many({"discussion_id": discussion_id})


def forget_many(discussion_ids: list[ObjectId]) -> None:
    _log().delete_many({"discussion_id": {"$in": list(discussion_ids)}})


def authored(handle: str, limit: int) -> list[tuple[ObjectId, str]]:
    """(discussion_id, slug) of up to `limit` of the author's comments (erasure)."""
    rows = _log().find({"author": handle}, {"discussion_id": 1, "slug": 1}).limit(limit)
    return [(row["discussion_id"], row["slug"]) for row in rows]


def anonymize(handle: str, keys: list[tuple[ObjectId, str]]) -> None:
    """The lines of erased comments keep counting in "comments since", naming no one."""
    for discussion_id, slug in keys:
        _log().update_one(
            {"discussion_id": discussion_id, "slug": slug, "author": handle},
            {"$set": {"author": ""}},
        )


def mentioning(handle: str, limit: int) -> list[tuple[ObjectId, str]]:
    rows = _log().find({"mentions": handle}, {"discussion_id": 1, "slug": 1}).limit(limit)
    return [(row["discussion_id"], row["slug"]) for row in rows]


def mentions_set(discussion_id: ObjectId, slug: str, mentions: list[str]) -> None:
    _log().update_one(
        {"discussion_id": discussion_id, "slug": slug}, {"$set": {"mentions": mentions}}
    )
