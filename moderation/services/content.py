"""Soft removal and restoring of posts and comments."""

from bson import ObjectId

from feeds import tasks
from feeds.delivery import upkeep
from feeds.documents import Post
from feeds.services import reposts
from moderation.documents import AuditEntry
from moderation.services.base import ModerationError, audit, settle
from moderation.targets import Target
from profiles.documents import User
from socialsite.clock import now


def post_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: a placeholder on the post page, gone from every timeline."""
    post_id = ObjectId(target.id)
    posts = Post._get_collection()
    result = posts.update_one(
        {"_id": post_id, "removed": None},
        {"$set": {"removed": {"by": moderator.handle, "ts": now(), "reason": reason}}},
    )
    if result.modified_count == 0:
        raise ModerationError("That post is removed already.")
    # A delivery still queued would skip the post and leave it pending for
    # ever (a phantom fan-out backlog); restoring queues it again.
    posts.update_one(
        {"_id": post_id, "delivery.state": "pending"}, {"$set": {"delivery.state": "done"}}
    )
    upkeep.remove_everywhere(post_id)
    # Its reposts leave every timeline too; kept, for a restore to bring back.
    reposts.reposts_withdraw(post_id=post_id, delete=False)
    settle(target, "resolved", moderator.handle)
    audit(moderator=moderator.handle, action="post.remove", target=target, reason=reason)


def post_restore(*, moderator: User, target: Target, reason: str = "") -> None:
    post_id = ObjectId(target.id)
    posts = Post._get_collection()
    result = posts.update_one(
        {"_id": post_id, "removed": {"$ne": None}}, {"$unset": {"removed": ""}}
    )
    if result.modified_count == 0:
        raise ModerationError("Only a removed post can be restored.")
    # Delivered again (idempotent: walls and news), unless the author is
    # suspended: then unsuspending delivers it.
    queued = posts.update_one(
        {"_id": post_id, "author_suspended": {"$ne": True}},
        # A new delivery: it gets its own FEED_DELIVERY_MAX_ATTEMPTS tries.
        {"$set": {"delivery.state": "pending", "delivery.queued": now(), "delivery.attempts": 0}},
    )
    if queued.matched_count:
        tasks.deliver_post.enqueue(str(post_id))
        reposts.reposts_redeliver(post_id=post_id)
    audit(moderator=moderator.handle, action="post.restore", target=target, reason=reason)


def comment_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: "[removed by a moderator]", replies stay. The audit entry keeps the text,
    which is what `comment_restore` puts back."""
    from comments import services as comments
    from comments.stores import get_store

    post_id, slug = target.comment_address
    comment = get_store().get(post_id, slug)
    if comment is None or comment.deleted:
        raise ModerationError("That comment is already gone.")
    # Conditional on "not deleted" in the write itself: if its author deleted
    # it since the read, it stays theirs, and nothing is logged as removed.
    if not comments.comment_soft_delete(post_id=post_id, slug=slug, by="moderator"):
        raise ModerationError("That comment is already gone.")
    settle(target, "resolved", moderator.handle)
    audit(
        moderator=moderator.handle,
        action="comment.remove",
        target=target,
        reason=reason,
        text=comment.text,
    )


def comment_restore(*, moderator: User, target: Target, reason: str = "") -> None:
    from comments import services as comments

    post_id, slug = target.comment_address
    removal = (
        AuditEntry.objects(target_type="comment", target_id=target.id, action="comment.remove")
        .order_by("-ts")
        .first()
    )
    if removal is None or not comments.comment_restore(
        post_id=post_id, slug=slug, text=removal.details.get("text", "")
    ):
        raise ModerationError("Only a comment a moderator removed can be restored.")
    audit(moderator=moderator.handle, action="comment.restore", target=target, reason=reason)
