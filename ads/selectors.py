"""Reads for the campaign management pages (docs/ads-api.md).

A campaign list is a keyset page of the `created` index (admins) or the
`owner_created` index (advertisers). A report is one read of `ad_stats` on
the `campaign_day` index, newest days first and bounded, so a campaign that
has run for years still costs one round trip.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from ads.documents import SLUG_REGEX, AdStats, Campaign
from socialsite.clock import aware
from socialsite.cursors import EPOCH, MAX_MILLIS, ONE_MS

if TYPE_CHECKING:
    from profiles.documents import User

PAGE = 25
#: Report rows (one per unit and day) read at most: one round trip's batch.
REPORT_MAX_ROWS = 3000
CENT = Decimal("0.01")
SLUG = SLUG_REGEX.strip("^$")
CAMPAIGN_ID = re.compile(rf"^{SLUG}:{SLUG}$")
CURSOR = re.compile(r"^([0-9]{1,15})_(.{3,81})$")
LIST_FIELDS = ("advertiser", "name", "owner", "ecpm", "keywords", "status", "stopped", "created")


def parse_campaign_id(value: object) -> str | None:
    """`<advertiser>:<slug>` as the documents allow it, or None: a path value
    never reaches a query unless it has that shape."""
    if not isinstance(value, str) or len(value) > 81:
        return None
    return value if CAMPAIGN_ID.fullmatch(value) else None


def parse_unit_id(value: object) -> str | None:
    if not isinstance(value, str) or len(value) > 40:
        return None
    return value if re.fullmatch(SLUG_REGEX, value) else None


def managed_campaign(user: "User", campaign_id: str) -> Campaign | None:
    """The campaign if `user` may manage it: admins any, others their own."""
    campaign = Campaign.objects(id=campaign_id).first()
    if campaign is None or not (user.is_admin or campaign.owner == user.handle):
        return None
    return campaign


# --- the list -----------------------------------------------------------------


@dataclass
class CampaignPage:
    items: list[Campaign]
    next_cursor: str | None


def campaigns(user: "User", before: str | None = None) -> CampaignPage:
    """Newest first: every campaign for an admin, their own for an advertiser."""
    query: dict = {} if user.is_admin else {"owner": user.handle}
    start = _decode(before)
    if start is not None:
        created, campaign_id = start
        beyond = {
            "$or": [
                {"created": {"$lt": created}},
                {"created": created, "_id": {"$lt": campaign_id}},
            ]
        }
        # The plain bound on `created` is what the index range walks.
        query = {"$and": [*([query] if query else []), {"created": {"$lte": created}}, beyond]}
    rows = list(
        Campaign.objects(__raw__=query)
        .only(*LIST_FIELDS)
        .order_by("-created", "-id")
        .limit(PAGE + 1)
    )
    more, rows = len(rows) > PAGE, rows[:PAGE]
    return CampaignPage(rows, _encode(rows[-1]) if more else None)


def _encode(campaign: Campaign) -> str:
    return f"{(aware(campaign.created) - EPOCH) // ONE_MS}_{campaign.id}"


def _decode(raw: object) -> tuple[datetime, str] | None:
    """A cursor's (created, id), or None for anything malformed (the first page)."""
    if not isinstance(raw, str) or len(raw) > 100:
        return None
    match = CURSOR.fullmatch(raw)
    if match is None or int(match[1]) > MAX_MILLIS or parse_campaign_id(match[2]) is None:
        return None
    return EPOCH + int(match[1]) * ONE_MS, match[2]


# --- the report ---------------------------------------------------------------


def spend(impressions: int, ecpm: Decimal) -> Decimal:
    """Impressions x eCPM / 1000, to the cent (half up)."""
    return (Decimal(impressions) * ecpm / 1000).quantize(CENT, rounding=ROUND_HALF_UP)


def ctr(clicks: int, impressions: int) -> Decimal | None:
    """Clicks per 100 impressions to 2 places; None without impressions."""
    if not impressions:
        return None
    return (Decimal(clicks) * 100 / impressions).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass
class Line:
    """Counters of one unit on one day, of one day, of one unit, or of all."""

    day: str = ""
    ad_unit_id: str = ""
    impressions: int = 0
    views: int = 0
    clicks: int = 0
    spend: Decimal = Decimal("0.00")
    ctr: Decimal | None = None

    def add(self, impressions: int, views: int, clicks: int) -> None:
        self.impressions += impressions
        self.views += views
        self.clicks += clicks

    def price(self, ecpm: Decimal) -> "Line":
        self.spend = spend(self.impressions, ecpm)
        self.ctr = ctr(self.clicks, self.impressions)
        return self


@dataclass
class Report:
    rows: list[Line]  # per unit and day, oldest day first: the CSV
    days: list[Line]  # per day, oldest first: the table and the chart
    units: list[Line]  # per unit, by id
    total: Line
    truncated: bool = False  # older days left out to stay one bounded read
    ecpm: Decimal = field(default_factory=Decimal)


def report(campaign: Campaign) -> Report:
    """The campaign's counters per unit and day, per day, per unit and in all.

    One read on `campaign_day`, newest first with a limit; when the limit
    cuts through a day, that oldest day is dropped whole rather than shown
    short. Spend is priced at the campaign's current eCPM.
    """
    cursor = (
        AdStats._get_collection()
        .find(
            {"campaign_id": campaign.id},
            {"day": 1, "ad_unit_id": 1, "impressions": 1, "views": 1, "clicks": 1},
        )
        .sort([("day", -1), ("ad_unit_id", -1)])
        .limit(REPORT_MAX_ROWS + 1)
        .batch_size(REPORT_MAX_ROWS + 1)
    )
    found = list(cursor)
    truncated = len(found) > REPORT_MAX_ROWS
    if truncated:
        oldest = found[REPORT_MAX_ROWS]["day"]
        found = [row for row in found[:REPORT_MAX_ROWS] if row["day"] != oldest]
    found.reverse()
    ecpm = Decimal(campaign.ecpm)
    rows: list[Line] = []
    days: dict[str, Line] = {}
    units: dict[str, Line] = {}
    total = Line()
    for row in found:
        counts = (int(row.get(k) or 0) for k in ("impressions", "views", "clicks"))
        impressions, views, clicks = counts
        line = Line(day=row["day"], ad_unit_id=row["ad_unit_id"])
        for target in (line, days.setdefault(line.day, Line(day=line.day)), total):
            target.add(impressions, views, clicks)
        units.setdefault(line.ad_unit_id, Line(ad_unit_id=line.ad_unit_id)).add(
            impressions, views, clicks
        )
        rows.append(line.price(ecpm))
    return Report(
        rows=rows,
        days=[line.price(ecpm) for line in days.values()],
        units=[units[key].price(ecpm) for key in sorted(units)],
        total=total.price(ecpm),
        truncated=truncated,
        ecpm=ecpm,
    )


def campaigns_export(handle: str) -> Iterator[dict]:
    """The campaigns the person manages, with their units and daily counts,
    for their export (docs/accounts.md#export)."""
    stats = AdStats._get_collection()
    for campaign in Campaign._get_collection().find({"owner": handle}).sort("created", -1):
        rows = stats.find({"campaign_id": campaign["_id"]}, {"_id": 0, "campaign_id": 0})
        campaign["id"] = campaign.pop("_id")
        yield {**campaign, "stats": list(rows.sort("day", 1))}
