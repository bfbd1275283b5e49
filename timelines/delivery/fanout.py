"""Fan-out on write: one delivery state machine for posts and for reposts.

The post (or the `post_repost`) is written first and is the system of
record; delivery runs after, in a task, and is idempotent (docs/architecture.md):
every entry has its own id, and a second attempt asks the stores whose guard
cannot see a whole timeline (`holding`) which readers have it already. Its
state is the record's `delivery` sub-document, the same for both kinds:

    pending --claim--> delivering --finish--> done
       ^                   |
       +------ sweep ------+        (stuck past FEED_PENDING_SECONDS)
    pending | delivering --give up--> failed   (FEED_DELIVERY_MAX_ATTEMPTS)

A claim counts an attempt. A write that fails on the last attempt gives up at
once; an earlier one leaves the delivery `delivering` for the sweeper
(`redeliver_pending`, timelines/delivery/retry.py), which queues it again or,
out of attempts, gives up.
What differs between a post and a repost (where the record lives, its key,
its audience, the entry) is a `Kind`; the machine is the same.
"""

import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable

from bson import ObjectId
from bson.errors import InvalidDocument
from django.conf import settings
from pymongo.errors import PyMongoError

from feeds.documents import CARD_FIELDS, LIVE, PUBLIC
from feeds.selectors import delivery as records
from feeds.selectors.delivery import DELIVERING, PENDING, UNFINISHED
from feeds.services import delivery as record_writes
from socialsite import events
from timelines.delivery import pulled
from timelines.delivery.audience import active_readers, audience, deliver_to
from timelines.selectors.entries import entry_for, repost_entry
from timelines.stores import write_stores
from timelines.stores.base import TimelineStore
from timelines.stores.month import PlacementFailed

log = logging.getLogger(__name__)

__all__ = ["DELIVERING", "PENDING", "UNFINISHED"]

# What a post's claim reads: the post as a card, and its attempts (a second
# one makes `deliver_to` ask which readers hold the entry already).
CLAIM_FIELDS = {name: 0 for name in CARD_FIELDS if name != "delivery"}


class Kind(ABC):
    """What one kind of delivery brings to the machine."""

    record: str  # whose documents carry the `delivery` state (feeds/services/delivery.py)
    projection: dict | None = None  # what a claim reads

    @abstractmethod
    def key(self, row: dict) -> dict:
        """The filter of one record: its whole shard key."""

    @abstractmethod
    def label(self, key: dict) -> str:
        """How the log names one record."""

    @abstractmethod
    def write(self, record: dict, stores: list[TimelineStore], *, again: bool) -> int:
        """The entries into every store; returns the readers reached."""


class PostDelivery(Kind):
    """A post: to its author's wall (and the wall it was posted on), and to
    the news of its audience (followers, or circle members)."""

    record = "post"
    projection = CLAIM_FIELDS

    def key(self, row: dict) -> dict:
        return {"_id": row["_id"]}

    def label(self, key: dict) -> str:
        return f"post {key['_id']}"

    def write(self, post: dict, stores: list[TimelineStore], *, again: bool) -> int:
        entry = entry_for(post)
        walls = sorted({post["by"]["id"], post.get("to")} - {None})
        deliver_to(stores, "wall", walls, entry, again=again)
        readers = heard = 0
        author, public = post["by"]["id"], PUBLIC in post["circles"]
        batches: Iterable[list[str]] = audience(post)
        pulling = public and pulled.pulls(author)
        if pulling:
            # A pulled author's public post: their followers' news pages read
            # it when shown (timelines/selectors/pulled.py); only the author's own
            # news holds it.
            batches = [[author]]
        for followers in batches:
            heard += len(followers)
            batch = active_readers(followers, author)
            if batch:
                deliver_to(stores, "news", batch, entry, again=again)
                events.news_delivered.send(
                    sender=Kind, post_id=post["_id"], author=author, readers=batch, repost_by=None
                )
            readers += len(batch)
        if pulling:
            events.news_pulled.send(sender=Kind, post_id=post["_id"], author=author)
        if public:
            pulled.counted(author, heard - 1)  # the author joined the first batch
        # A delete or a moderator's removal that ran while we were writing
        # removed the entries before ours landed: look once more, after them.
        if not records.post_live(post["_id"]):
            for store in stores:
                store.remove_post(post["_id"])
        return readers


class RepostDelivery(Kind):
    """A repost: to the reposter's wall and their followers' news, as a
    public post of theirs would go, but not to readers who blocked the
    original's author. A removed original's reposts wait: restoring it
    delivers them again (feeds/services/reposts.py `reposts_redeliver`)."""

    record = "repost"

    def key(self, row: dict) -> dict:
        return {"post": row["post"], "by": row["by"]}

    def label(self, key: dict) -> str:
        return f"repost of {key['post']} by {key['by']}"

    def write(self, repost: dict, stores: list[TimelineStore], *, again: bool) -> int:
        key = self.key(repost)
        original_author = records.public_original_author(key["post"])
        if original_author is None:
            return 0
        entry = repost_entry(repost, [PUBLIC])
        deliver_to(stores, "wall", [key["by"]], entry, again=again)
        readers = 0
        for followers in audience({"by": {"id": key["by"]}, "circles": [PUBLIC]}):
            batch = active_readers(followers, key["by"], also=original_author)
            if batch:
                deliver_to(stores, "news", batch, entry, again=again)
                events.news_delivered.send(
                    sender=Kind,
                    post_id=key["post"],
                    author=original_author,
                    readers=batch,
                    repost_by=key["by"],
                )
            readers += len(batch)
        # An undo, a delete or a removal that ran while we were writing took
        # the entries out before ours landed: look once more, after them.
        if not records.repost_kept(key, repost["_id"]) or not records.post_live(key["post"]):
            for store in stores:
                store.remove_post(repost["_id"])
        return readers


POSTS, REPOSTS = PostDelivery(), RepostDelivery()
KINDS = (POSTS, REPOSTS)


def attempted_before(doc: dict) -> bool:
    """Whether a claimed delivery ran before this attempt."""
    return ((doc.get("delivery") or {}).get("attempts") or 0) > 1


def deliver_post(post_id: ObjectId) -> int:
    """Deliver one post; returns the readers reached."""
    return _deliver(POSTS, {"_id": post_id}, LIVE)


def deliver_repost(post_id: ObjectId, reposter: str) -> int:
    """Deliver one repost, claimed and finished on its `post_repost`
    document; returns the readers reached."""
    return _deliver(REPOSTS, {"post": post_id, "by": reposter}, {})


def _deliver(kind: Kind, key: dict, claimable: dict) -> int:
    """Run one attempt, counting it: a write that fails on the last of
    FEED_DELIVERY_MAX_ATTEMPTS gives up (`give_up`); an earlier one is left
    `delivering` for `redeliver_pending` to retry."""
    try:
        return _attempt(kind, key, claimable)
    except (PyMongoError, InvalidDocument, PlacementFailed) as exc:
        # E.g. a document past 16 MB (server errors 17419, 10334, or the
        # driver's DocumentTooLarge): retrying as is fails the same way forever.
        attempts = records.delivery_attempts(record=kind.record, key=key)
        if attempts < settings.FEED_DELIVERY_MAX_ATTEMPTS:
            raise
        give_up(kind, key, attempts, f"{type(exc).__name__}: {exc}")
        return 0


def _attempt(kind: Kind, key: dict, claimable: dict) -> int:
    """Safe to run again at any point: every write is idempotent, and a
    delivery that is done already (or whose record is gone) is left alone."""
    record = record_writes.delivery_claim(
        record=kind.record, key=key, claimable=claimable, projection=kind.projection
    )
    if record is None:
        return 0
    stores = write_stores()
    readers = kind.write(record, stores, again=attempted_before(record)) if stores else 0
    record_writes.delivery_finish(
        record=kind.record, key={**key, "_id": record["_id"]}, readers=readers
    )
    return readers


def give_up(kind: Kind, key: dict, attempts: int, error: str) -> bool:
    """Stop retrying a delivery, loudly: state "failed", the error kept on the
    record (the moderation dashboard shows failed posts), an ERROR log line.
    Returns whether this call marked it (one that finished meanwhile is left
    alone)."""
    marked = record_writes.delivery_give_up(record=kind.record, key=key, error=error[:500])
    if marked:
        log.error(
            "feed delivery failed: %s given up after %d attempt(s): %s",
            kind.label(key),
            attempts,
            error[:500],
        )
    return marked
