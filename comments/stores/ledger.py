"""The `comment_log` of the array stores (`embedded`, `buckets`): see
`comments.documents.CommentLogEntry` for why it exists.

Every query here is served by one of its indexes: `since` counts on
`posted`, `recent` walks (author, -posted) and stops after `n`, `forget`
deletes by the (discussion_id, slug) prefix.
"""

from datetime import datetime

from bson import ObjectId
from pymongo import DESCENDING

from comments.documents import CommentLogEntry


def _log():
    return CommentLogEntry._get_collection()


def record(discussion_id: ObjectId, comment: dict) -> None:
    """Log a comment just stored (its stored form, from `slugs.new_comment`)."""
    _log().insert_one(
        {
            "_id": comment["_id"],
            "discussion_id": discussion_id,
            "slug": comment["slug"],
            "posted": comment["posted"],
            "author": comment["author"]["id"],
        }
    )


def since(ts: datetime) -> int:
    return _log().count_documents({"posted": {"$gte": ts}})


def recent(handle: str, n: int) -> list[tuple[ObjectId, str]]:
    """(discussion_id, slug) of the author's newest `n` comments, newest first."""
    rows = (
        _log()
        .find({"author": handle}, {"discussion_id": 1, "slug": 1})
        .sort("posted", DESCENDING)
        .limit(n)
    )
    return [(row["discussion_id"], row["slug"]) for row in rows]


def forget(discussion_id: ObjectId) -> None:
    _log().delete_many({"discussion_id": discussion_id})
