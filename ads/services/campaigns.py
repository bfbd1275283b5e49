"""Campaigns and their units: the system of record (`campaign`), with the
serving copies in `ad_zone` kept in step (docs/ads-api.md, *Online Advertising Networks*)."""

from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.utils.text import slugify
from mongoengine import NotUniqueError
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

# The zones module itself, not `from ads.services import zones`: the
# package's __init__ imports this module, and a module it imports must not
# import the package back. Calls stay `zones.<name>` (tests replace them there).
import ads.services.zones as zones
from ads.documents import AdStats, AdUnit, Campaign, budget_row_id
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
from socialsite.clock import now as clock_now

MAX_UNITS = 50
DEFAULT_MAX_ACTIVE_CAMPAIGNS = 20
# An edit's zone changes take milliseconds: a mark older than this was cut short.
DEFAULT_PENDING_SECONDS = 60
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
    "campaigns_resume",
    "clean_keywords",
    "max_active_campaigns",
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
    _check_room(campaign, override=dict(fields))
    stored = {
        key: None if value is None else Campaign._fields[key].to_mongo(value)
        for key, value in fields.items()
    }
    doc = _edit(campaign.id, {}, {"$set": stored}, mark=campaign.status == "active")
    if doc is None:
        raise AdsError("No such campaign.")
    _sync_or_stop(doc, serve=doc.get("status") == "active")
    return Campaign._from_son(doc)


# --- keeping the zones in step ---------------------------------------------------
#
# Every edit is one atomic update of the campaign that takes the next
# `version` and marks `zones_pending`; the zones are then brought in step
# with that version (older copies pulled, this version's pushed), and the
# mark is cleared only by the edit that still holds the newest version. A
# step cut short (a failover in the middle of an `update_many`) leaves the
# mark, and `ads_pacing`'s sweep finishes it (docs/ads-api.md#zones-and-their-budget).


def _edit(campaign_id: str, where: dict, update: dict, *, mark: bool = True) -> dict | None:
    """Apply `update` to the campaign (when `where` also matches), taking the
    next version: the campaign document as it is after, or None. `mark`:
    the zones will change (an edit of an inactive campaign leaves them be)."""
    update = {**update}
    marks = {"zones_pending": now()} if mark else {}
    update["$set"] = {**update.get("$set", {}), "updated": now(), **marks}
    update["$inc"] = {"version": 1}
    doc: dict | None = Campaign._get_collection().find_one_and_update(
        {"_id": str(campaign_id), **where}, update, return_document=ReturnDocument.AFTER
    )
    return doc


def _finish(campaign_id: str, version: int, extra: dict | None = None) -> bool:
    """Clear the mark, if no newer edit has taken over."""
    update: dict = {"$unset": {"zones_pending": 1}}
    if extra:
        update["$set"] = extra
    done = Campaign._get_collection().update_one({"_id": campaign_id, "version": version}, update)
    return bool(done.matched_count)


def _sync(doc: dict, *, serve: bool) -> list[tuple[str, str]] | None:
    """Bring the zones in step with the campaign at `doc`'s version: its copies
    served (`serve`) or gone. Returns the zones that had no room, or None
    when a newer edit took over meanwhile (its own sync decides)."""
    campaign_id, version = doc["_id"], doc.get("version", 0)
    if not serve:
        zones.zones_pull([campaign_id], up_to={campaign_id: version})
        return []
    zones.zones_pull([campaign_id], up_to={campaign_id: version - 1})
    campaign = Campaign._from_son(doc)
    refused = zones.zones_push(zones.zone_copies(campaign))
    # Read the system of record again: an edit that took a newer version
    # while we pushed may have pulled before our push landed.
    current = Campaign._get_collection().find_one({"_id": campaign_id}, {"version": 1})
    newest = (current or {}).get("version", version + 1)
    if newest != version:
        zones.zones_pull([campaign_id], up_to={campaign_id: newest - 1})
        return None
    return [
        zone for zone in refused if not zones.holds_version(zone[0], zone[1], campaign_id, version)
    ]


def _no_room(refused: list[tuple[str, str]]) -> str:
    where = ", ".join(f"{site}/{zone}" for site, zone in refused)
    return (
        f"The zone {where} has no room for more ads (each zone holds at most "
        f"{zones.zone_max_bytes():,} bytes of ads): shorten the units or choose another zone."
    )


def _stop(doc: dict, refused: list[tuple[str, str]]) -> None:
    """A push was refused: the campaign cannot be served as it is, so it is
    stopped (never left `active` with its copies missing)."""
    campaign_id, version = doc["_id"], doc.get("version", 0)
    Campaign._get_collection().update_one(
        {"_id": campaign_id, "version": version, "status": "active"},
        {"$set": {"status": "inactive", "stopped": "zone full"}},
    )
    zones.zones_pull([campaign_id], up_to={campaign_id: version})
    _finish(campaign_id, version)


def _sync_or_stop(doc: dict, *, serve: bool) -> None:
    if not serve and "zones_pending" not in doc:
        return  # an inactive campaign's edit: its zones hold nothing to change
    result = _sync(doc, serve=serve)
    if result is None:
        return
    if result:
        _stop(doc, result)
        raise AdsError(_no_room(result) + " The campaign was stopped.")
    _finish(doc["_id"], doc.get("version", 0))


def _check_room(campaign: Campaign, *, override: dict | None = None) -> None:
    """Refuse, before anything is written, units that could never fit a zone."""
    changed = Campaign._from_son(campaign.to_mongo().to_dict())
    for key, value in (override or {}).items():
        setattr(changed, key, value)
    budget = zones.zone_max_bytes()
    too_big = [
        zone
        for zone, copies in sorted(zones.zone_copies(changed).items())
        if sum(copy["size"] for copy in copies) > budget
    ]
    if too_big:
        raise AdsError(_no_room(too_big))


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
    unit is served at once. A zone with no room refuses it: the unit is
    taken back and the campaign serves on as before."""
    fields = clean_unit(
        ad_unit_id=ad_unit_id, site=site, zone=zone, title=title, text=text, url=url, image=image
    )
    ad_unit_id = fields["ad_unit_id"]
    unit = AdUnit(**fields)
    campaign = _campaign(campaign_id)
    campaign.units.append(unit)
    _check_room(campaign)
    # One conditional push: a concurrent add of the same id cannot slip in.
    doc = _edit(
        campaign.id,
        {"units.ad_unit_id": {"$ne": ad_unit_id}, f"units.{MAX_UNITS - 1}": {"$exists": False}},
        {"$push": {"units": unit.to_mongo().to_dict()}},
        mark=campaign.status == "active",
    )
    if doc is None:
        if any(existing.ad_unit_id == ad_unit_id for existing in campaign.units[:-1]):
            raise AdsError(f"This campaign already has a unit “{ad_unit_id}”.")
        raise AdsError(f"A campaign has at most {MAX_UNITS} units.")
    if doc.get("status") != "active":
        _sync_or_stop(doc, serve=False)
        return Campaign._from_son(doc)
    result = _sync(doc, serve=True)
    if result is None:
        return _campaign(campaign.id)
    if result:
        back = _edit(campaign.id, {}, {"$pull": {"units": {"ad_unit_id": ad_unit_id}}})
        if back is not None:
            _sync_or_stop(back, serve=back.get("status") == "active")
        raise AdsError(_no_room(result) + " The unit was not added.")
    _finish(doc["_id"], doc["version"])
    return Campaign._from_son(doc)


def unit_remove(*, campaign_id: str, ad_unit_id: str) -> Campaign:
    campaign = _campaign(campaign_id)
    doc = _edit(
        campaign.id,
        {"units.ad_unit_id": ad_unit_id},
        {"$pull": {"units": {"ad_unit_id": ad_unit_id}}},
        mark=campaign.status == "active",
    )
    if doc is None:
        raise AdsError("No such ad unit.")
    _sync_or_stop(doc, serve=doc.get("status") == "active")
    return Campaign._from_son(doc)


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


def max_active_campaigns() -> int:
    """Active campaigns one advertiser may have at once: the shared zones
    (socialsite/feed above all) are not one advertiser's to fill."""
    return int(getattr(settings, "ADS_MAX_ACTIVE_CAMPAIGNS", DEFAULT_MAX_ACTIVE_CAMPAIGNS))


def campaign_activate(*, campaign_id: str) -> Campaign:
    """Serve the campaign: its units go into their zones in eCPM order.

    The status turns `active` only once every zone took the units: a zone
    with no room refuses, and the campaign stays as it was."""
    campaign = _campaign(campaign_id)
    if not campaign.units:
        raise AdsError("Add an ad unit before activating the campaign.")
    if campaign.ends is not None and aware(campaign.ends) <= now():
        raise AdsError("This campaign has ended: move its end date first.")
    if campaign.budget is not None and budget_spent(
        campaign, impressions_counted([campaign.id])[campaign.id]
    ):
        raise AdsError("This campaign's budget is spent: raise the budget first.")
    limit = max_active_campaigns()
    if campaign.status != "active":
        active = Campaign.objects(advertiser=campaign.advertiser, status="active").count()
        if active >= limit:
            raise AdsError(
                f"An advertiser has at most {limit} active campaigns: deactivate one first."
            )
    _check_room(campaign)
    doc = _edit(campaign.id, {}, {})
    if doc is None:
        raise AdsError("No such campaign.")
    result = _sync(doc, serve=True)
    if result is None:
        raise AdsError("The campaign changed while it was being activated: try again.")
    if result:
        _stop(doc, result)
        raise AdsError(_no_room(result) + " The campaign was not activated.")
    if not _finish(doc["_id"], doc["version"], {"status": "active", "stopped": ""}):
        # A newer edit took over after our push: our copies go (a newer
        # version's stay), the campaign stays as that edit left it.
        zones.zones_pull([campaign.id], up_to={campaign.id: doc["version"]})
        raise AdsError("The campaign changed while it was being activated: try again.")
    activated = Campaign._from_son(doc)
    activated.status, activated.stopped = "active", ""
    activated.zones_pending = None
    return activated


def campaign_deactivate(*, campaign_id: str, reason: str = "deactivated") -> bool:
    """Stop serving the campaign at once. True when it was active.

    The status and the mark come first, in one write; the `$pull` from every
    zone is an `update_many` the driver never retries, so a cut leaves the
    mark and the sweep finishes it."""
    campaign_id = str(campaign_id)
    doc = _edit(
        campaign_id, {"status": "active"}, {"$set": {"status": "inactive", "stopped": reason}}
    )
    if doc is None:
        if not Campaign.objects(id=campaign_id).only("id").first():
            raise AdsError("No such campaign.")
        return False
    _sync(doc, serve=False)
    _finish(campaign_id, doc["version"])
    return True


def campaigns_deactivate(stops: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Deactivate many campaigns, each with its reason: one write per reason
    on `campaign`, one read of their versions and one `$pull` for them all.
    Returns those that were active."""
    if not stops:
        return []
    ids = [cid for cid, _reason in stops]
    collection = Campaign._get_collection()
    active = {
        doc["_id"]
        for doc in collection.find({"_id": {"$in": ids}, "status": "active"}, {"_id": 1})
    }
    for reason in sorted({reason for _cid, reason in stops}):
        chosen = [cid for cid, why in stops if why == reason and cid in active]
        if chosen:
            collection.update_many(
                {"_id": {"$in": chosen}, "status": "active"},
                {
                    "$set": {
                        "status": "inactive",
                        "stopped": reason,
                        "updated": now(),
                        "zones_pending": now(),
                    },
                    "$inc": {"version": 1},
                },
            )
    if active:
        stopped = {
            doc["_id"]: doc.get("version", 0)
            for doc in collection.find(
                {"_id": {"$in": sorted(active)}, "status": "inactive"}, {"version": 1}
            )
        }
        if stopped:
            zones.zones_pull(list(stopped), up_to=stopped)
            collection.update_many(
                {"$or": [{"_id": cid, "version": version} for cid, version in stopped.items()]},
                {"$unset": {"zones_pending": 1}},
            )
    return [(cid, reason) for cid, reason in stops if cid in active]


def campaigns_resume(*, now: datetime | None = None, limit: int = 100) -> list[str]:
    """Finish the zone changes an edit left half done (its mark older than
    ADS_ZONES_PENDING_SECONDS): the sweep's repair. Returns their ids."""
    moment = now or clock_now()
    grace = timedelta(
        seconds=int(getattr(settings, "ADS_ZONES_PENDING_SECONDS", DEFAULT_PENDING_SECONDS))
    )
    collection = Campaign._get_collection()
    stale = list(
        collection.find({"zones_pending": {"$lte": moment - grace}}, {"version": 1}).limit(limit)
    )
    resumed = []
    for found in stale:
        # A new version of its own: an edit still under way (slower than the
        # grace) then finds itself superseded instead of undoing this.
        doc = _edit(found["_id"], {"version": found.get("version", 0)}, {})
        if doc is None:
            continue
        result = _sync(doc, serve=doc.get("status") == "active")
        if result is None:
            continue
        if result:
            _stop(doc, result)
        else:
            _finish(doc["_id"], doc["version"])
        resumed.append(doc["_id"])
    return resumed
