"""Views and clicks on served ads (docs/ads-api.md): each names an offer, the
record of one served ad, so only ads really served count, each at most once.

The offer's TTL index removes it about 2 hours after it was made, but TTL
deletion runs once a minute and can lag, so the age is checked here too.
An offer of a campaign that has since stopped still redirects, but its
clicks and views no longer count: the advertiser stopped paying for it.
"""

from datetime import timedelta

from ads.documents import OFFER_TTL_SECONDS, AdOffer, AdStats, AdUser, Campaign
from ads.serving.recording import CLICKS_MAX, day_of, stats_upsert
from socialsite.bulk import bulk_upsert
from socialsite.clock import now as clock_now

OFFER_LIFETIME = timedelta(seconds=OFFER_TTL_SECONDS)
MAX_OFFER_ID_LENGTH = 64


def _live(offer_id: object) -> dict | None:
    """Filter for a live offer, or None for an id that cannot be one."""
    if not isinstance(offer_id, str) or not 0 < len(offer_id) <= MAX_OFFER_ID_LENGTH:
        return None
    return {"_id": offer_id, "created": {"$gt": clock_now() - OFFER_LIFETIME}}


def _active(campaign_id: object) -> bool:
    """The campaign is still served (its system of record says so, by `_id`)."""
    return (
        Campaign._get_collection().find_one(
            {"_id": str(campaign_id), "status": "active"}, {"_id": 1}
        )
        is not None
    )


def offer_click(*, offer_id: str, viewer: str | None, count: bool = True) -> str | None:
    """The unit's stored url for a live offer (else None), counting the
    click once per offer: not when `count` is off (rate limited), not for
    a bot's offer, not for the campaign's own owner."""
    live = _live(offer_id)
    if live is None:
        return None
    collection = AdOffer._get_collection()
    offer = collection.find_one(
        live, {"url": 1, "owner": 1, "bot": 1, "clicked": 1, "campaign_id": 1}
    )
    if offer is None:
        return None
    if (
        count
        and not offer.get("bot")
        and not offer.get("clicked")
        and (viewer is None or viewer != offer.get("owner"))
        and _active(offer.get("campaign_id"))
    ):
        _count_click(offer_id)
    return offer["url"]


def _count_click(offer_id: str) -> None:
    # Claim the click on the offer first: of two clicks at once only one
    # flips `clicked`, and only that one counts.
    claimed = AdOffer._get_collection().find_one_and_update(
        {"_id": offer_id, "clicked": False},
        {"$set": {"clicked": True}},
        projection={"viewer": 1, "campaign_id": 1, "ad_unit_id": 1},
    )
    if claimed is None:
        return
    moment = clock_now()
    bulk_upsert(
        AdStats._get_collection(),
        [stats_upsert(claimed["campaign_id"], claimed["ad_unit_id"], day_of(moment), "clicks")],
    )
    AdUser._get_collection().update_one(
        {"_id": claimed["viewer"]},
        {
            "$push": {
                "clicks": {
                    "$each": [
                        {
                            "campaign_id": claimed["campaign_id"],
                            "ad_unit_id": claimed["ad_unit_id"],
                            "date": moment,
                        }
                    ],
                    "$slice": -CLICKS_MAX,
                }
            },
            "$set": {"last_seen": moment},
        },
    )


def offer_view(*, offer_id: str) -> bool:
    """Count one viewable impression for a live offer, once. True if counted."""
    live = _live(offer_id)
    if live is None:
        return False
    claimed = AdOffer._get_collection().find_one_and_update(
        {**live, "viewed": False, "bot": False},
        {"$set": {"viewed": True}},
        projection={"campaign_id": 1, "ad_unit_id": 1},
    )
    if claimed is None or not _active(claimed["campaign_id"]):
        return False
    bulk_upsert(
        AdStats._get_collection(),
        [
            stats_upsert(
                claimed["campaign_id"], claimed["ad_unit_id"], day_of(clock_now()), "views"
            )
        ],
    )
    return True
