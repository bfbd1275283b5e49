"""Soft removal and restoring of posts, comments and direct messages."""

from bson import ObjectId

from feeds.services import removals
from messaging import removals as messaging
from messaging import selectors as messaging_selectors
from moderation.documents import AuditEntry
from moderation.services.base import ModerationError, audit, settle
from moderation.targets import Target
from profiles.documents import User
from socialsite import events


def post_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: a placeholder on the post page, gone from every timeline."""
    if not removals.post_removal_set(
        post_id=ObjectId(target.id), by=moderator.handle, reason=reason
    ):
        raise ModerationError("That post is removed already.")
    settle(target, "resolved", moderator.handle)
    audit(moderator=moderator.handle, action="post.remove", target=target, reason=reason)
    _tell_author(target, "post", reason)


def post_restore(*, moderator: User, target: Target, reason: str = "") -> None:
    if not removals.post_removal_clear(post_id=ObjectId(target.id)):
        raise ModerationError("Only a removed post can be restored.")
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
    _tell_author(target, "comment", reason)


def _tell_author(target: Target, what: str, reason: str) -> None:
    """The author learns what was removed and why (the notifications app
    listens), never which moderator did it."""
    if target.author:
        events.removed_by_moderator.send(
            sender=Target,
            author=target.author,
            subject=target.key,
            what=what,
            excerpt=target.excerpt,
            reason=reason,
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


def message_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: "[removed by a moderator]" in the conversation
    (docs/moderation.md#direct-messages). As for comments, the audit entry
    keeps the words, which is what `message_restore` puts back."""
    conversation_id, message_id = target.message_address
    message = messaging_selectors.message_of(conversation_id, message_id)
    if (
        message is None
        or message.get("removed_by")
        or not message.get("by")
        or message.get("kind") == "left"
    ):
        raise ModerationError("That message is already gone.")
    # Conditional on "not removed" in the write itself: a racing removal
    # logs once, by whoever wrote first.
    if not messaging.message_remove(
        conversation_id=conversation_id, message_id=message_id, bucket=message["bucket"]
    ):
        raise ModerationError("That message is already gone.")
    settle(target, "resolved", moderator.handle)
    audit(
        moderator=moderator.handle,
        action="message.remove",
        target=target,
        reason=reason,
        text=message.get("text") or "",
    )


def message_restore(*, moderator: User, target: Target, reason: str = "") -> None:
    conversation_id, message_id = target.message_address
    message = messaging_selectors.message_of(conversation_id, message_id)
    removal = (
        AuditEntry.objects(target_type="message", target_id=target.id, action="message.remove")
        .order_by("-ts")
        .first()
    )
    # An erased author's words stay erased (docs/accounts.md#erasure): the
    # audit log keeps them as the record, but never puts them back.
    if (
        message is None
        or not message.get("by")
        or removal is None
        or not messaging.message_restore(
            conversation_id=conversation_id,
            message_id=message_id,
            bucket=message["bucket"],
            text=removal.details.get("text", ""),
        )
    ):
        raise ModerationError("Only a message a moderator removed can be restored.")
    audit(moderator=moderator.handle, action="message.restore", target=target, reason=reason)
