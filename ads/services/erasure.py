"""The ad network's part of an erasure (docs/accounts.md#erasure): the
person's campaigns go whole (their serving copies, counters and budget
row first, the campaign last, so a crash leaves the campaign to find again),
then what the network knows of them as a viewer."""

from ads.documents import AdOffer, AdStats, AdUser, Campaign, budget_row_id
from ads.services import zones


def campaigns_erase(handle: str, limit: int) -> int:
    campaigns = Campaign._get_collection()
    ids = [row["_id"] for row in campaigns.find({"owner": handle}, {"_id": 1}).limit(limit)]
    if ids:
        zones.zones_pull(ids)
        stats = AdStats._get_collection()
        stats.delete_many({"campaign_id": {"$in": ids + [budget_row_id(i) for i in ids]}})
        campaigns.delete_many({"_id": {"$in": ids}, "owner": handle})
    return len(ids)


def viewer_erase(handle: str, limit: int) -> int:
    """Their viewer profile, and the offers served to them or of their ads
    (which would expire within hours anyway)."""
    offers = AdOffer._get_collection()
    changed = AdUser._get_collection().delete_one({"_id": handle}).deleted_count
    for field in ("viewer", "owner"):
        ids = [row["_id"] for row in offers.find({field: handle}, {"_id": 1}).limit(limit)]
        if ids:
            changed += offers.delete_many({"_id": {"$in": ids}}).deleted_count
    return changed
