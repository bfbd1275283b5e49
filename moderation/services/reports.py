"""Reports: filing (or updating) one, and dismissing an item's open reports."""

from pymongo import ReturnDocument

from feeds import mentions
from moderation.documents import REASONS, Report, ReportedItem
from moderation.services.base import ModerationError, audit, settle
from moderation.targets import Target
from profiles.documents import User
from socialsite.clock import now


def report_create(*, reporter: User, target: Target, reason: str, note: str = "") -> bool:
    """Report an item; a second report by the same person updates the first.

    Returns True for a new report. The queue item counts distinct reporters.
    """
    if reason not in REASONS:
        raise ModerationError("Choose a reason.")
    if target.author == reporter.handle:
        raise ModerationError("You can't report your own content.")
    if target.gone:
        raise ModerationError("That was removed already.")
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
    items = ReportedItem._get_collection()
    items.update_one(
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
                "mentions": sorted(mentions.handles_in(target.excerpt)),
                "link": target.link,
                "first_reported": t,
            },
        },
        upsert=True,
    )
    if not is_new and before["reason"] != reason:
        # A changed reason: the item's reasons are those of its open reports
        # again, so the reason filter does not match a reason nobody gives.
        reasons = Report._get_collection().distinct(
            "reason", {"target_type": target.type, "target_id": target.id, "status": "open"}
        )
        items.update_one({"_id": target.key}, {"$set": {"reasons": sorted(reasons)}})
    return is_new


def report_dismiss(*, moderator: User, target: Target, reason: str = "") -> None:
    # The filter on "open" makes a repeated (or concurrent) dismissal a no-op:
    # one audit entry per dismissal that happened.
    if not settle(target, "dismissed", moderator.handle):
        raise ModerationError("There are no open reports on that.")
    audit(moderator=moderator.handle, action="report.dismiss", target=target, reason=reason)
