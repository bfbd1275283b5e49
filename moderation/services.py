"""Every moderation write: reports, removals, suspensions, roles, and the
audit entry that each moderator action leaves (exactly one per target)."""

from datetime import datetime

from bson import ObjectId
from pymongo import ReturnDocument

from feeds import fanout, tasks
from feeds.documents import LIVE, Post
from moderation.documents import REASONS, AuditEntry, Report, ReportedItem
from moderation.targets import Target, resolve_target
from profiles.documents import ROLES, User
from socialsite.clock import now
from socialsite.sessions import end_sessions_of


class ModerationError(Exception):
    """A refused moderation request, with a message for the moderator."""


def audit(*, moderator: str, action: str, target: Target, reason: str = "", **details) -> None:
    AuditEntry(
        moderator=moderator,
        action=action,
        target_type=target.type,
        target_id=target.id,
        reason=reason,
        details=details,
    ).save(force_insert=True)


# --- reports ---------------------------------------------------------------------


def report_create(*, reporter: User, target: Target, reason: str, note: str = "") -> bool:
    """Report an item; a second report by the same person updates the first.

    Returns True for a new report. The queue item counts distinct reporters.
    """
    if reason not in REASONS:
        raise ModerationError("Choose a reason.")
    if target.author == reporter.handle:
        raise ModerationError("You can't report your own content.")
    t = now()
    before = Report._get_collection().find_one_and_update(
        {"target_type": target.type, "target_id": target.id, "reporter": reporter.handle},
        {
            "$set": {"reason": reason, "note": note[:500], "status": "open", "updated": t},
            "$setOnInsert": {"created": t},
        },
        upsert=True,
        return_document=ReturnDocument.BEFORE,
    )
    is_new = before is None
    ReportedItem._get_collection().update_one(
        {"_id": target.key},
        {
            "$inc": {"reporters": 1 if is_new else 0},
            "$addToSet": {"reasons": reason},
            "$set": {"status": "open", "last_reported": t},
            "$setOnInsert": {
                "target_type": target.type,
                "target_id": target.id,
                "author": target.author or "",
                "excerpt": target.excerpt,
                "link": target.link,
                "first_reported": t,
            },
        },
        upsert=True,
    )
    return is_new


def _settle(target: Target, status: str, moderator: str) -> None:
    """Close the item and all its open reports."""
    ReportedItem._get_collection().update_one(
        {"_id": target.key, "status": "open"},
        {"$set": {"status": status, "resolved_by": moderator, "resolved_at": now()}},
    )
    Report._get_collection().update_many(
        {"target_type": target.type, "target_id": target.id, "status": "open"},
        {"$set": {"status": status, "updated": now()}},
    )


def report_dismiss(*, moderator: User, target: Target, reason: str = "") -> None:
    _settle(target, "dismissed", moderator.handle)
    audit(moderator=moderator.handle, action="report.dismiss", target=target, reason=reason)


# --- posts -----------------------------------------------------------------------


def post_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: a placeholder on the post page, gone from every timeline."""
    post_id = ObjectId(target.id)
    Post._get_collection().update_one(
        {"_id": post_id},
        {"$set": {"removed": {"by": moderator.handle, "ts": now(), "reason": reason}}},
    )
    fanout.remove_everywhere(post_id)
    _settle(target, "resolved", moderator.handle)
    audit(moderator=moderator.handle, action="post.remove", target=target, reason=reason)


def post_restore(*, moderator: User, target: Target, reason: str = "") -> None:
    post_id = ObjectId(target.id)
    Post._get_collection().update_one(
        {"_id": post_id},
        {
            "$unset": {"removed": ""},
            "$set": {"delivery.state": "pending", "delivery.queued": now()},
        },
    )
    tasks.deliver_post.enqueue(str(post_id))  # idempotent: walls and news again
    audit(moderator=moderator.handle, action="post.restore", target=target, reason=reason)


# --- comments --------------------------------------------------------------------


def comment_remove(*, moderator: User, target: Target, reason: str = "") -> None:
    """Soft removal: "[removed]", replies stay. The audit entry keeps the text,
    which is what `comment_restore` puts back."""
    from comments import services as comments
    from comments.stores import get_store

    post_id, slug = target.comment_address
    comment = get_store().get(post_id, slug)
    if comment is None or comment.deleted:
        raise ModerationError("That comment is already gone.")
    comments.comment_soft_delete(post_id=post_id, slug=slug, by="moderator")
    _settle(target, "resolved", moderator.handle)
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


# --- users -----------------------------------------------------------------------


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
    Post._get_collection().update_many({"by.id": handle}, {"$set": {"author_suspended": True}})
    fanout.remove_author_everywhere(handle)
    _settle(target, "resolved", moderator.handle)
    audit(
        moderator=moderator.handle,
        action="user.suspend",
        target=target,
        reason=reason,
        until=until.isoformat() if until else None,
    )


def user_unsuspend(*, moderator: User | None, target: Target, reason: str = "") -> None:
    """Lift a suspension (a moderator, or the end date passing: moderator None)."""
    handle = target.id
    User._get_collection().update_one(
        {"_id": handle, "status": "suspended"},
        {"$set": {"status": "active"}, "$unset": {"suspended_until": "", "suspension_reason": ""}},
    )
    Post._get_collection().update_many({"by.id": handle}, {"$unset": {"author_suspended": ""}})
    _redeliver_recent(handle)
    audit(
        moderator=moderator.handle if moderator else "system",
        action="user.unsuspend",
        target=target,
        reason=reason or ("" if moderator else "suspension ended"),
    )


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
            {"$set": {"delivery.state": "pending", "delivery.queued": now()}},
        )
    for post_id in ids:
        tasks.deliver_post.enqueue(str(post_id))


def expire_suspensions() -> int:
    """Lift suspensions whose end date has passed; returns how many."""
    due = User._get_collection().find(
        {"status": "suspended", "suspended_until": {"$ne": None, "$lte": now()}}, {"_id": 1}
    )
    count = 0
    for row in due:
        user_unsuspend(moderator=None, target=Target("user", row["_id"]))
        count += 1
    return count


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


ACTIONS = {
    ("post", "remove"): post_remove,
    ("post", "restore"): post_restore,
    ("comment", "remove"): comment_remove,
    ("comment", "restore"): comment_restore,
    ("user", "dismiss"): report_dismiss,
    ("post", "dismiss"): report_dismiss,
    ("comment", "dismiss"): report_dismiss,
}


def bulk(*, moderator: User, action: str, keys: list[str], reason: str = "") -> int:
    """Apply one action to several queue items: one audit entry per target."""
    done = 0
    for key in keys:
        target = resolve_target(key)
        if target is None:
            continue
        handler = ACTIONS.get((target.type, action))
        if handler is None:
            if action == "remove" and target.type == "user":
                continue  # users are suspended from their page, with a reason and an end date
            raise ModerationError(f"Unknown action {action!r}.")
        handler(moderator=moderator, target=target, reason=reason)
        done += 1
    return done
