"""The serving copies in `ad_zone` (*Online Advertising Networks*, Design 1), kept from `campaign`.

A zone document holds the active units of one (site, zone), sorted by eCPM
descending with `$push` `$each` `$sort`, so a decision is one read. Each
copy carries what choosing needs (price, keywords, cap, end, how many
impressions the budget buys), so a decision never reads `campaign`.

A zone is shared by every advertiser, so it has a byte budget
(`AD_ZONE_MAX_BYTES`) besides its count of ads: each copy carries its BSON
`size`, the zone its `bytes` in all, and a push is refused atomically (its
filter demands the room) instead of failing at 16 MB
(docs/ads-api.md#zones-and-their-budget). Each copy also carries the
campaign `version` it was made from: a push never lands where a copy of that
version or a newer one is, and a pull names the versions it removes, so
edits of one campaign that overlap cannot leave stale or duplicate copies.
"""

from decimal import ROUND_FLOOR, Decimal

import bson
from django.conf import settings
from pymongo.errors import DuplicateKeyError

from ads.documents import AdZone, Campaign

# A zone holds at most this many units: a zone that has no room refuses the
# push (the campaign is not activated), it never drops another's ads.
ZONE_MAX_ADS = 2000
# Best first; ties in a fixed order so both servers store the same array.
ZONE_ORDER = {"ecpm": -1, "campaign_id": 1, "ad_unit_id": 1}
DEFAULT_ZONE_MAX_BYTES = 2 * 1024 * 1024


def zone_max_bytes() -> int:
    """The byte budget of one zone's ads: a few MB at most, so every ad
    decision reads a small document and no zone nears 16 MB."""
    return int(getattr(settings, "AD_ZONE_MAX_BYTES", DEFAULT_ZONE_MAX_BYTES))


def max_impressions(campaign: Campaign) -> int | None:
    """Impressions the budget buys (spend = impressions x eCPM / 1000)."""
    if campaign.budget is None or not campaign.ecpm:
        return None
    bought = Decimal(campaign.budget) * 1000 / Decimal(campaign.ecpm)
    return int(bought.to_integral_value(rounding=ROUND_FLOOR))


def copy_size(copy: dict) -> int:
    """The bytes a copy takes in the zone document (its BSON, plus the array
    key, rounded up a little)."""
    return len(bson.encode(copy)) + 8


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
        "version": campaign.version or 0,
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
            "size": 0,
        }
        copy["size"] = copy_size(copy)
        grouped.setdefault((unit.site, unit.zone), []).append(copy)
    return grouped


def _push_one(site: str, zone: str, copies: list[dict]) -> bool:
    """Push one campaign's copies into one zone, if it has room and holds no
    copy of this version or a newer one. False when the zone refused."""
    size = sum(copy["size"] for copy in copies)
    campaign_id, version = copies[0]["campaign_id"], copies[0]["version"]
    budget = zone_max_bytes()
    if size > budget:
        return False
    collection = AdZone._get_collection()
    where = {
        "site_id": site,
        "zone_id": zone,
        "$and": [
            # Room for the copies: a zone written before `bytes` existed counts 0.
            {"bytes": {"$not": {"$gt": budget - size}}},
            {f"ads.{ZONE_MAX_ADS - len(copies)}": {"$exists": False}},
            {
                "ads": {
                    "$not": {
                        "$elemMatch": {"campaign_id": campaign_id, "version": {"$gte": version}}
                    }
                }
            },
        ],
    }
    update = {
        "$push": {"ads": {"$each": copies, "$sort": ZONE_ORDER}},
        "$inc": {"bytes": size},
    }
    try:
        collection.update_one(where, update, upsert=True)
        return True
    except DuplicateKeyError:
        # Either a racing first push created the zone (the retry lands) or
        # the zone exists and its filter refused: no room, or already there.
        return bool(collection.update_one(where, update).matched_count)


def zones_push(grouped: dict[tuple[str, str], list[dict]]) -> list[tuple[str, str]]:
    """Push one campaign's copies into their zones, creating missing zone
    documents; one upsert a zone, each retried once on E11000. Returns the
    zones that refused (no room, or a copy of this version is there)."""
    return [
        (site, zone)
        for (site, zone), copies in sorted(grouped.items())
        if copies and not _push_one(site, zone, copies)
    ]


def holds_version(site: str, zone: str, campaign_id: str, version: int) -> bool:
    """True when the zone holds a copy of the campaign at `version` or newer."""
    found = AdZone._get_collection().find_one(
        {
            "site_id": site,
            "zone_id": zone,
            "ads": {"$elemMatch": {"campaign_id": campaign_id, "version": {"$gte": version}}},
        },
        {"_id": 1},
    )
    return found is not None


def zones_pull(campaign_ids: list[str], *, up_to: dict[str, int] | None = None) -> int:
    """Take campaigns out of every zone: *Online Advertising Networks*'s one
    multi-document `$pull`, one round trip however many zones (index
    `ads.campaign_id`). `up_to` bounds, per campaign, the versions removed
    (copies of a newer version belong to a newer edit and stay).

    An update pipeline, so the zone's `bytes` is recomputed from the copies
    that stay: a pull can never leave the counter behind the array.
    """
    if not campaign_ids:
        return 0
    ids = list(dict.fromkeys(campaign_ids))
    match = ids[0] if len(ids) == 1 else {"$in": ids}
    bounds = up_to or {}
    # What stays: each condition says "not this campaign's, or newer than its bound".
    stays: list[dict] = [
        {"$ne": ["$$ad.campaign_id", cid]}
        if cid not in bounds
        else {
            "$or": [
                {"$ne": ["$$ad.campaign_id", cid]},
                {"$gt": [{"$ifNull": ["$$ad.version", 0]}, bounds[cid]]},
            ]
        }
        for cid in ids
    ]
    keep = stays[0] if len(stays) == 1 else {"$and": stays}
    result = AdZone._get_collection().update_many(
        {"ads.campaign_id": match},
        [
            {"$set": {"ads": {"$filter": {"input": "$ads", "as": "ad", "cond": keep}}}},
            {"$set": {"bytes": {"$sum": "$ads.size"}}},
        ],
    )
    return result.modified_count
