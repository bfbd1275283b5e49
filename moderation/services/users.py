"""Suspensions (and their end) and roles."""

from datetime import datetime

from comments.stores.base import HIDDEN_TEXT
from feeds.selectors import posts as feed_posts
from feeds.services import posts as post_services
from feeds.services import removals
from moderation.services.base import ModerationError, audit, settle
from moderation.targets import Target
from profiles.documents import ROLES, User
from profiles.services import standing
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
    standing.user_suspension_set(handle=handle, until=until, reason=reason)
    end_sessions_of(handle)
    removals.posts_author_suspended(handle=handle)
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
    if not standing.user_suspension_clear(handle=handle):
        if moderator is not None:
            raise ModerationError(f"@{handle} is not suspended.")
        return False
    removals.posts_author_unsuspended(handle=handle)
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

    for post_id in feed_posts.posts_showing_comments_by(handle):
        comment_tasks.refresh_summary.enqueue(str(post_id))  # copied from the store again


def expire_suspensions() -> int:
    """Lift suspensions whose end date has passed; returns how many."""
    due = standing.users_suspension_due(now())
    return sum(user_unsuspend(moderator=None, target=Target("user", handle)) for handle in due)


def role_set(*, actor: User | None, handle: str, role: str) -> None:
    """Change a role: admins only (actor None is the command line)."""
    if role not in ROLES:
        raise ModerationError(f"A role is one of {', '.join(ROLES)}.")
    if actor is not None and not actor.is_admin:
        raise ModerationError("Only admins change roles.")
    if not standing.user_role_set(handle=handle, role=role):
        raise ModerationError(f"No user @{handle}.")
    audit(
        moderator=actor.handle if actor else "system",
        action="user.role",
        target=Target("user", handle),
        role=role,
    )
