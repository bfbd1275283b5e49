"""Moderation's part of an erasure (docs/accounts.md#erasure).

Their reports go (each item they reported counts its reporters again); the
queue items about them or their content go with those items' reports (the
content is going too); their name leaves the items they settled as a
moderator; an item quoting someone's words that mention them shows the
handle as "[deleted account]", as the words themselves do. The audit log
keeps every entry: it is the moderation record.
"""

from feeds import mentions
from moderation.documents import Report, ReportedItem


def _recount(keys: list[tuple[str, str]]) -> None:
    """Items of these targets: their reporters and reasons as the open and
    settled reports now have them; an item nobody reports any longer goes."""
    reports, items = Report._get_collection(), ReportedItem._get_collection()
    for target_type, target_id in keys:
        where = {"target_type": target_type, "target_id": target_id}
        left = reports.count_documents(where)
        key = f"{target_type}:{target_id}"
        if not left:
            items.delete_one({"_id": key})
            continue
        reasons = reports.distinct("reason", {**where, "status": "open"})
        items.update_one({"_id": key}, {"$set": {"reporters": left, "reasons": sorted(reasons)}})


def reports_erase(handle: str, limit: int) -> int:
    reports, items = Report._get_collection(), ReportedItem._get_collection()
    filed = list(
        reports.find({"reporter": handle}, {"target_type": 1, "target_id": 1}).limit(limit)
    )
    if filed:
        reports.delete_many({"_id": {"$in": [row["_id"] for row in filed]}})
        _recount(sorted({(row["target_type"], row["target_id"]) for row in filed}))
        return len(filed)
    about = list(items.find({"author": handle}, {"target_type": 1, "target_id": 1}).limit(limit))
    about += list(items.find({"_id": f"user:{handle}"}, {"target_type": 1, "target_id": 1}))
    for item in about:
        reports.delete_many({"target_type": item["target_type"], "target_id": item["target_id"]})
        items.delete_one({"_id": item["_id"]})
    reports_on_them = reports.delete_many({"target_type": "user", "target_id": handle})
    quoted = list(items.find({"mentions": handle}, {"excerpt": 1}).limit(limit))
    for item in quoted:
        excerpt = mentions.unmention(item.get("excerpt", ""), handle)
        items.update_one(
            {"_id": item["_id"]}, {"$set": {"excerpt": excerpt}, "$pull": {"mentions": handle}}
        )
    settled = items.update_many({"resolved_by": handle}, {"$set": {"resolved_by": ""}})
    return len(about) + reports_on_them.deleted_count + len(quoted) + settled.modified_count
