"""What moderation changes on posts: a removal (and its undoing), and an
author's suspension. Moderation decides; the feeds own the post documents,
and their delivery state, so the writes are here; the timelines follow
what these announce (socialsite/events.py).

A removed post is frozen and leaves every timeline, with its reposts (kept,
for a restore to deliver again), and its tags leave the trends (explore
listens); a suspended
author's posts are hidden from others and their queued deliveries end, until
unsuspending queues the recent ones again (docs/architecture.md, visibility rules).
"""

from bson import ObjectId

from feeds.documents import LIVE, Post
from feeds.services import reposts
from socialsite import events
from socialsite.clock import now

#: What the trends need of a removed or restored post (its tag uses).
TRENDS_FIELDS = {"by.id": 1, "ts": 1, "tags": 1, "circles": 1}
#: How many of an unsuspended author's newest posts are delivered again.
REDELIVER_RECENT = 100


def _requeued() -> dict:
    # A new delivery: it gets its own FEED_DELIVERY_MAX_ATTEMPTS tries.
    return {"delivery.state": "pending", "delivery.queued": now(), "delivery.attempts": 0}


def post_removal_set(*, post_id: ObjectId, by: str, reason: str) -> bool:
    """Remove the post; False when it was removed already."""
    posts = Post._get_collection()
    # The post as it was (None when removed already): its tags leave the trends.
    post = posts.find_one_and_update(
        {"_id": post_id, "removed": None},
        {"$set": {"removed": {"by": by, "ts": now(), "reason": reason}}},
        projection=TRENDS_FIELDS,
    )
    if post is None:
        return False
    # A delivery still queued would skip the post and leave it pending for
    # ever (a phantom fan-out backlog); restoring queues it again.
    posts.update_one(
        {"_id": post_id, "delivery.state": "pending"}, {"$set": {"delivery.state": "done"}}
    )
    events.entries_withdrawn.send(sender=Post, ids=[post_id])
    # Its reposts leave every timeline too; kept, for a restore to bring back.
    reposts.reposts_withdraw(post_id=post_id, delete=False)
    events.post_removed.send(sender=Post, post_id=post_id, post=post)
    return True


def post_removal_clear(*, post_id: ObjectId) -> bool:
    """Restore a removed post; False when it was not removed."""
    posts = Post._get_collection()
    post = posts.find_one_and_update(
        {"_id": post_id, "removed": {"$ne": None}},
        {"$unset": {"removed": ""}},
        projection=TRENDS_FIELDS,
    )
    if post is None:
        return False
    # Delivered again (idempotent: walls and news), unless the author is
    # suspended: then unsuspending delivers it.
    queued = posts.update_one(
        {"_id": post_id, "author_suspended": {"$ne": True}}, {"$set": _requeued()}
    )
    if queued.matched_count:
        events.post_delivery_due.send(sender=Post, post_id=post_id)
        reposts.reposts_redeliver(post_id=post_id)
    events.post_restored.send(sender=Post, post_id=post_id, post=post)
    return True


def posts_author_suspended(*, handle: str) -> None:
    """The author is suspended: their posts are hidden from others and leave
    every timeline."""
    posts = Post._get_collection()
    posts.update_many({"by.id": handle}, {"$set": {"author_suspended": True}})
    # Queued deliveries would skip these posts and stay pending for ever;
    # unsuspending queues the recent ones again.
    posts.update_many(
        {"by.id": handle, "delivery.state": "pending"}, {"$set": {"delivery.state": "done"}}
    )
    events.author_withdrawn.send(sender=Post, author=handle)


def posts_author_unsuspended(*, handle: str, limit: int = REDELIVER_RECENT) -> None:
    """The suspension ended: the posts show again, the newest delivered again."""
    posts = Post._get_collection()
    posts.update_many({"by.id": handle}, {"$unset": {"author_suspended": ""}})
    recent = posts.find({"by.id": handle, **LIVE}, {"_id": 1}).sort([("ts", -1)]).limit(limit)
    ids = [row["_id"] for row in recent]
    if ids:
        posts.update_many({"_id": {"$in": ids}}, {"$set": _requeued()})
    for post_id in ids:
        events.post_delivery_due.send(sender=Post, post_id=post_id)
