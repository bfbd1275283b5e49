"""What reaches the timelines: graph changes (follows, blocks, circles, a
returning reader) and what posts announce (socialsite/events.py: a delivery
due, entries withdrawn, a post's copies to refresh).

Slow work is only enqueued (a follow or a block never waits for timeline
writes); taking entries out is done at once, so that a deleted or removed
post is gone from every page the moment its request answers.
"""

from datetime import timedelta
from typing import Any

from bson import ObjectId
from django.conf import settings
from django.dispatch import receiver
from django.tasks import TaskResultStatus

from profiles.documents import User
from profiles.services import standing
from socialsite import events
from socialsite.clock import aware, now
from timelines import tasks
from timelines.delivery import retry, upkeep
from timelines.stores import stored_models, stores_copies, write_stores

# --- the follower graph ------------------------------------------------------


@receiver(events.followed)
@receiver(events.unfollowed)
def _follow_changed(sender: object, follower: str, followee: str, **kwargs: Any) -> None:
    tasks.resync.enqueue(follower, followee)


@receiver(events.blocked)
def _blocked(sender: object, blocker: str, blocked: str, **kwargs: Any) -> None:
    # Both directions: the blocked author leaves the blocker's news, and the
    # blocker's circle posts leave the blocked user's news.
    tasks.resync.enqueue(blocker, blocked)
    tasks.resync.enqueue(blocked, blocker)


@receiver(events.circle_members_changed)
def _circle_members_changed(sender: object, owner: str, members: list[str], **kwargs: Any) -> None:
    for member in members:
        tasks.resync.enqueue(member, owner)


@receiver(events.post_circles_renamed)
def _post_circles_renamed(sender: object, owner: str, circle: str, **kwargs: Any) -> None:
    # Embedded copies in timelines name the circles too, and visibility is
    # decided on them when a page is read: without this, members would lose
    # sight of the renamed circle's posts.
    tasks.refresh_circle_copies.enqueue(owner, circle)


@receiver(events.user_created)
def _user_created(sender: object, handle: str, **kwargs: Any) -> None:
    # Every stored model the site keeps current, shadows included.
    for store in write_stores():
        store.ensure_owner([handle])


@receiver(events.user_seen)
def _user_seen(sender: object, user: User, previous: Any, **kwargs: Any) -> None:
    """A reader back after FEED_ACTIVE_DAYS got no fan-out meanwhile: rebuild."""
    previous = aware(previous)
    if previous is None or now() - previous < timedelta(days=settings.FEED_ACTIVE_DAYS):
        return
    if not write_stores():
        return
    started = now()
    standing.feed_rebuild_set(handle=user.handle, started=started)
    user.feed_rebuild = started
    result = tasks.rebuild.enqueue(user.handle, "news")
    if result.status == TaskResultStatus.SUCCESSFUL:  # the immediate backend ran it
        user.feed_rebuild = None


# --- posts (feeds) -------------------------------------------------------------


@receiver(events.post_delivery_due)
def _post_delivery_due(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    tasks.deliver_post.enqueue(str(post_id))


@receiver(events.repost_delivery_due)
def _repost_delivery_due(sender: object, post_id: ObjectId, reposter: str, **kwargs: Any) -> None:
    tasks.deliver_repost.enqueue(str(post_id), reposter)


@receiver(events.entries_withdrawn)
def _entries_withdrawn(sender: object, ids: list[ObjectId], **kwargs: Any) -> None:
    if len(ids) == 1:
        upkeep.remove_everywhere(ids[0])
    elif ids:
        upkeep.remove_entries_everywhere(ids)


@receiver(events.author_withdrawn)
def _author_withdrawn(sender: object, author: str, **kwargs: Any) -> None:
    upkeep.remove_author_everywhere(author)


@receiver(events.post_changed)
def _post_changed(
    sender: object, post_id: ObjectId, fields: list[str], at_once: bool, **kwargs: Any
) -> None:
    if at_once:
        upkeep.refresh_copies(post_id, fields)
    elif stores_copies():
        tasks.copies_refresh_due(post_id, fields)


@receiver(events.post_counts_changed)
def _post_counts_changed(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    # Only copies carry counts: link entries read them from the post.
    if stores_copies():
        tasks.copies_refresh_due(post_id, list(upkeep.COUNTS))


@receiver(events.comments_shown_truncated)
def _comments_shown_truncated(sender: object, limit: int, **kwargs: Any) -> dict[str, int]:
    return {store.collection().name: store.comments_shown_trim(limit) for store in stored_models()}


@receiver(events.pending_swept)
def _pending_swept(sender: object, older_than_seconds: int | None, **kwargs: Any) -> str:
    delivered = retry.redeliver_pending(older_than_seconds=older_than_seconds)
    return f"{delivered} post(s) re-enqueued for delivery."
