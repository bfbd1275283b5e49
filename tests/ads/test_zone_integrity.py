"""Zones that cannot grow past their budget, campaign edits that cannot leave
stale or duplicate copies behind, and a deactivation the sweep finishes
(docs/ads-api.md#zones-and-their-budget, #campaign-management)."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from pymongo.errors import AutoReconnect

from ads import services, tasks
from ads.documents import AdZone, Campaign
from ads.services import zones
from socialsite.clock import now

FEED = ("socialsite", "feed")


def feed():
    return AdZone._get_collection().find_one({"site_id": "socialsite", "zone_id": "feed"}) or {}


def copies():
    return [(ad["campaign_id"], ad["ad_unit_id"], ad["ecpm"]) for ad in feed().get("ads", [])]


def unit(campaign_id, ad_unit_id, **fields):
    return services.unit_add(
        campaign_id=campaign_id,
        ad_unit_id=ad_unit_id,
        site="socialsite",
        zone="feed",
        title=fields.get("title", "A title"),
        text=fields.get("text", ""),
        url=fields.get("url", f"https://example.org/{ad_unit_id}"),
    )


def update(campaign, **fields):
    values = {
        "name": campaign.name,
        "ecpm": campaign.ecpm,
        "keywords": list(campaign.keywords),
        "cap_count": 0,
        "cap_hours": 0,
        "budget": None,
        "ends": None,
        **fields,
    }
    return services.campaign_update(campaign_id=campaign.id, **values)


# --- the byte budget ------------------------------------------------------------


def test_a_zone_at_its_byte_budget_refuses_clearly_and_nothing_turns_active(campaign, settings):
    first = campaign("first", ecpm="5")
    used = feed()["bytes"]
    assert used == sum(ad["size"] for ad in feed()["ads"]) > 0
    second = campaign("second", ecpm="9", active=False)
    needs = sum(c["size"] for c in zones.zone_copies(second)[FEED])
    # One byte short of the second campaign's copies: refused, and nothing changes.
    settings.AD_ZONE_MAX_BYTES = used + needs - 1
    with pytest.raises(services.AdsError, match="no room"):
        services.campaign_activate(campaign_id=second.id)
    assert Campaign.objects.get(id=second.id).status == "inactive"
    assert copies() == [(first.id, "first-1", 5.0)]
    assert feed()["bytes"] == used
    # Units that could never fit are refused before anything is written.
    with pytest.raises(services.AdsError, match="no room"):
        unit(first.id, "huge", text="x" * 200)
    assert [u.ad_unit_id for u in Campaign.objects.get(id=first.id).units] == ["first-1"]
    # Exactly at the budget: it fits.
    settings.AD_ZONE_MAX_BYTES = used + needs
    services.campaign_activate(campaign_id=second.id)
    assert Campaign.objects.get(id=second.id).status == "active"
    assert copies() == [(second.id, "second-1", 9.0), (first.id, "first-1", 5.0)]
    assert feed()["bytes"] == used + needs
    # An active campaign's new unit in the full zone is taken back; it serves on.
    with pytest.raises(services.AdsError, match="not added"):
        unit(first.id, "more")
    assert [u.ad_unit_id for u in Campaign.objects.get(id=first.id).units] == ["first-1"]
    assert Campaign.objects.get(id=first.id).status == "active"
    assert copies() == [(second.id, "second-1", 9.0), (first.id, "first-1", 5.0)]
    assert feed()["bytes"] == used + needs
    # Leaving the zone gives its bytes back.
    services.campaign_deactivate(campaign_id=first.id)
    assert feed()["bytes"] == needs


def test_activations_racing_for_the_last_bytes_cannot_both_land(campaign, settings):
    first = campaign("first")
    racers = [campaign(f"racer{i}", ecpm=str(10 + i), active=False) for i in range(8)]
    needs = max(sum(c["size"] for c in zones.zone_copies(r)[FEED]) for r in racers)
    settings.AD_ZONE_MAX_BYTES = feed()["bytes"] + needs  # room for one racer
    start = threading.Barrier(len(racers))
    refused = []

    def activate(campaign_id):
        start.wait()
        try:
            services.campaign_activate(campaign_id=campaign_id)
        except services.AdsError as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=activate, args=(r.id,)) for r in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(refused) == len(racers) - 1 and all("no room" in why for why in refused)
    [winner] = Campaign.objects(id__ne=first.id, status="active")
    assert sorted(cid for cid, _u, _e in copies()) == sorted([first.id, winner.id])
    assert feed()["bytes"] == sum(ad["size"] for ad in feed()["ads"]) <= settings.AD_ZONE_MAX_BYTES


def test_an_advertiser_has_a_limit_of_active_campaigns(campaign, settings):
    settings.ADS_MAX_ACTIVE_CAMPAIGNS = 2
    campaign("acme", "One")
    campaign("acme", "Two")
    third = campaign("acme", "Three", active=False)
    with pytest.raises(services.AdsError, match="at most 2 active campaigns"):
        services.campaign_activate(campaign_id=third.id)
    assert Campaign.objects.get(id=third.id).status == "inactive"
    assert third.id not in [cid for cid, _u, _e in copies()]
    # Another advertiser has a limit of their own.
    assert campaign("other", "One").status == "active"


# --- a deactivation cut between its two steps ---------------------------------------


def test_a_deactivation_cut_before_its_pull_is_finished_by_the_sweep(campaign, monkeypatch):
    made = campaign("acme")
    kept = campaign("kept", ecpm="1")
    original = zones.zones_pull

    def failover(*args, **kwargs):
        raise AutoReconnect("primary stepped down")

    monkeypatch.setattr(zones, "zones_pull", failover)
    with pytest.raises(AutoReconnect):
        services.campaign_deactivate(campaign_id=made.id)
    monkeypatch.setattr(zones, "zones_pull", original)
    assert Campaign.objects.get(id=made.id).status == "inactive"
    assert made.id in [cid for cid, _u, _e in copies()]  # still served: half done
    # Within the grace an edit may still be under way: the sweep waits.
    assert services.ads_pacing() == []
    later = now() + timedelta(minutes=5)
    swept = services.ads_pacing(now=later)
    assert copies() == [(kept.id, "kept-1", 1.0)]
    assert swept == [(made.id, "resumed")]
    assert "zones_pending" not in Campaign._get_collection().find_one({"_id": made.id})
    assert services.ads_pacing(now=later) == []


def test_the_periodic_task_finishes_half_done_changes(campaign, monkeypatch):
    made = campaign("acme")
    monkeypatch.setattr(
        zones, "zones_pull", lambda *a, **k: (_ for _ in ()).throw(AutoReconnect())
    )
    with pytest.raises(AutoReconnect):
        services.campaign_deactivate(campaign_id=made.id)
    monkeypatch.undo()
    Campaign._get_collection().update_one(
        {"_id": made.id}, {"$set": {"zones_pending": now() - timedelta(hours=1)}}
    )
    swept = tasks.ads_pacing.enqueue().return_value
    assert copies() == []
    assert swept == [[made.id, "resumed"]]


# --- edits of one campaign that overlap -----------------------------------------------


def overlap(monkeypatch, during):
    """Run `during()` inside the first zone push, before that push lands: the
    deterministic form of two requests editing one campaign at once."""
    original = zones.zones_push
    state = {"ran": False}

    def push(grouped):
        if not state["ran"]:
            state["ran"] = True
            during()
        return original(grouped)

    monkeypatch.setattr(zones, "zones_push", push)


def test_an_older_edit_landing_last_leaves_no_stale_or_duplicate_copy(campaign, monkeypatch):
    made = campaign("acme", ecpm="5", units=[("a", "socialsite", "feed")])
    overlap(monkeypatch, lambda: update(made, ecpm=Decimal("7")))
    update(made, ecpm=Decimal("6"))
    # The edit that read second (ecpm 7) wrote the zones last in effect: one copy, its price.
    assert Campaign.objects.get(id=made.id).ecpm == Decimal("7")
    assert copies() == [(made.id, "a", 7.0)]
    assert feed()["bytes"] == sum(ad["size"] for ad in feed()["ads"])
    assert Campaign.objects.get(id=made.id).zones_pending is None


def test_a_unit_removed_during_an_edit_stays_removed(campaign, monkeypatch):
    made = campaign("acme", units=[("a", "socialsite", "feed"), ("b", "socialsite", "feed")])
    overlap(monkeypatch, lambda: services.unit_remove(campaign_id=made.id, ad_unit_id="b"))
    update(made, ecpm=Decimal("3"))
    assert [u.ad_unit_id for u in Campaign.objects.get(id=made.id).units] == ["a"]
    assert copies() == [(made.id, "a", 3.0)]


def test_a_deactivation_during_an_activation_leaves_one_consistent_state(campaign, monkeypatch):
    made = campaign("acme", active=False)
    overlap(monkeypatch, lambda: services.campaign_deactivate(campaign_id=made.id))
    services.campaign_activate(campaign_id=made.id)
    monkeypatch.undo()
    # The deactivation found the campaign not yet active and changed nothing;
    # the activation then finished: active, one copy, in step.
    assert Campaign.objects.get(id=made.id).status == "active"
    assert copies() == [(made.id, "acme-1", 100.0)]
    services.campaign_deactivate(campaign_id=made.id)
    assert copies() == []


def test_replaying_one_version_is_idempotent(campaign):
    made = campaign("acme", units=[("a", "socialsite", "feed"), ("b", "socialsite", "feed")])
    again = zones.zone_copies(Campaign.objects.get(id=made.id))
    assert zones.zones_push(again) == [FEED]  # this version is there: refused, not doubled
    assert len(copies()) == 2
