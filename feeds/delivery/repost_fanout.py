"""Fan-out of reposts: `fanout.deliver_post`'s path for a `post_repost`.

The same audience batches (the reposter's followers, FEED_FANOUT_BATCH at a
time, one keyset read, one active-reader filter and one write per batch),
the same stores (`write_stores`, the configured model and its shadows, one
write each per batch, through `fanout.deliver_to`; idempotent: the entry has
the repost's own id, and a second attempt leaves out who holds it already),
the same pending/delivering/done states, swept up by `redeliver_pending`
(feeds/services/reposts.py `reposts_redeliver_pending`) and given up after
FEED_DELIVERY_MAX_ATTEMPTS.
"""

import logging

from bson.errors import InvalidDocument
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.errors import PyMongoError

from feeds.delivery.fanout import active_readers, attempted_before, audience, deliver_to
from feeds.documents import LIVE, PUBLIC, Post, PostRepost
from feeds.selectors.entries import repost_entry
from feeds.timelines import write_stores
from feeds.timelines.month import PlacementFailed
from socialsite.clock import now

log = logging.getLogger(__name__)


def deliver_repost(post_id, reposter: str) -> int:
    """Deliver one repost as `deliver_post` delivers a post: to the
    reposter's wall and their followers' news, in the same batches, claimed
    and finished on its `post_repost` document (the sweeper's `delivery`),
    idempotent (its entry has its own id), given up after
    FEED_DELIVERY_MAX_ATTEMPTS. Returns the readers reached."""
    key = {"post": post_id, "by": reposter}  # the whole shard key
    reposts = PostRepost._get_collection()
    try:
        return _deliver_repost(key)
    except (PyMongoError, InvalidDocument, PlacementFailed) as exc:
        row = reposts.find_one(key, {"delivery.attempts": 1})
        attempts = ((row or {}).get("delivery") or {}).get("attempts") or 0
        if attempts < settings.FEED_DELIVERY_MAX_ATTEMPTS:
            raise
        reposts.update_one(
            {**key, "delivery.state": {"$in": ["pending", "delivering"]}},
            {"$set": {"delivery.state": "failed", "delivery.failed": now()}},
        )
        log.error("repost delivery failed: %s by %s: %s", post_id, reposter, exc)
        return 0


def _deliver_repost(key: dict) -> int:
    reposts, posts = PostRepost._get_collection(), Post._get_collection()
    repost = reposts.find_one_and_update(
        {**key, "delivery.state": {"$in": ["pending", "delivering"]}},
        {
            "$set": {"delivery.state": "delivering", "delivery.started": now()},
            "$inc": {"delivery.attempts": 1},
        },
        return_document=ReturnDocument.AFTER,
    )
    if repost is None:
        return 0
    # A removed original's reposts wait: restoring it delivers them again.
    original = posts.find_one({"_id": key["post"], "circles": PUBLIC, **LIVE}, {"by.id": 1})
    stores = write_stores()
    again = attempted_before(repost)
    readers = 0
    if original is not None and stores:
        entry = repost_entry(repost, [PUBLIC])
        deliver_to(stores, "wall", [key["by"]], entry, again=again)
        for followers in audience({"by": {"id": key["by"]}, "circles": [PUBLIC]}):
            batch = active_readers(followers, key["by"], also=original["by"]["id"])
            if batch:
                deliver_to(stores, "news", batch, entry, again=again)
            readers += len(batch)
        # An undo, a delete or a removal that ran while we were writing took
        # the entries out before ours landed: look once more, after them.
        undone = reposts.count_documents({**key, "_id": repost["_id"]}, limit=1) == 0
        if undone or posts.count_documents({"_id": key["post"], **LIVE}, limit=1) == 0:
            for store in stores:
                store.remove_post(repost["_id"])
    reposts.update_one(
        {**key, "_id": repost["_id"]},
        {
            "$set": {
                "delivery.state": "done",
                "delivery.finished": now(),
                "delivery.readers": readers,
            }
        },
    )
    return readers
