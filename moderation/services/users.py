"""Suspensions (and their end) and roles."""

from datetime import datetime

from comments.stores.base import HIDDEN_TEXT
from feeds import tasks
from feeds.delivery import upkeep
from feeds.documents import LIVE, Post
from feeds.services import posts as post_services
from moderation.services.base import ModerationError, audit, settle
from moderation.targets import Target
from profiles.documents import ROLES, User
from socialsite.clock import now
from socialsite.sessions import end_sessions_of


def user_suspend(
    *, moderator: User, target: Target, reason: str, until: datetime | None = None
) -> None:
    """Suspend: no login, every session ended now, posts hidden from others."""
    handle = target.id
    if handle == moderator.handle:
        raise ModerationError("You can't suspend yourself.")
    user = User.objects(handle=handle).only("role").first()
    if user is None:
        raise ModerationError("No such user.")
    if user.role != "user" and not moderator.is_admin:
        raise ModerationError("Only an admin can suspend a moderator or an admin.")
    User._get_collection().update_one(
        {"_id": handle},
        {"$set": {"status": "suspended", "suspended_until": until, "suspension_reason": reason}},
    )
    end_sessions_of(handle)
    posts = Post._get_collection()
    posts.update_many({"by.id": handle}, {"$set": {"author_suspended": True}})
    # Queued deliveries would skip these posts and stay pending for ever;
    # unsuspending queues the recent ones again.
    posts.update_many(
        {"by.id": handle, "delivery.state": "pending"}, {"$set": {"delivery.state": "done"}}
    )
    upkeep.remove_author_everywhere(handle)
    _hide_in_comment_summaries(handle)
    settle(target, "resolved", moderator.handle)
    audit(
        moderator=moderator.handle,
        action="user.suspend",
        target=target,
        reason=reason,
        until=until.isoformat() if until else None,
    )


def user_unsuspend(*, moderator: User | None, target: Target, reason: str = "") -> bool:
    """Lift a suspension (a moderator, or the end date passing: moderator None).

    Only the request that actually lifts it acts and writes the audit entry,
    so concurrent expiries (every dashboard view runs them) log it once.
    Returns False, or raises for a moderator, when the user is not suspended.
    """
    handle = target.id
    result = User._get_collection().update_one(
        {"_id": handle, "status": "suspended"},
        {"$set": {"status": "active"}, "$unset": {"suspended_until": "", "suspension_reason": ""}},
    )
    if result.modified_count == 0:
        if moderator is not None:
            raise ModerationError(f"@{handle} is not suspended.")
        return False
    Post._get_collection().update_many({"by.id": handle}, {"$unset": {"author_suspended": ""}})
    _redeliver_recent(handle)
    _show_in_comment_summaries(handle)
    audit(
        moderator=moderator.handle if moderator else "system",
        action="user.unsuspend",
        target=target,
        reason=reason or ("" if moderator else "suspension ended"),
    )
    return True


# What a feed card shows for a suspended author's comment (as the thread does).
HIDDEN_COMMENT = HIDDEN_TEXT


def _hide_in_comment_summaries(handle: str) -> None:
    """Feed cards show a post's last few comments (`comments_shown`, copied
    into embedded entries too): hide the suspended author's there as well."""
    post_services.comments_shown_hide_author(handle=handle, text=HIDDEN_COMMENT)


def _show_in_comment_summaries(handle: str) -> None:
    from comments import tasks as comment_tasks

    for post_id in post_services.posts_showing_comments_by(handle):
        comment_tasks.refresh_summary.enqueue(str(post_id))  # copied from the store again


def _redeliver_recent(handle: str, limit: int = 100) -> None:
    recent = (
        Post._get_collection()
        .find({"by.id": handle, **LIVE}, {"_id": 1})
        .sort([("ts", -1)])
        .limit(limit)
    )
    ids = [row["_id"] for row in recent]
    if ids:
        Post._get_collection().update_many(
            {"_id": {"$in": ids}},
            # New deliveries, each with its own FEED_DELIVERY_MAX_ATTEMPTS tries.
            {
                "$set": {
                    "delivery.state": "pending",
                    "delivery.queued": now(),
                    "delivery.attempts": 0,
                }
            },
        )
    for post_id in ids:
        tasks.deliver_post.enqueue(str(post_id))


def expire_suspensions() -> int:
    """Lift suspensions whose end date has passed; returns how many."""
    due = User._get_collection().find(
        {"status": "suspended", "suspended_until": {"$ne": None, "$lte": now()}}, {"_id": 1}
    )
    return sum(
        user_unsuspend(moderator=None, target=Target("user", row["_id"])) for row in list(due)
    )


def role_set(*, actor: User | None, handle: str, role: str) -> None:
    """Change a role: admins only (actor None is the command line)."""
    if role not in ROLES:
        raise ModerationError(f"A role is one of {', '.join(ROLES)}.")
    if actor is not None and not actor.is_admin:
        raise ModerationError("Only admins change roles.")
    result = User._get_collection().update_one({"_id": handle}, {"$set": {"role": role}})
    if result.matched_count == 0:
        raise ModerationError(f"No user @{handle}.")
    audit(
        moderator=actor.handle if actor else "system",
        action="user.role",
        target=Target("user", handle),
        role=role,
    )
