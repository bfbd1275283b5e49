"""Reads of posts that the apps above the feeds need (comments,
moderation, notifications): they read posts through these, never through
the feeds' collections (docs/architecture.md). One query each, as the
callers' round-trip budgets count them.
"""

from collections.abc import Iterable
from datetime import datetime

from bson import ObjectId

from feeds.documents import CARD_FIELDS, LIVE, PUBLIC, Post, PostRevision

_posts = Post._get_collection

#: What a delivery still to finish looks like (timelines/delivery/fanout.py).
UNFINISHED = {"delivery.state": {"$in": ["pending", "delivering"]}}


def post_read(post_id: ObjectId, fields: dict) -> dict | None:
    """One post, with `fields` (a projection), or None."""
    return _posts().find_one({"_id": post_id}, fields)


def posts_read(post_ids: Iterable[ObjectId], fields: dict) -> list[dict]:
    """The posts among `post_ids` (one `$in`), with `fields`."""
    return list(_posts().find({"_id": {"$in": sorted(post_ids)}}, fields))


def posts_by_author(handle: str, limit: int) -> list[dict]:
    """An author's newest posts as cards, whatever their state."""
    return list(_posts().find({"by.id": handle}, CARD_FIELDS).sort("ts", -1).limit(limit))


def recent_public_posts(
    limit: int, *, fields: dict, on_walls: bool = True, since: datetime | None = None
) -> list[dict]:
    """The newest live public posts (demo data picks among them); without
    `on_walls`, only those posted on their author's own wall; with `since`,
    none older. A walk of the `ts` index, read in one batch (one round trip)."""
    query: dict = {"circles": PUBLIC, **LIVE}
    if not on_walls:
        query["to"] = None
    if since is not None:
        query["ts"] = {"$gte": since}
    return list(_posts().find(query, fields, batch_size=limit).sort("ts", -1).limit(limit))


def posts_showing_comments_by(handle: str) -> list[ObjectId]:
    """The posts whose `comments_shown` holds a comment by `handle`."""
    rows = _posts().find({"comments_shown.by.id": handle}, {"_id": 1})
    return [row["_id"] for row in rows]


def post_ids_with_comments(
    after: ObjectId | None, limit: int
) -> tuple[list[ObjectId], ObjectId | None]:
    """The posts with a discussion (`comments_count`) among the next `limit`
    posts after `after` in `_id` order, and the last post read (None: no post
    after `after`). A walk of the `_id` index that reads `limit` posts at most
    and is read whole at once: `comments_count` has no index, and a cursor
    left open between batches is killed by the server (docs/performance.md)."""
    query = {} if after is None else {"_id": {"$gt": after}}
    rows = list(_posts().find(query, {"comments_count": 1}).sort("_id", 1).limit(limit))
    with_comments = [row["_id"] for row in rows if row.get("comments_count")]
    return with_comments, rows[-1]["_id"] if rows else None


def posts_counts(day: datetime, week: datetime) -> dict:
    """The moderation dashboard's figures: posts written since `day`, since
    `week` and in all, and the deliveries not yet finished (how many, and
    when the oldest was queued)."""
    posts = _posts()
    oldest = posts.find(UNFINISHED, {"delivery.queued": 1}).sort("delivery.queued", 1).limit(1)
    oldest = next(iter(oldest), None)
    return {
        "day": posts.count_documents({"ts": {"$gte": day}}),
        "week": posts.count_documents({"ts": {"$gte": week}}),
        "all": posts.estimated_document_count(),
        "backlog": posts.count_documents(UNFINISHED),
        "oldest_pending": oldest["delivery"]["queued"] if oldest else None,
    }


def failed_deliveries(limit: int) -> tuple[int, list[dict]]:
    """Posts whose fan-out was given up (timelines/delivery/fanout.py `give_up`):
    how many, and the `limit` latest (`by.id`, `delivery`). Both are bounded
    by the `delivery_state` index."""
    posts = _posts()
    failed = {"delivery.state": "failed"}
    rows = posts.find(failed, {"by.id": 1, "delivery": 1}).sort("delivery.queued", -1)
    return posts.count_documents(failed), list(rows.limit(limit))


def revisions_of(post_id: ObjectId, limit: int = 100) -> list[dict]:
    """An edited post's earlier versions, newest first (the history page)."""
    rows = PostRevision._get_collection().find({"post": post_id})
    rows = rows.sort([("until", -1), ("_id", -1)])  # same millisecond: the later write
    return list(rows.limit(limit))


def counts_of(post_id: ObjectId) -> dict | None:
    """The post's likes and reposts counts, their version (`counts_v`) and the
    version its embedded copies were last given (`counts_copied`)."""
    fields = {"likes_count": 1, "reposts_count": 1, "counts_v": 1, "counts_copied": 1}
    return Post._get_collection().find_one({"_id": post_id}, fields)


def posts_estimated() -> int:
    """About how many posts there are (the collection's metadata, no scan):
    the client API's instance figures."""
    return _posts().estimated_document_count()


def public_posts_by(handle: str, *, before: tuple | None, limit: int) -> list[dict]:
    """An author's live public posts on their own wall, newest first, from
    before (ts, _id): the pages of their ActivityPub outbox
    (docs/federation.md). A keyset walk of the `by_ts` index."""
    query: dict = {"by.id": handle, "circles": PUBLIC, "to": None, **LIVE}
    if before is not None:
        ts, oid = before
        query["$or"] = [{"ts": {"$lt": ts}}, {"ts": ts, "_id": {"$lt": oid}}]
    rows = _posts().find(query, CARD_FIELDS, batch_size=limit)
    return list(rows.sort([("ts", -1), ("_id", -1)]).limit(limit))


def public_posts_count(handle: str) -> int:
    """How many live public posts the author has on their own wall."""
    return _posts().count_documents({"by.id": handle, "circles": PUBLIC, "to": None, **LIVE})
