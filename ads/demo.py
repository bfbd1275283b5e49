"""Demo ads: three advertisers, campaigns whose keywords meet the demo people's
interests (profiles/demo.py's INTERESTS), units in Socialsite's three zones
and on a partner site, activated through the services, and two weeks of
report counters so the campaign reports have shape. The `admin` account
(moderation/demo.py) manages them all by its role.
"""

import random
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.core.management.base import OutputWrapper

from ads import services
from ads.documents import BUDGET_ROW_DAY, AdStats, Campaign, budget_row_id, stats_row_id
from profiles.documents import User
from socialsite import events
from socialsite.clock import now
from socialsite.demo import Seeding

ADVERTISERS = (
    ("trailhead", "Trailhead Outfitters"),
    ("roastery", "Corner Roastery"),
    ("inkwell", "Inkwell Books"),
)
PARTNER_SITE, PARTNER_ZONE = "partner", "sidebar"
OWN_ZONES = ("feed", "search", "profile")
# (owner, advertiser, name, eCPM, keywords, cap (count, hours), budget, active,
#  units: (ad_unit_id, zone or None for the partner site, title, text, path))
CAMPAIGNS = (
    (
        "trailhead",
        "trailhead",
        "Autumn on the trails",
        "6.00",
        ["hiking", "climbing", "running", "cycling"],
        (3, 24),
        None,
        True,
        [
            (
                "trails-feed",
                "feed",
                "Boots that know the way",
                "Light, waterproof, resoled for free.",
                "boots",
            ),
            (
                "trails-search",
                "search",
                "Trail maps for every weekend",
                "Printed, folded, waterproof.",
                "maps",
            ),
            (
                "trails-profile",
                "profile",
                "Climbing gear, checked by climbers",
                "Ropes, harnesses and chalk.",
                "climbing",
            ),
        ],
    ),
    (
        "trailhead",
        "trailhead",
        "Kayak week",
        "4.50",
        ["sailing", "kayak", "canoe"],
        (0, 0),
        "400.00",
        True,
        [
            (
                "kayak-search",
                "search",
                "Paddle the quiet lakes",
                "Kayaks to rent by the day.",
                "kayak",
            ),
            (
                "kayak-partner",
                None,
                "Kayak week at Trailhead",
                "Ten percent off every boat.",
                "kayak",
            ),
        ],
    ),
    (
        "roastery",
        "roastery",
        "Your first bag",
        "4.50",
        ["coffee", "baking"],
        (5, 24),
        None,
        True,
        [
            (
                "first-bag-feed",
                "feed",
                "Your first bag is on us",
                "Fresh beans, roasted on Mondays.",
                "first-bag",
            ),
            (
                "first-bag-profile",
                "profile",
                "Coffee for the baker",
                "A roast that likes sourdough.",
                "bakers",
            ),
            (
                "first-bag-partner",
                None,
                "Corner Roastery",
                "Single origin, delivered.",
                "subscribe",
            ),
        ],
    ),
    (
        "inkwell",
        "inkwell",
        "Poetry month",
        "3.00",
        ["poetry", "typography", "film", "jazz"],
        (0, 0),
        None,
        True,
        [
            (
                "poetry-feed",
                "feed",
                "Thirty poems for thirty days",
                "A small book for a big month.",
                "poetry",
            ),
            (
                "poetry-search",
                "search",
                "Type specimens, bound",
                "For people who notice kerning.",
                "type",
            ),
            (
                "poetry-profile",
                "profile",
                "Liner notes, collected",
                "Jazz writing from four decades.",
                "jazz",
            ),
        ],
    ),
    (
        "inkwell",
        "inkwell",
        "The data shelf",
        "5.00",
        ["databases", "open", "source", "chess", "astronomy"],
        (2, 12),
        "250.00",
        True,
        [
            (
                "data-search",
                "search",
                "Designing data systems",
                "The book your schema deserves.",
                "data",
            ),
            (
                "data-profile",
                "profile",
                "Star charts and chess problems",
                "Two shelves for long nights.",
                "nights",
            ),
            ("data-partner", None, "Inkwell's data shelf", "Twenty books on databases.", "data"),
        ],
    ),
    (
        "inkwell",
        "inkwell",
        "Summer reading",
        "2.50",
        ["gardening", "photography", "film"],
        (0, 0),
        None,
        False,  # ran for the first week, then was switched off: its report stops
        [
            (
                "summer-feed",
                "feed",
                "Books for the garden bench",
                "Light reading for long days.",
                "summer",
            ),
        ],
    ),
)
STATS_DAYS = 14
# Impressions a day a unit gets in each zone, before noise and the weekly shape.
DAILY_IMPRESSIONS = {"feed": 900, "search": 250, "profile": 300, PARTNER_ZONE: 600}
WEEKDAY_SHAPE = (1.0, 1.05, 1.1, 1.05, 0.95, 0.7, 0.65)  # Monday first


def _advertiser_accounts(handles: list[str]) -> None:
    """The advertiser accounts, with the demo password. Its hash is copied
    from the first demo user, as profiles/demo.py hashes once: a PBKDF2 hash
    costs most of a second, and the demo seeds on start-up."""
    first = User.objects(handle=handles[0]).only("password").first()
    for handle, name in ADVERTISERS:
        if User.objects(handle=handle).count():
            User.objects(handle=handle).update_one(set__role="advertiser")
            continue
        User(handle=handle, name=name, password=first.password, role="advertiser").save(
            force_insert=True
        )
        events.user_created.send(sender=User, handle=handle)


def _unit_url(advertiser: str, path: str) -> str:
    return f"https://{advertiser}.example.org/{path}"


def _campaigns() -> list[tuple[Campaign, bool]]:
    made = []
    for owner, advertiser, name, ecpm, keywords, cap, budget, active, units in CAMPAIGNS:
        campaign = services.campaign_create(
            owner=owner,
            advertiser=advertiser,
            name=name,
            ecpm=Decimal(ecpm),
            keywords=keywords,
            cap_count=cap[0],
            cap_hours=cap[1],
            budget=Decimal(budget) if budget else None,
        )
        for ad_unit_id, zone, title, text, path in units:
            services.unit_add(
                campaign_id=campaign.id,
                ad_unit_id=ad_unit_id,
                site=settings.ADS_SITE_ID if zone else PARTNER_SITE,
                zone=zone or PARTNER_ZONE,
                title=title,
                text=text,
                url=_unit_url(advertiser, path),
            )
        services.campaign_activate(campaign_id=campaign.id)
        if not active:
            services.campaign_deactivate(campaign_id=campaign.id)
        made.append((Campaign.objects.get(id=campaign.id), active))
    return made


def _unit_days(campaign: Campaign, active: bool, rng: random.Random, t: datetime) -> list[dict]:
    """One campaign's counter rows, per unit and day, for the last STATS_DAYS
    days; today's only as far as the day has gone."""
    today = t.replace(hour=0, minute=0, second=0, microsecond=0)
    day_gone = (t - today).total_seconds() / 86400
    ctr = rng.uniform(0.004, 0.015)
    rows = []
    for unit in campaign.units:
        base = DAILY_IMPRESSIONS.get(unit.zone, 300) * rng.uniform(0.7, 1.3)
        for ago in range(STATS_DAYS - 1, -1, -1):
            if not active and ago < STATS_DAYS // 2:
                break  # switched off a week ago
            day = today - timedelta(days=ago)
            share = day_gone if ago == 0 else 1.0
            impressions = round(
                base * WEEKDAY_SHAPE[day.weekday()] * rng.uniform(0.8, 1.2) * share
            )
            key = day.strftime("%Y-%m-%d")
            rows.append(
                {
                    "_id": stats_row_id(campaign.id, unit.ad_unit_id, key),
                    "campaign_id": campaign.id,
                    "ad_unit_id": unit.ad_unit_id,
                    "day": key,
                    "impressions": impressions,
                    "views": round(impressions * rng.uniform(0.55, 0.75)),
                    "clicks": round(impressions * ctr * rng.uniform(0.6, 1.4)),
                }
            )
    return rows


def _stats(campaigns: list[tuple[Campaign, bool]], rng: random.Random) -> int:
    """The report counters of every campaign, in one bulk insert. A budgeted
    campaign's budget row (ads/serving/recording.py) holds the same impressions, so
    what it has spent and what its report shows agree."""
    t = now()
    docs = []
    for campaign, active in campaigns:
        rows = _unit_days(campaign, active, rng, t)
        docs += rows
        if campaign.budget is not None:
            row = budget_row_id(campaign.id)
            docs.append(
                {
                    "_id": row,
                    "campaign_id": row,
                    "day": BUDGET_ROW_DAY,
                    "ad_unit_id": BUDGET_ROW_DAY,
                    "impressions": sum(r["impressions"] for r in rows),
                }
            )
    if docs:
        AdStats._get_collection().insert_many(docs, ordered=False)
    return sum(1 for doc in docs if doc["day"] != BUDGET_ROW_DAY)


def seed_more(*, handles: list[str], seed: int, stdout: OutputWrapper | None = None) -> None:
    rng = random.Random(seed + 11)
    _advertiser_accounts(handles)
    campaigns = _campaigns()
    rows = _stats(campaigns, rng)
    if stdout:
        units = sum(len(c.units) for c, _ in campaigns)
        stdout.write(
            f"  ads: {len(ADVERTISERS)} advertisers, {len(campaigns)} campaigns, {units} units, "
            f"{rows} days of unit stats"
        )


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's stage for this app (socialsite/demo.py)."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
