"""Campaigns and their units: the system of record (`campaign`), with the
serving copies in `ad_zone` kept in step (docs/ads-api.md, *Online Advertising Networks*)."""

from datetime import datetime
from decimal import Decimal

from django.utils.text import slugify
from mongoengine import NotUniqueError
from pymongo.errors import DuplicateKeyError

from ads.documents import AdStats, AdUnit, Campaign, budget_row_id
from ads.services import zones
from ads.services.errors import AdsError
from ads.services.validation import (  # the limits are re-exported: ads/forms.py shows them
    MAX_CAP_COUNT,
    MAX_CAP_HOURS,
    MAX_ECPM,
    MAX_KEYWORDS,
    clean_campaign,
    clean_keywords,
    clean_slug,
    clean_unit,
)
from socialsite.clock import aware, now

MAX_UNITS = 50
__all__ = [
    "MAX_CAP_COUNT",
    "MAX_CAP_HOURS",
    "MAX_ECPM",
    "MAX_KEYWORDS",
    "MAX_UNITS",
    "campaign_activate",
    "campaign_create",
    "campaign_deactivate",
    "campaign_update",
    "campaigns_deactivate",
    "clean_keywords",
    "unit_add",
    "unit_remove",
]


def _campaign(campaign_id: str) -> Campaign:
    campaign = Campaign.objects(id=str(campaign_id)).first()
    if campaign is None:
        raise AdsError("No such campaign.")
    return campaign


def _free_id(base: str) -> str:
    """`base`, or `base-2`, `base-3`... whichever is free: one range read."""
    taken = {
        doc["_id"]
        for doc in Campaign._get_collection().find(
            {"_id": {"$gte": base, "$lt": base + "\uffff"}}, {"_id": 1}
        )
    }
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def campaign_create(
    *,
    owner: str,
    advertiser: str,
    name: str,
    ecpm: Decimal,
    keywords: list[str],
    cap_count: int = 0,
    cap_hours: int = 0,
    budget: Decimal | None = None,
    ends: datetime | None = None,
) -> Campaign:
    """A new, inactive campaign with id `<advertiser>:<slug of name>`."""
    advertiser = clean_slug(advertiser, "advertiser")
    fields = clean_campaign(
        name=name,
        ecpm=ecpm,
        keywords=keywords,
        cap_count=cap_count,
        cap_hours=cap_hours,
        budget=budget,
        ends=ends,
    )
    slug = slugify(fields["name"])[:30].strip("-_") or "campaign"
    base = f"{advertiser}:{slug}"
    for _attempt in range(3):
        campaign = Campaign(id=_free_id(base), advertiser=advertiser, owner=owner, **fields)
        try:
            return campaign.save(force_insert=True)
        except (NotUniqueError, DuplicateKeyError):
            continue  # another create took the same id a moment ago: look again
    raise AdsError("Could not name the campaign: try again.")


def campaign_update(
    *,
    campaign_id: str,
    name: str,
    ecpm: Decimal,
    keywords: list[str],
    cap_count: int,
    cap_hours: int,
    budget: Decimal | None,
    ends: datetime | None,
) -> Campaign:
    """Change the campaign; an active one's copies in every zone follow."""
    fields = clean_campaign(
        name=name,
        ecpm=ecpm,
        keywords=keywords,
        cap_count=cap_count,
        cap_hours=cap_hours,
        budget=budget,
        ends=ends,
    )
    campaign = _campaign(campaign_id)
    Campaign.objects(id=campaign.id).update_one(
        **{f"set__{key}": value for key, value in fields.items()}, set__updated=now()
    )
    campaign.reload()
    if campaign.status == "active":
        _serve(campaign, zones.zone_copies(campaign), replace=True)
    return campaign


def _serve(
    campaign: Campaign, grouped: dict[tuple[str, str], list[dict]], *, replace: bool
) -> None:
    """Put copies into zones while the campaign is active.

    A deactivation that lands between our read of the status and our push
    would be undone by the push (its `$pull` ran first), so the campaign
    document, the system of record, is read again after it, and a campaign
    no longer active is pulled once more.
    """
    if replace:
        zones.zones_pull([campaign.id])
    zones.zones_push(grouped)
    if Campaign.objects(id=campaign.id, status="active").only("id").first() is None:
        zones.zones_pull([campaign.id])


def unit_add(
    *,
    campaign_id: str,
    ad_unit_id: str,
    site: str,
    zone: str,
    title: str,
    text: str,
    url: str,
    image: str = "",
) -> Campaign:
    """Add a unit (unique id within the campaign); an active campaign's new
    unit is served at once."""
    fields = clean_unit(
        ad_unit_id=ad_unit_id, site=site, zone=zone, title=title, text=text, url=url, image=image
    )
    ad_unit_id, site, zone = fields["ad_unit_id"], fields["site"], fields["zone"]
    unit = AdUnit(**fields)
    campaign = _campaign(campaign_id)
    # One conditional push: a concurrent add of the same id cannot slip in.
    added = Campaign._get_collection().update_one(
        {
            "_id": campaign.id,
            "units.ad_unit_id": {"$ne": ad_unit_id},
            f"units.{MAX_UNITS - 1}": {"$exists": False},
        },
        {"$push": {"units": unit.to_mongo().to_dict()}, "$set": {"updated": now()}},
    )
    if not added.modified_count:
        if any(existing.ad_unit_id == ad_unit_id for existing in campaign.units):
            raise AdsError(f"This campaign already has a unit “{ad_unit_id}”.")
        raise AdsError(f"A campaign has at most {MAX_UNITS} units.")
    campaign.reload()
    if campaign.status == "active":
        copies = zones.zone_copies(campaign)[(site, zone)]
        new = [copy for copy in copies if copy["ad_unit_id"] == ad_unit_id]
        _serve(campaign, {(site, zone): new}, replace=False)
    return campaign


def unit_remove(*, campaign_id: str, ad_unit_id: str) -> Campaign:
    campaign = _campaign(campaign_id)
    unit = next((u for u in campaign.units if u.ad_unit_id == ad_unit_id), None)
    if unit is None:
        raise AdsError("No such ad unit.")
    Campaign._get_collection().update_one(
        {"_id": campaign.id},
        {"$pull": {"units": {"ad_unit_id": ad_unit_id}}, "$set": {"updated": now()}},
    )
    zones.zone_pull_unit(
        site=unit.site, zone=unit.zone, campaign_id=campaign.id, ad_unit_id=ad_unit_id
    )
    campaign.reload()
    return campaign


def impressions_counted(campaign_ids: list[str]) -> dict[str, int]:
    """Each budgeted campaign's impressions in all, from its budget row."""
    rows = AdStats._get_collection().find(
        {"_id": {"$in": [budget_row_id(cid) for cid in campaign_ids]}}, {"impressions": 1}
    )
    counted = {row["_id"]: row.get("impressions", 0) for row in rows}
    return {cid: counted.get(budget_row_id(cid), 0) for cid in campaign_ids}


def budget_spent(campaign: Campaign, impressions: int) -> bool:
    bought = zones.max_impressions(campaign)
    return bought is not None and impressions >= bought


def campaign_activate(*, campaign_id: str) -> Campaign:
    """Serve the campaign: its units go into their zones in eCPM order."""
    campaign = _campaign(campaign_id)
    if not campaign.units:
        raise AdsError("Add an ad unit before activating the campaign.")
    if campaign.ends is not None and aware(campaign.ends) <= now():
        raise AdsError("This campaign has ended: move its end date first.")
    if campaign.budget is not None and budget_spent(
        campaign, impressions_counted([campaign.id])[campaign.id]
    ):
        raise AdsError("This campaign's budget is spent: raise the budget first.")
    Campaign.objects(id=campaign.id).update_one(
        set__status="active", set__stopped="", set__updated=now()
    )
    campaign.reload()
    _serve(campaign, zones.zone_copies(campaign), replace=True)
    return campaign


def campaign_deactivate(*, campaign_id: str, reason: str = "deactivated") -> bool:
    """Stop serving the campaign at once. True when it was active."""
    campaign_id = str(campaign_id)
    changed = Campaign.objects(id=campaign_id, status="active").update_one(
        set__status="inactive", set__stopped=reason, set__updated=now()
    )
    if not changed and not Campaign.objects(id=campaign_id).only("id").first():
        raise AdsError("No such campaign.")
    zones.zones_pull([campaign_id])
    return bool(changed)


def campaigns_deactivate(stops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Deactivate many campaigns, each with its reason: one write per reason
    on `campaign` and one `$pull` for them all. Returns those that were active."""
    if not stops:
        return []
    ids = [cid for cid, _reason in stops]
    active = {
        doc["_id"]
        for doc in Campaign._get_collection().find(
            {"_id": {"$in": ids}, "status": "active"}, {"_id": 1}
        )
    }
    for reason in sorted({reason for _cid, reason in stops}):
        chosen = [cid for cid, why in stops if why == reason and cid in active]
        if chosen:
            Campaign._get_collection().update_many(
                {"_id": {"$in": chosen}, "status": "active"},
                {"$set": {"status": "inactive", "stopped": reason, "updated": now()}},
            )
    zones.zones_pull(ids)
    return [(cid, reason) for cid, reason in stops if cid in active]
