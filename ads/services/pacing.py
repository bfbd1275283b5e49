"""Pacing (docs/ads-api.md): campaigns past their end or over their budget stop,
and zone changes cut short (a deactivation's `$pull` lost in a failover) are finished.

Decisions already refuse them at once (the zone copy carries `ends`, and the
budget row's conditional upsert refuses the impression past the budget);
this sweep makes it official: the campaign goes inactive with the reason and
leaves every zone, so the management pages say why it stopped.
"""

from datetime import UTC, datetime

from ads.documents import Campaign
from ads.services.campaigns import (
    budget_spent,
    campaigns_deactivate,
    campaigns_resume,
    impressions_counted,
)
from socialsite.clock import now as clock_now

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ads_pacing(*, now: datetime | None = None) -> list[tuple[str, str]]:
    """Finish zone changes an edit left half done, then deactivate ended and
    spent campaigns; returns (campaign id, "ended" or "budget") for each one
    it deactivated and (campaign id, "resumed") for each one it finished."""
    now = now or clock_now()
    resumed = [(campaign_id, "resumed") for campaign_id in campaigns_resume(now=now)]
    stops: list[tuple[str, str]] = []
    # A range bounded on both sides: no server's type ordering lets a
    # missing end (null) count as one in the past.
    ended = Campaign._get_collection().find(
        {"status": "active", "ends": {"$gt": EPOCH, "$lte": now}}, {"_id": 1}
    )
    stops += [(doc["_id"], "ended") for doc in ended]
    stopping = {cid for cid, _ in stops}
    budgeted = [
        campaign
        for campaign in Campaign.objects(status="active", budget__ne=None).only(
            "id", "ecpm", "budget"
        )
        if campaign.id not in stopping
    ]
    if budgeted:
        counted = impressions_counted([c.id for c in budgeted])
        stops += [(c.id, "budget") for c in budgeted if budget_spent(c, counted[c.id])]
    return campaigns_deactivate(stops) + resumed
