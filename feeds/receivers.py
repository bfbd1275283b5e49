"""Graph changes reach the feeds (issue: "Graph changes reach the feeds").

Each receiver only enqueues a task, so a follow or a block never waits for
timeline writes.
"""

from datetime import timedelta

from django.conf import settings
from django.dispatch import receiver
from django.tasks import TaskResultStatus

from feeds import tasks
from feeds.documents import Post
from feeds.services import reposts
from feeds.timelines import write_stores
from profiles.services import standing
from socialsite import events
from socialsite.clock import aware, now


@receiver(events.followed)
@receiver(events.unfollowed)
def _follow_changed(sender, follower, followee, **kwargs):
    tasks.resync.enqueue(follower, followee)


@receiver(events.blocked)
def _blocked(sender, blocker, blocked, **kwargs):
    # Both directions: the blocked author leaves the blocker's news, and the
    # blocker's circle posts leave the blocked user's news.
    tasks.resync.enqueue(blocker, blocked)
    tasks.resync.enqueue(blocked, blocker)
    # Neither may repost the other's posts (docs/privacy.md): past reposts end.
    reposts.reposts_across_block_delete(blocker=blocker, blocked=blocked)


@receiver(events.circle_members_changed)
def _circle_members_changed(sender, owner, members, **kwargs):
    for member in members:
        tasks.resync.enqueue(member, owner)


@receiver(events.circle_renamed)
def _circle_renamed(sender, owner, old, new, **kwargs):
    # Posts name their circles; they follow the rename so their audience stays.
    posts = Post._get_collection()
    posts.update_many({"by.id": owner, "circles": old}, {"$addToSet": {"circles": new}})
    posts.update_many({"by.id": owner, "circles": old}, {"$pull": {"circles": old}})
    # Embedded copies in timelines name the circles too, and visibility is
    # decided on them when a page is read: without this, members would lose
    # sight of the renamed circle's posts.
    tasks.refresh_circle_copies.enqueue(owner, new)


@receiver(events.user_created)
def _user_created(sender, handle, **kwargs):
    # Every stored model the site keeps current, shadows included.
    for store in write_stores():
        store.ensure_owner([handle])


@receiver(events.user_seen)
def _user_seen(sender, user, previous, **kwargs):
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
