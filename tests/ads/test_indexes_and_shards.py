"""The ad network's collections are found by `ensure_indexes` and `shard_plan`
like every other app's (socialsite/indexes.py discovers `<app>.documents`),
with the indexes and shard keys docs/ads-api.md fixes."""

from io import StringIO

import pytest
from django.core.management import call_command
from pymongo.errors import DuplicateKeyError

from ads.documents import (
    OFFER_TTL_SECONDS,
    VIEWER_TTL_SECONDS,
    AdOffer,
    AdStats,
    AdUser,
    AdZone,
    Campaign,
)
from socialsite import indexes, mongo
from socialsite.management.commands import shard_plan

AD_DOCUMENTS = (Campaign, AdZone, AdUser, AdOffer, AdStats)
AD_COLLECTIONS = {"campaign", "ad_zone", "ad_user", "ad_offer", "ad_stats"}
# docs/ads-api.md, as mongosh spells them. `campaign` stays unsharded.
AD_SHARD_KEYS = {
    # Seed 001: every decision reads one zone by (site, zone).
    "ad_zone": "{site_id: 1, zone_id: 1}",
    # Read and written by `_id` alone; random cookies and offer ids spread when hashed.
    "ad_user": '{_id: "hashed"}',
    "ad_offer": '{_id: "hashed"}',
    # A report reads one campaign's days, so its rows stay in one chunk range.
    "ad_stats": "{campaign_id: 1, day: 1, ad_unit_id: 1}",
}


def _index_keys(info: dict) -> dict[str, list[str]]:
    return {name: [field for field, _ in spec["key"]] for name, spec in info.items()}


def test_every_ad_collection_is_discovered():
    found = {document._get_collection_name() for document in indexes.all_documents()}
    assert found >= AD_COLLECTIONS


def test_ensure_indexes_creates_the_ad_indexes_once():
    for document in AD_DOCUMENTS:
        document._get_collection().drop()
    first, second = StringIO(), StringIO()
    call_command("ensure_indexes", stdout=first)
    call_command("ensure_indexes", stdout=second)
    for created in (
        "campaign.owner_created",
        "campaign.created",
        "campaign.status_ends",
        "ad_zone.site_zone",
        "ad_zone.ads_campaign",
        "ad_user.last_seen_ttl",
        "ad_offer.created_ttl",
        "ad_stats.campaign_day",
    ):
        assert f"created {created}\n" in first.getvalue()
    assert second.getvalue().startswith("0 index(es) created")

    zone = AdZone._get_collection().index_information()
    assert _index_keys(zone)["site_zone"] == ["site_id", "zone_id"]
    assert zone["site_zone"]["unique"] is True
    assert _index_keys(zone)["ads_campaign"] == ["ads.campaign_id"]
    viewer = AdUser._get_collection().index_information()["last_seen_ttl"]
    assert viewer["expireAfterSeconds"] == VIEWER_TTL_SECONDS == 90 * 24 * 3600
    offer = AdOffer._get_collection().index_information()["created_ttl"]
    assert offer["expireAfterSeconds"] == OFFER_TTL_SECONDS == 2 * 3600
    stats = AdStats._get_collection().index_information()
    assert _index_keys(stats)["campaign_day"] == ["campaign_id", "day", "ad_unit_id"]


def test_one_zone_document_per_site_and_zone():
    zones = AdZone._get_collection()
    zones.insert_one({"site_id": "socialsite", "zone_id": "feed", "ads": []})
    zones.insert_one({"site_id": "socialsite", "zone_id": "search", "ads": []})
    zones.insert_one({"site_id": "partner", "zone_id": "feed", "ads": []})
    with pytest.raises(DuplicateKeyError):
        zones.insert_one({"site_id": "socialsite", "zone_id": "feed", "ads": []})
    assert zones.count_documents({}) == 3


def _printed_plan() -> tuple[dict[str, str], list[str], str, str]:
    out, err = StringIO(), StringIO()
    call_command("shard_plan", stdout=out, stderr=err)
    db = mongo.database().name
    lines = out.getvalue().splitlines()
    keys = {
        line.split(f'"{db}.', 1)[1].split('"', 1)[0]: line.split('", ', 1)[1][:-1]
        for line in lines
        if line.startswith("sh.shardCollection(")
    }
    return keys, lines, db, err.getvalue()


def test_shard_plan_prints_the_ad_keys():
    keys, lines, db, err = _printed_plan()
    assert {c: k for c, k in keys.items() if c in AD_COLLECTIONS} == AD_SHARD_KEYS
    # Hashed keys get their index made first: shardCollection makes it only
    # on an empty collection.
    for collection, key in AD_SHARD_KEYS.items():
        shard = lines.index(f'sh.shardCollection("{db}.{collection}", {key})')
        create = f'db.getSiblingDB("{db}").{collection}.createIndex({key})'
        assert (lines[shard - 1] == create) is ("hashed" in key), collection
    unsharded = next(line for line in lines if line.startswith("// unsharded"))
    assert "campaign" in unsharded.split(": ", 1)[1].split(", ")
    assert not [line for line in err.splitlines() if "ad_" in line or "campaign" in line]


def test_ad_shard_keys_have_no_problems():
    """Ranged keys lead an index; the unique (site_id, zone_id) starts with its key."""
    steps = {collection: problems for collection, _, problems in shard_plan.plan()}
    assert {c: steps[c] for c in AD_SHARD_KEYS} == {c: [] for c in AD_SHARD_KEYS}
    assert "campaign" not in steps


def test_a_unique_index_not_led_by_the_zone_key_would_be_reported(monkeypatch):
    """The check above can fail: a unique index on the zone id alone is flagged."""
    specs = AdZone._meta["index_specs"] + [{"fields": [("zone_id", 1)], "unique": True}]
    monkeypatch.setitem(AdZone._meta, "index_specs", specs)
    problems = dict((c, p) for c, _, p in shard_plan.plan())["ad_zone"]
    assert problems == ["unique index ['zone_id'] does not start with the shard key"]
