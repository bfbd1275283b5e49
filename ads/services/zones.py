"""The serving copies in `ad_zone` (*Online Advertising Networks*, Design 1), kept from `campaign`.

A zone document holds the active units of one (site, zone), sorted by eCPM
descending with `$push` `$each` `$sort`, so a decision is one read. Each
copy carries what choosing needs (price, keywords, cap, end, how many
impressions the budget buys), so a decision never reads `campaign`.
"""

from decimal import ROUND_FLOOR, Decimal

from pymongo import UpdateOne

from ads.documents import AdZone, Campaign
from socialsite.bulk import bulk_upsert

# A zone holds at most this many units: a full zone keeps the best-paying
# ones (the `$slice` after the `$sort`), so it stays far below 16 MB.
ZONE_MAX_ADS = 2000
# Best first; ties in a fixed order so both servers store the same array.
ZONE_ORDER = {"ecpm": -1, "campaign_id": 1, "ad_unit_id": 1}


def max_impressions(campaign: Campaign) -> int | None:
    """Impressions the budget buys (spend = impressions x eCPM / 1000)."""
    if campaign.budget is None or not campaign.ecpm:
        return None
    bought = Decimal(campaign.budget) * 1000 / Decimal(campaign.ecpm)
    return int(bought.to_integral_value(rounding=ROUND_FLOOR))


def zone_copies(campaign: Campaign) -> dict[tuple[str, str], list[dict]]:
    """The campaign's units as serving copies, grouped by (site, zone)."""
    shared = {
        "campaign_id": campaign.id,
        "advertiser": campaign.advertiser,
        "owner": campaign.owner,
        "ecpm": float(campaign.ecpm),
        "keywords": list(campaign.keywords),
        "cap_count": campaign.cap_count,
        "cap_hours": campaign.cap_hours,
        "ends": campaign.ends,
        "max_impressions": max_impressions(campaign),
    }
    grouped: dict[tuple[str, str], list[dict]] = {}
    for unit in campaign.units:
        copy = {
            **shared,
            "ad_unit_id": unit.ad_unit_id,
            "title": unit.title,
            "text": unit.text,
            "url": unit.url,
            "image": unit.image,
        }
        grouped.setdefault((unit.site, unit.zone), []).append(copy)
    return grouped


def zones_push(grouped: dict[tuple[str, str], list[dict]]) -> None:
    """Push copies into their zones, creating missing zone documents: one
    bulk write, each upsert retried once on E11000 (two first pushes into a
    new zone race on its unique (site_id, zone_id))."""
    if not grouped:
        return
    ops = [
        UpdateOne(
            {"site_id": site, "zone_id": zone},
            {"$push": {"ads": {"$each": copies, "$sort": ZONE_ORDER, "$slice": ZONE_MAX_ADS}}},
            upsert=True,
        )
        for (site, zone), copies in sorted(grouped.items())
    ]
    bulk_upsert(AdZone._get_collection(), ops)


def zones_pull(campaign_ids: list[str]) -> int:
    """Take campaigns out of every zone: *Online Advertising Networks*'s one multi-document
    `$pull`,
    one round trip however many zones (index `ads.campaign_id`)."""
    if not campaign_ids:
        return 0
    # One id is the seed's own equality; several (pacing's sweep) are an $in.
    match = campaign_ids[0] if len(campaign_ids) == 1 else {"$in": list(campaign_ids)}
    result = AdZone._get_collection().update_many(
        {"ads.campaign_id": match}, {"$pull": {"ads": {"campaign_id": match}}}
    )
    return result.modified_count


def zone_pull_unit(*, site: str, zone: str, campaign_id: str, ad_unit_id: str) -> None:
    AdZone._get_collection().update_one(
        {"site_id": site, "zone_id": zone},
        {"$pull": {"ads": {"campaign_id": campaign_id, "ad_unit_id": ad_unit_id}}},
    )
