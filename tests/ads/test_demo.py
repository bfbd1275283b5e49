"""The demo's ads (issue 11, item 11): advertisers, campaigns whose keywords meet
the demo people's interests, units in Socialsite's three zones and on a
partner site, two weeks of report counters, and the `admin` account
managing it all."""

import csv
import io
import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from ads import demo, services
from ads.documents import BUDGET_ROW_DAY, AdStats, AdZone, Campaign, budget_row_id
from ads.serving.choosing import choose_ads
from profiles.demo import DEMO_PASSWORD, INTERESTS
from profiles.documents import Profile, User
from socialsite.clock import now
from tests.conftest import login_client

INTEREST_WORDS = {word for interest in INTERESTS for word in interest.split()}


@pytest.fixture
def seeded(make_user):
    """The ads demo on a few people, without the rest of seed_demo (slow)."""
    make_user("alice", "Alice Example", profile=Profile(interests=["hiking", "open source"]))
    make_user("bob")
    make_user("admin", "Adrian Admin", role="admin")
    demo.seed_more(handles=["alice", "bob"], seed=42)


@pytest.mark.mongomock_only(
    reason="the demo's content; seeding runs through the driver in tests/test_site.py"
)
def test_seed_demo_runs_the_ads_demo():
    """The whole demo: the admin of moderation/demo.py manages the campaigns,
    and an advertiser logs in with the demo password."""
    out = StringIO()
    call_command("seed_demo", users=30, maxfollows=6, stdout=out)
    assert "ads: 3 advertisers, 6 campaigns, 15 units" in out.getvalue()
    admin = login_client(User.objects.get(handle="admin"), DEMO_PASSWORD)
    listing = admin.get("/ads/manage/").content.decode()
    assert all(f"/ads/manage/campaigns/{c.id}/" in listing for c in Campaign.objects)
    owner = login_client(User.objects.get(handle="trailhead"), DEMO_PASSWORD)
    assert owner.get("/ads/manage/").status_code == 200
    alice = login_client(User.objects.get(handle="alice"), DEMO_PASSWORD)
    assert alice.get("/ads/manage/").status_code == 404


def test_the_demo_has_advertisers_campaigns_and_zones(seeded):
    advertisers = {u.handle for u in User.objects(role="advertiser")}
    assert advertisers == {handle for handle, _ in demo.ADVERTISERS}
    campaigns = list(Campaign.objects)
    assert {c.owner for c in campaigns} == advertisers
    assert [c.status for c in campaigns].count("inactive") == 1
    for campaign in campaigns:
        assert INTEREST_WORDS & set(campaign.keywords), campaign.id
        for unit in campaign.units:
            assert re.fullmatch(r"https://[a-z]+\.example\.org/[a-z-]+", unit.url), unit.url

    zones = {(z.site_id, z.zone_id): z for z in AdZone.objects}
    own = {(settings.ADS_SITE_ID, zone) for zone in ("feed", "search", "profile")}
    assert own | {("partner", "sidebar")} <= set(zones)
    active = {c.id for c in campaigns if c.status == "active"}
    for key in own | {("partner", "sidebar")}:
        ads = zones[key].ads
        assert ads, key
        assert {a.campaign_id for a in ads} <= active, key
        assert [a.ecpm for a in ads] == sorted((a.ecpm for a in ads), reverse=True), key


def test_demo_people_are_served_ads_matching_their_interests(seeded):
    alice = User.objects.get(handle="alice")
    ads = choose_ads(
        site=settings.ADS_SITE_ID,
        zone="profile",
        viewer="alice",
        keywords=alice.profile.interests,
        n=3,
    )
    assert len(ads) == 3
    assert set(ads[0].matched_keywords) & {"hiking", "open", "source"}
    for site, zone in [(settings.ADS_SITE_ID, z) for z in demo.OWN_ZONES] + [
        (demo.PARTNER_SITE, demo.PARTNER_ZONE)
    ]:
        assert choose_ads(site=site, zone=zone, viewer="v:someone"), (site, zone)


def test_the_reports_have_two_weeks_of_shape(seeded):
    for campaign in Campaign.objects:
        rows = list(AdStats.objects(campaign_id=campaign.id))
        days = sorted({r.day for r in rows})
        expected = demo.STATS_DAYS if campaign.status == "active" else demo.STATS_DAYS // 2
        assert len(days) == expected, campaign.id
        assert {r.ad_unit_id for r in rows} == {u.ad_unit_id for u in campaign.units}
        full_days = [r for r in rows if r.day != days[-1] or campaign.status != "active"]
        assert all(r.impressions > 0 for r in full_days), campaign.id
        assert all(r.clicks <= r.views <= r.impressions for r in rows), campaign.id
        assert sum(r.clicks for r in rows) > 0, campaign.id
        # Not flat: the weekly shape and the noise give the chart something to show.
        per_day = [sum(r.impressions for r in rows if r.day == d) for d in days[:-1]]
        assert max(per_day) > 1.2 * min(per_day), campaign.id
        if campaign.budget is not None:
            # The budget row counts what the report shows, and leaves room to run.
            counted = AdStats.objects.get(id=budget_row_id(campaign.id)).impressions
            assert counted == sum(r.impressions for r in rows), campaign.id
            assert counted * campaign.ecpm / 1000 < campaign.budget / 2, campaign.id
    assert services.ads_pacing() == []


def test_the_admin_manages_every_demo_campaign(seeded):
    admin = login_client(User.objects.get(handle="admin"))
    listing = admin.get("/ads/manage/").content.decode()
    for campaign in Campaign.objects:
        assert f"/ads/manage/campaigns/{campaign.id}/" in listing, campaign.id
        page = admin.get(f"/ads/manage/campaigns/{campaign.id}/")
        assert page.status_code == 200, campaign.id
        html = page.content.decode()
        shown = {
            day: int(clicks)
            for day, clicks in re.findall(
                r'<tr class="ad-day"[^>]*data-day="([0-9-]+)"[^>]*data-clicks="([0-9]+)"', html
            )
        }
        stored: dict[str, int] = {}
        for row in AdStats.objects(campaign_id=campaign.id):
            stored[row.day] = stored.get(row.day, 0) + row.clicks
        assert shown == stored, campaign.id
        body = admin.get(f"/ads/manage/campaigns/{campaign.id}/?format=csv").content.decode()
        lines = list(csv.DictReader(io.StringIO(body)))
        assert sum(int(line["clicks"]) for line in lines) == sum(stored.values())

    # An advertiser sees only their own; a demo person gets a 404.
    # The advertiser accounts share the first person's password (its hash is copied).
    owner = login_client(User.objects.get(handle="roastery"))
    own = owner.get("/ads/manage/").content.decode()
    for campaign in Campaign.objects:
        assert (f"/ads/manage/campaigns/{campaign.id}/" in own) is (campaign.owner == "roastery")
    alice = login_client(User.objects.get(handle="alice"))
    assert alice.get("/ads/manage/").status_code == 404


def test_the_ads_demo_is_deterministic_and_cheap(make_user, round_trips):
    handles = ["alice", "bob"]
    for handle in handles:
        make_user(handle)

    def stats_without_today():
        """Today's rows (and the budget rows that sum them) grow with the clock."""
        today = now().strftime("%Y-%m-%d")
        return sorted(
            (r["_id"], r["impressions"], r["views"], r["clicks"])
            for r in AdStats._get_collection().find({"day": {"$nin": [today, BUDGET_ROW_DAY]}})
        )

    with round_trips() as trips:
        demo.seed_more(handles=handles, seed=7)
    first = stats_without_today()
    # Every counter row in one bulk insert: the round trips grow with the
    # campaigns and units (services), not with the days of stats (fewer
    # round trips in all than rows written).
    assert len(first) > 100
    assert trips.total < min(150, len(first)), trips.total

    for document in (AdStats, AdZone, Campaign):
        document._get_collection().delete_many({})
    demo.seed_more(handles=handles, seed=7)
    assert stats_without_today() == first
