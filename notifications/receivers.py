"""What the apps below announce (socialsite/events.py) reaches notifications:
a follow is news to the person followed; after a block or a mute (and an
unmute), or a keyword filter added or deleted, the unread count follows what
the page will now list; likes,
reposts, posts and comments tell the people they concern
(notifications/events.py); a deleted post or comment takes its
notifications with it, and a moderator's removal or restore of a post
recounts everyone holding an item about it."""

from typing import Any

from bson import ObjectId
from django.dispatch import receiver

from notifications import tasks
from notifications.events import named_in
from notifications.services import (
    notifications_forget_comment,
    notifications_forget_post,
    notifications_forget_posts,
    notifications_recount,
    notifications_recount_about,
    notify_removed,
)
from socialsite import events


@receiver(events.followed, dispatch_uid="notifications.followed")
def _followed(sender: object, follower: str, followee: str, **kwargs: Any) -> None:
    tasks.tell.enqueue(followee, "follow", follower)


@receiver(events.blocked, dispatch_uid="notifications.blocked")
def _blocked(sender: object, blocker: str, blocked: str, **kwargs: Any) -> None:
    notifications_recount(owner=blocker)


@receiver(events.muted, dispatch_uid="notifications.muted")
def _muted(sender: object, muter: str, muted: str, **kwargs: Any) -> None:
    notifications_recount(owner=muter)


@receiver(events.unmuted, dispatch_uid="notifications.unmuted")
def _unmuted(sender: object, muter: str, muted: str, **kwargs: Any) -> None:
    notifications_recount(owner=muter)


@receiver(events.filters_changed, dispatch_uid="notifications.filters_changed")
def _filters_changed(sender: object, owner: str, **kwargs: Any) -> None:
    # A keyword filter hides (or stops hiding) items: the count follows the page.
    notifications_recount(owner=owner)


@receiver(events.post_created, dispatch_uid="notifications.post_created")
# `post` is the feeds' Post, a MongoEngine document: its fields are untyped,
# so naming the class (an import of the feeds' documents) would check nothing.
def _post_created(sender: object, post: Any, **kwargs: Any) -> None:
    named = named_in((post.detail or {}).get("text"))
    # A post on one's own wall that names nobody else concerns nobody: no
    # task (most posts: a task each was a third of the CPU of seeding the
    # demo's posts, docs/performance.md#growth). `events.post_created` skips the
    # author too.
    if post.to or set(named) - {post.by.id}:
        tasks.tell_post_created.enqueue(str(post.id), post.by.id, post.to, *named)


@receiver(events.post_deleted, dispatch_uid="notifications.post_deleted")
def _post_deleted(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    notifications_forget_post(post_id=post_id)


@receiver(events.posts_deleted, dispatch_uid="notifications.posts_deleted")
def _posts_deleted(sender: object, post_ids: list[ObjectId], **kwargs: Any) -> None:
    notifications_forget_posts(post_ids=post_ids)


@receiver(events.post_removed, dispatch_uid="notifications.post_removed")
def _post_removed(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    notifications_recount_about(post_id=post_id)


@receiver(events.removed_by_moderator, dispatch_uid="notifications.removed_by_moderator")
def _removed_by_moderator(
    sender: object, author: str, subject: str, what: str, excerpt: str, reason: str, **kwargs: Any
) -> None:
    notify_removed(author=author, subject=subject, what=what, excerpt=excerpt, reason=reason)


@receiver(events.post_restored, dispatch_uid="notifications.post_restored")
def _post_restored(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    notifications_recount_about(post_id=post_id)


@receiver(events.comment_deleted, dispatch_uid="notifications.comment_deleted")
def _comment_deleted(sender: object, post_id: ObjectId, slug: str, by: str, **kwargs: Any) -> None:
    notifications_forget_comment(post_id=post_id, slug=slug)


@receiver(events.post_liked, dispatch_uid="notifications.post_liked")
def _post_liked(sender: object, post_id: ObjectId, author: str, actor: str, **kwargs: Any) -> None:
    tasks.tell.enqueue(author, "like", actor, str(post_id))


@receiver(events.post_reposted, dispatch_uid="notifications.post_reposted")
def _post_reposted(
    sender: object, post_id: ObjectId, author: str, actor: str, **kwargs: Any
) -> None:
    tasks.tell.enqueue(author, "repost", actor, str(post_id))


@receiver(events.comment_created, dispatch_uid="notifications.comment_created")
# `comment` is the comments app's Comment; this app reads three of its
# attributes and does not import that app's stores for the name alone.
def _comment_created(
    sender: object, post: dict[str, Any], comment: Any, replying_to: str | None, **kwargs: Any
) -> None:
    tasks.tell_comment_created.enqueue(
        str(post["_id"]),
        post["by"]["id"],
        comment.author["id"],
        comment.slug,
        replying_to,
        *named_in(comment.text),
    )
