"""What every moderation write shares: the refusal, the audit entry, and
closing an item's open reports."""

from moderation.documents import AuditEntry, Report, ReportedItem
from moderation.targets import Target
from socialsite.clock import now


class ModerationError(Exception):
    """A refused moderation request, with a message for the moderator."""


def audit(
    *, moderator: str, action: str, target: Target, reason: str = "", **details: object
) -> None:
    AuditEntry(
        moderator=moderator,
        action=action,
        target_type=target.type,
        target_id=target.id,
        reason=reason,
        details=details,
    ).save(force_insert=True)


def settle(target: Target, status: str, moderator: str) -> bool:
    """Close the item and all its open reports; False when none was open."""
    item = ReportedItem._get_collection().update_one(
        {"_id": target.key, "status": "open"},
        {"$set": {"status": status, "resolved_by": moderator, "resolved_at": now()}},
    )
    reports = Report._get_collection().update_many(
        {"target_type": target.type, "target_id": target.id, "status": "open"},
        {"$set": {"status": status, "updated": now()}},
    )
    return item.modified_count + reports.modified_count > 0
