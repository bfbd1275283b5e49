"""Campaigns and their zones (docs/ads-api.md, *Online Advertising Networks* Design 1): activation
pushes units in eCPM order, deactivation is one multi-document `$pull`,
edits follow into the zones, and bad input changes nothing."""

import threading
from datetime import timedelta
from decimal import Decimal

import pytest

from ads import services
from ads.documents import AdZone, Campaign
from ads.services import zones
from socialsite.clock import now

SITES = [
    ("u-feed", "socialsite", "feed"),
    ("u-search", "socialsite", "search"),
    ("u-partner", "partner", "sidebar"),
]


def zone_order(site, zone):
    doc = AdZone.objects(site_id=site, zone_id=zone).first()
    return [(ad.campaign_id, ad.ad_unit_id) for ad in doc.ads] if doc else []


def campaigns_in(site, zone):
    return [campaign_id for campaign_id, _unit in zone_order(site, zone)]


def test_deactivation_is_one_pull_and_leaves_every_zone(campaign, round_trips):
    target = campaign("target", ecpm="200", units=SITES)
    other = campaign("other", ecpm="100", units=SITES)
    for _unit, site, zone in SITES:
        assert campaigns_in(site, zone) == [target.id, other.id]
    with round_trips() as c:
        assert zones.zones_pull([target.id]) == 3
    assert c.total == 1, c.commands
    for _unit, site, zone in SITES:
        assert campaigns_in(site, zone) == [other.id]


def test_campaign_deactivate_is_flat_in_zones(campaign, round_trips):
    one = campaign("one", units=SITES[:1])
    three = campaign("three", units=SITES)
    counts = []
    for made in (one, three):
        with round_trips() as c:
            assert services.campaign_deactivate(campaign_id=made.id) is True
        counts.append(c.total)
    # The status write (with its mark), the one $pull however many zones,
    # and clearing the mark.
    assert counts == [3, 3]
    assert Campaign.objects.get(id=three.id).status == "inactive"
    assert Campaign.objects.get(id=three.id).stopped == "deactivated"
    assert all(campaigns_in(site, zone) == [] for _u, site, zone in SITES)
    assert services.campaign_deactivate(campaign_id=three.id) is False


def test_activation_restores_ecpm_order(campaign):
    campaign("high", ecpm="300", units=SITES)
    middle = campaign("middle", ecpm="200", units=SITES)
    campaign("low", ecpm="100", units=SITES)
    expected = ["high:spring-sale", "middle:spring-sale", "low:spring-sale"]
    services.campaign_deactivate(campaign_id=middle.id)
    assert campaigns_in("socialsite", "feed") == [expected[0], expected[2]]
    services.campaign_activate(campaign_id=middle.id)
    for _unit, site, zone in SITES:
        assert campaigns_in(site, zone) == expected
    # Activating twice keeps one copy of each unit.
    services.campaign_activate(campaign_id=middle.id)
    assert campaigns_in("partner", "sidebar") == expected


def test_units_of_one_campaign_in_one_zone(campaign):
    made = campaign("acme", units=[("b", "socialsite", "feed"), ("a", "socialsite", "feed")])
    assert zone_order("socialsite", "feed") == [(made.id, "a"), (made.id, "b")]


def test_editing_ecpm_and_keywords_updates_the_zones(campaign):
    first = campaign("first", ecpm="300", keywords=["tea"], units=SITES)
    second = campaign("second", ecpm="200", units=SITES)
    services.campaign_update(
        campaign_id=first.id,
        name="Spring sale",
        ecpm=Decimal("150"),
        keywords=["Coffee", "beans"],
        cap_count=2,
        cap_hours=6,
        budget=Decimal("30"),
        ends=None,
    )
    for _unit, site, zone in SITES:
        assert campaigns_in(site, zone) == [second.id, first.id]
    copy = AdZone.objects.get(site_id="partner", zone_id="sidebar").ads[1]
    assert (copy.ecpm, copy.keywords) == (150.0, ["coffee", "beans"])
    assert (copy.cap_count, copy.cap_hours, copy.max_impressions) == (2, 6, 200)


def test_editing_an_inactive_campaign_leaves_zones_alone(campaign):
    made = campaign("acme", active=False)
    services.campaign_update(
        campaign_id=made.id,
        name="Renamed",
        ecpm=Decimal("5"),
        keywords=[],
        cap_count=0,
        cap_hours=0,
        budget=None,
        ends=None,
    )
    assert AdZone.objects.count() == 0
    assert Campaign.objects.get(id=made.id).name == "Renamed"


def test_units_added_and_removed_while_active(campaign):
    made = campaign("acme", units=SITES[:1])
    services.unit_add(
        campaign_id=made.id,
        ad_unit_id="late",
        site="socialsite",
        zone="feed",
        title="Late",
        text="",
        url="https://example.org/late",
    )
    assert zone_order("socialsite", "feed") == [(made.id, "late"), (made.id, "u-feed")]
    services.unit_remove(campaign_id=made.id, ad_unit_id="u-feed")
    assert zone_order("socialsite", "feed") == [(made.id, "late")]
    assert [u.ad_unit_id for u in Campaign.objects.get(id=made.id).units] == ["late"]


def test_campaign_ids_are_advertiser_and_slug_made_unique(campaign):
    assert campaign("acme", "Spring Sale!", active=False).id == "acme:spring-sale"
    assert campaign("acme", "spring sale", active=False).id == "acme:spring-sale-2"
    assert campaign("acme", "Spring  sale", active=False).id == "acme:spring-sale-3"
    assert campaign("acme", "¿¡", active=False).id == "acme:campaign"


def test_keywords_are_normalised():
    made = services.campaign_create(
        owner="o",
        advertiser="acme",
        name="n",
        ecpm=Decimal("1"),
        keywords=["Tea, coffee", "TEA", " beans  "],
    )
    assert made.keywords == ["tea", "coffee", "beans"]


BAD_CAMPAIGNS = [
    ({"ecpm": Decimal("-1")}, "negative"),
    ({"ecpm": Decimal("NaN")}, "number"),
    ({"cap_count": 3}, "both"),
    ({"cap_hours": 3}, "both"),
    ({"keywords": [f"k{i}" for i in range(services.MAX_KEYWORDS + 1)]}, "keywords"),
    ({"keywords": ["x" * 41]}, "40"),
    ({"keywords": ["<script>"]}, "keyword"),
    ({"budget": Decimal("-5")}, "negative"),
    ({"name": "   "}, "name"),
    ({"advertiser": "Not A Slug"}, "advertiser"),
]


@pytest.mark.parametrize(("change", "says"), BAD_CAMPAIGNS)
def test_bad_campaigns_raise_and_change_nothing(change, says):
    fields = {
        "owner": "o",
        "advertiser": "acme",
        "name": "Sale",
        "ecpm": Decimal("1"),
        "keywords": [],
        **change,
    }
    with pytest.raises(services.AdsError, match=says):
        services.campaign_create(**fields)
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "ftp://example.org/",
        "//example.org/",
        "https://",
        "data:,x",
        "https://exa mple.org/",
    ],
)
def test_units_need_http_urls_and_change_nothing(campaign, url):
    made = campaign("acme", active=False, units=[])
    with pytest.raises(services.AdsError, match="http"):
        services.unit_add(
            campaign_id=made.id,
            ad_unit_id="u",
            site="socialsite",
            zone="feed",
            title="T",
            text="",
            url=url,
        )
    with pytest.raises(services.AdsError, match="http"):
        services.unit_add(
            campaign_id=made.id,
            ad_unit_id="u",
            site="socialsite",
            zone="feed",
            title="T",
            text="",
            url="https://example.org/",
            image=url,
        )
    assert Campaign.objects.get(id=made.id).units == []


def test_unit_ids_are_unique_per_campaign(campaign):
    made = campaign("acme", units=[("u1", "socialsite", "feed")])
    with pytest.raises(services.AdsError, match="already"):
        services.unit_add(
            campaign_id=made.id,
            ad_unit_id="u1",
            site="partner",
            zone="top",
            title="T",
            text="",
            url="https://example.org/",
        )
    assert len(Campaign.objects.get(id=made.id).units) == 1
    assert AdZone.objects(site_id="partner").count() == 0


def test_activation_needs_units_and_a_future_end(campaign):
    empty = campaign("empty", units=[], active=False)
    with pytest.raises(services.AdsError, match="unit"):
        services.campaign_activate(campaign_id=empty.id)
    ended = campaign("ended", active=False, ends=now() - timedelta(minutes=1))
    with pytest.raises(services.AdsError, match="ended"):
        services.campaign_activate(campaign_id=ended.id)
    assert Campaign.objects(status="active").count() == 0
    assert AdZone.objects.count() == 0


def test_unknown_campaigns_raise():
    with pytest.raises(services.AdsError):
        services.campaign_activate(campaign_id="nobody:nothing")
    with pytest.raises(services.AdsError):
        services.campaign_deactivate(campaign_id="nobody:nothing")


def test_racing_first_pushes_into_a_new_zone_all_land(campaign):
    """Activations that create the same zone at once: the losers' upserts hit
    E11000 on (site_id, zone_id) and are retried once, so none is lost."""
    made = [campaign(f"adv{i}", ecpm=str(10 + i), active=False) for i in range(8)]
    start = threading.Barrier(len(made))
    errors = []

    def activate(campaign_id):
        try:
            start.wait()
            services.campaign_activate(campaign_id=campaign_id)
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=activate, args=(c.id,)) for c in made]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert AdZone.objects.count() == 1
    assert campaigns_in("socialsite", "feed") == [c.id for c in reversed(made)]


def test_a_deactivation_racing_a_push_wins(campaign, monkeypatch):
    """The deactivation's `$pull` runs after unit_add read the status but
    before its push: the campaign document decides, so the unit is pulled."""
    made = campaign("acme")
    original = zones.zones_push

    def deactivated_first(grouped):
        services.campaign_deactivate(campaign_id=made.id)
        return original(grouped)

    monkeypatch.setattr(zones, "zones_push", deactivated_first)
    services.unit_add(
        campaign_id=made.id,
        ad_unit_id="late",
        site="socialsite",
        zone="feed",
        title="Late",
        text="",
        url="https://example.org/late",
    )
    assert campaigns_in("socialsite", "feed") == []
    assert Campaign.objects.get(id=made.id).status == "inactive"


def test_a_bad_edit_raises_and_changes_nothing(campaign):
    made = campaign("acme", ecpm="20", keywords=["tea"])
    with pytest.raises(services.AdsError, match="negative"):
        services.campaign_update(
            campaign_id=made.id,
            name="Changed",
            ecpm=Decimal("-3"),
            keywords=["coffee"],
            cap_count=0,
            cap_hours=0,
            budget=None,
            ends=None,
        )
    kept = Campaign.objects.get(id=made.id)
    assert (kept.name, kept.ecpm, kept.keywords) == ("Spring sale", Decimal("20"), ["tea"])
    copy = AdZone.objects.get(site_id="socialsite", zone_id="feed").ads[0]
    assert (copy.ecpm, copy.keywords) == (20.0, ["tea"])
