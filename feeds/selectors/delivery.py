"""Reads of the delivery state posts and reposts carry (feeds/services/delivery.py
writes it): what the fan-out and its sweeper ask of the records."""

from datetime import datetime

from mongoengine import Document

from feeds.documents import CARD_FIELDS, LIVE, PUBLIC, Post, PostRepost

#: The documents of each kind of record: `post` keyed by `_id`, `post_repost`
#: by `post` + `by` (its shard key).
RECORDS: dict[str, type[Document]] = {"post": Post, "repost": PostRepost}
PENDING, DELIVERING, DONE, FAILED = "pending", "delivering", "done", "failed"
UNFINISHED = [PENDING, DELIVERING]


def delivery_attempts(*, record: str, key: dict) -> int:
    row = RECORDS[record]._get_collection().find_one(key, {"delivery.attempts": 1})
    return ((row or {}).get("delivery") or {}).get("attempts") or 0


def deliveries_stuck(*, record: str, cutoff: datetime) -> list[dict]:
    """Deliveries queued before `cutoff` and never picked up (pending), or
    started before it and never finished (the worker died)."""
    rows = (
        RECORDS[record]
        ._get_collection()
        .find(
            {
                "$or": [
                    {"delivery.state": PENDING, "delivery.queued": {"$lt": cutoff}},
                    {"delivery.state": DELIVERING, "delivery.started": {"$lt": cutoff}},
                ]
            },
            {"_id": 1, "post": 1, "by": 1, "delivery.attempts": 1},
        )
    )
    return list(rows)


def pending_posts() -> tuple[list, list[dict]]:
    """The ids of the posts, and the reposts, whose delivery is pending."""
    rows = Post._get_collection().find({"delivery.state": PENDING}, {"_id": 1})
    reposts = list(PostRepost._get_collection().find({"delivery.state": PENDING}))
    return [row["_id"] for row in rows], reposts


def posts_oldest_first(post_ids: list) -> list[dict]:
    """The posts as cards read them, oldest first (the demo's bulk fan-out)."""
    rows = Post._get_collection().find({"_id": {"$in": post_ids}}, CARD_FIELDS)
    return list(rows.sort("ts", 1))


def post_live(post_id: object) -> bool:
    return bool(Post._get_collection().count_documents({"_id": post_id, **LIVE}, limit=1))


def repost_kept(key: dict, repost_id: object) -> bool:
    return bool(PostRepost._get_collection().count_documents({**key, "_id": repost_id}, limit=1))


def public_original_author(post_id: object) -> str | None:
    """The author of a live public post (what a repost may show), or None."""
    row = Post._get_collection().find_one(
        {"_id": post_id, "circles": PUBLIC, **LIVE}, {"by.id": 1}
    )
    return None if row is None else row["by"]["id"]


def delivery_counts() -> dict[str, int]:
    """How many posts are in each delivery state (one `$group`)."""
    rows = Post._get_collection().aggregate(
        [{"$group": {"_id": "$delivery.state", "n": {"$sum": 1}}}]
    )
    counts = dict.fromkeys((PENDING, DELIVERING, DONE, FAILED), 0)
    for row in rows:
        counts[row["_id"] or "none"] = row["n"]
    return counts
