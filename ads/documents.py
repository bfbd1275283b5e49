"""The ad network's collections (*Online Advertising Networks*;
docs/ads-api.md).

`campaign` is the system of record. `ad_zone` is the seed's `ad.zone`: the
serving copy of the active units, one document per (site, zone), sorted by
eCPM so choosing is one read. `ad_user` is the seed's `ad.user`, made bounded:
per capped campaign only the times its cap's sliding window needs, so a
frequency cap is one atomic conditional update. `ad_offer` names one served ad for 2 hours, so
views and clicks count only for ads that were really served. `ad_stats`
holds per-day counters for the reports.
"""

import mongoengine as me

from socialsite.clock import now

CAMPAIGN_STATUSES = ("active", "inactive")
# Site, zone and ad unit ids: short, lowercase, safe in URLs and keys.
SLUG_REGEX = r"^[a-z0-9][a-z0-9_-]{0,39}$"
OFFER_TTL_SECONDS = 2 * 60 * 60
BUDGET_ROW_DAY = "all"
VIEWER_TTL_SECONDS = 90 * 24 * 60 * 60


class AdUnit(me.EmbeddedDocument):
    """One creative, shown in one zone of one site."""

    ad_unit_id = me.StringField(required=True, regex=SLUG_REGEX)
    site = me.StringField(required=True, regex=SLUG_REGEX)
    zone = me.StringField(required=True, regex=SLUG_REGEX)
    title = me.StringField(required=True, max_length=80)
    text = me.StringField(default="", max_length=200)
    url = me.StringField(required=True, max_length=2000)  # http(s) only: checked by the service
    image = me.StringField(default="", max_length=2000)  # http(s) url, or ""


class Campaign(me.Document):
    """An advertiser's campaign: price, targeting, caps, pacing and its units.

    Not sharded: one document per campaign stays small next to the serving
    collections, and the management pages list it by owner.
    """

    # "<advertiser>:<slug>", the form of *Online Advertising Networks*
    id = me.StringField(primary_key=True)
    advertiser = me.StringField(required=True, regex=SLUG_REGEX)
    name = me.StringField(required=True, max_length=80)
    owner = me.StringField(required=True)  # the handle that manages it
    ecpm = me.DecimalField(required=True, min_value=0, precision=2)
    keywords = me.ListField(me.StringField(max_length=40), default=list)
    cap_count = me.IntField(min_value=0, default=0)  # 0 = no cap
    cap_hours = me.IntField(min_value=0, default=0)
    budget = me.DecimalField(min_value=0, precision=2, null=True)
    ends = me.DateTimeField(null=True)
    status = me.StringField(choices=CAMPAIGN_STATUSES, default="inactive")
    # Why the campaign last stopped: "", "deactivated", "ended", "budget".
    stopped = me.StringField(default="")
    units = me.ListField(me.EmbeddedDocumentField(AdUnit), default=list)
    created = me.DateTimeField(default=now)
    updated = me.DateTimeField(default=now)
    # Every edit takes the next version; the zone copies carry it, so edits
    # that overlap cannot leave stale or duplicate copies (ads/services/zones.py).
    version = me.IntField(default=0)
    # Set by the edit that changes the zones, unset when they are in step:
    # the sweeper finishes a campaign whose edit stopped half way.
    zones_pending = me.DateTimeField()

    meta = {
        "collection": "campaign",
        "indexes": [
            {"fields": ["owner", "-created", "-_id"], "name": "owner_created"},
            {"fields": ["-created", "-_id"], "name": "created"},
            # Pacing's sweep: active campaigns that have an end or a budget.
            {"fields": ["status", "ends"], "name": "status_ends"},
            # The active-campaign limit counts one advertiser's active campaigns.
            {"fields": ["advertiser", "status"], "name": "advertiser_status"},
            # The sweeper's half-done zone changes (absent once done).
            {"fields": ["zones_pending"], "sparse": True, "name": "zones_pending"},
        ],
        "auto_create_index": False,
    }


class ZoneAd(me.EmbeddedDocument):
    """The serving copy of one active unit: everything choosing needs, so a
    decision reads the zone and the viewer and nothing else."""

    campaign_id = me.StringField(required=True)
    advertiser = me.StringField(required=True)
    owner = me.StringField(required=True)
    ad_unit_id = me.StringField(required=True)
    # A float copy of the campaign's Decimal eCPM: the array's sort key.
    ecpm = me.FloatField(required=True)
    keywords = me.ListField(me.StringField(), default=list)
    cap_count = me.IntField(default=0)
    cap_hours = me.IntField(default=0)
    ends = me.DateTimeField(null=True)
    # Impressions the budget buys (budget x 1000 / eCPM); None = no budget.
    max_impressions = me.IntField(null=True)
    title = me.StringField(required=True)
    text = me.StringField(default="")
    url = me.StringField(required=True)
    image = me.StringField(default="")
    version = me.IntField(default=0)  # the campaign's version it was copied from
    size = me.IntField(default=0)  # its bytes, counted in the zone's `bytes`


class AdZone(me.Document):
    """Seed 001's `ad.zone`: the active units of one zone, best eCPM first."""

    site_id = me.StringField(required=True, regex=SLUG_REGEX)
    zone_id = me.StringField(required=True, regex=SLUG_REGEX)
    ads = me.ListField(me.EmbeddedDocumentField(ZoneAd), default=list)
    # The sum of the copies' `size`: a push needs room under AD_ZONE_MAX_BYTES.
    bytes = me.IntField(default=0)

    meta = {
        "collection": "ad_zone",
        "indexes": [
            {"fields": ["site_id", "zone_id"], "unique": True, "name": "site_zone"},
            # Deactivation's multi-document $pull finds every zone of a campaign.
            {"fields": ["ads.campaign_id"], "name": "ads_campaign"},
        ],
        # Seed 001: every decision reads one zone by (site, zone).
        "shard_key": ("site_id", "zone_id"),
        "auto_create_index": False,
    }


class AdEvent(me.EmbeddedDocument):
    """A recent impression or click, for "why this ad" and reports."""

    campaign_id = me.StringField(required=True)
    ad_unit_id = me.StringField(required=True)
    date = me.DateTimeField(required=True)


class AdUser(me.Document):
    """Seed 001's `ad.user`: what one viewer has seen, bounded.

    `_id` is the signed-in handle or the random `ad_viewer` cookie. `caps`
    maps each capped campaign id to `{"h": cap hours, "t": [the times of the
    last cap_count impressions, oldest first]}`: a sliding window per
    campaign, and a map, not an array, so one decision checks and counts
    several campaigns with plain conditional operators on
    `caps.<campaign id>` (ads/serving/recording.py). Entries past their window are
    pruned; `recent` and `clicks` are `$slice`-capped.
    """

    id = me.StringField(primary_key=True)
    caps = me.DictField(default=dict)
    recent = me.ListField(me.EmbeddedDocumentField(AdEvent), default=list)
    clicks = me.ListField(me.EmbeddedDocumentField(AdEvent), default=list)
    last_seen = me.DateTimeField(default=now)

    meta = {
        "collection": "ad_user",
        "indexes": [
            {
                "fields": ["last_seen"],
                "expireAfterSeconds": VIEWER_TTL_SECONDS,
                "name": "last_seen_ttl",
            },
        ],
        # Viewers are read and written by _id alone; hashed so new cookies spread.
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class AdOffer(me.Document):
    """One served ad: what a view or a click must name to count."""

    id = me.StringField(primary_key=True)  # random, unguessable (secrets.token_urlsafe)
    viewer = me.StringField(required=True)
    campaign_id = me.StringField(required=True)
    ad_unit_id = me.StringField(required=True)
    owner = me.StringField(required=True)  # clicks by the campaign's owner are not counted
    url = me.StringField(required=True)  # the unit's stored url: the only redirect target
    site = me.StringField(required=True)
    zone = me.StringField(required=True)
    bot = me.BooleanField(default=False)  # served to a known crawler: never counted
    created = me.DateTimeField(default=now)
    viewed = me.BooleanField(default=False)
    clicked = me.BooleanField(default=False)

    meta = {
        "collection": "ad_offer",
        "indexes": [
            {
                "fields": ["created"],
                "expireAfterSeconds": OFFER_TTL_SECONDS,
                "name": "created_ttl",
            },
            # Erasure: the offers naming a person, as viewer or as owner.
            {"fields": ["viewer"], "name": "viewer"},
            {"fields": ["owner"], "name": "owner"},
        ],
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class AdStats(me.Document):
    """Counters per (campaign, ad unit, day); `_id` is "<campaign>|<unit>|<day>"
    so a counter is one `$inc` upsert by `_id` (retried once on E11000).

    A campaign with a budget also has one budget row (`budget_row_id`): its
    impressions in all, counted by a conditional upsert that fails once the
    budget's impressions are reached. Its `campaign_id` is the row id, never
    a campaign's, so reports that read `{campaign_id: <id>}` never see it.
    """

    id = me.StringField(primary_key=True)
    campaign_id = me.StringField(required=True)
    ad_unit_id = me.StringField(required=True)
    day = me.StringField(required=True)  # YYYY-MM-DD, UTC
    impressions = me.IntField(default=0)
    views = me.IntField(default=0)  # viewable impressions (the view beacon)
    clicks = me.IntField(default=0)

    meta = {
        "collection": "ad_stats",
        "indexes": [
            {"fields": ["campaign_id", "day", "ad_unit_id"], "name": "campaign_day"},
        ],
        # Reports read one campaign's days: its rows stay together.
        "shard_key": ("campaign_id", "day", "ad_unit_id"),
        "auto_create_index": False,
    }


def stats_row_id(campaign_id: str, ad_unit_id: str, day: str) -> str:
    return f"{campaign_id}|{ad_unit_id}|{day}"


def budget_row_id(campaign_id: str) -> str:
    """The budget row's `_id` (and `campaign_id`): no campaign id has a "|"."""
    return f"{campaign_id}|budget"
