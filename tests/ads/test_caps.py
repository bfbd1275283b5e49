"""Frequency caps (docs/ads-api.md): `cap_count` impressions per `cap_hours` per
viewer and campaign, held by one conditional update even under concurrency,
in a viewer document that stays bounded."""

import threading
from datetime import timedelta

import pytest
from django.test import Client

from ads import services
from ads.documents import AdOffer, AdStats, AdUser, AdZone
from ads.serving import recording
from ads.serving.viewer import COOKIE_NAME
from ads.views import public
from socialsite.clock import aware, now

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def ids(served):
    return [ad.campaign_id for ad in served]


def zone_ads(site, zone):
    """The zone's serving copies, as a decision reads them."""
    return AdZone._get_collection().find_one({"site_id": site, "zone_id": zone})["ads"]


def test_a_capped_campaign_falls_through_then_to_none(campaign, choose):
    top = campaign("top", ecpm="250", cap_count=2, cap_hours=24)
    next_ = campaign("next", ecpm="200", cap_count=1, cap_hours=24)
    assert ids(choose(viewer="v")) == [top.id]
    assert ids(choose(viewer="v")) == [top.id]
    assert ids(choose(viewer="v")) == [next_.id]
    assert choose(viewer="v") == []
    # Another viewer still gets the best one.
    assert ids(choose(viewer="w")) == [top.id]
    assert AdStats.objects.get(campaign_id=top.id).impressions == 3


def test_the_cap_window_slides(campaign, choose):
    """Two a day: never a third within any 24 hours, window starts or not."""
    made = campaign("acme", cap_count=2, cap_hours=24)
    start = now()
    at = [start, start + timedelta(hours=20)]
    for moment in at:
        assert ids(choose(viewer="v", now=moment)) == [made.id]
    assert choose(viewer="v", now=start + timedelta(hours=23, minutes=59)) == []
    # The first impression leaves the window: room for one, not two.
    assert ids(choose(viewer="v", now=start + timedelta(hours=24))) == [made.id]
    assert choose(viewer="v", now=start + timedelta(hours=25)) == []
    assert ids(choose(viewer="v", now=start + timedelta(hours=44))) == [made.id]
    entry = AdUser.objects.get(id="v").caps[made.id]
    assert entry["h"] == 24
    assert [aware(t) for t in entry["t"]] == [
        start + timedelta(hours=24),
        start + timedelta(hours=44),
    ]


def test_uncapped_campaigns_keep_no_window(campaign, choose):
    campaign("acme")
    choose(viewer="v")
    choose(viewer="v")
    assert AdUser.objects.get(id="v").caps == {}


def test_twenty_concurrent_requests_record_at_most_the_cap(campaign, choose):
    made = campaign("acme", ecpm="100", cap_count=3, cap_hours=24)
    served, errors = [], []
    start = threading.Barrier(20)

    def request():
        try:
            start.wait()
            served.extend(choose(viewer="racer"))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=request) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # One conditional update per decision: exactly the cap, never more.
    assert len(served) == 3
    impressions = sum(row.impressions for row in AdStats.objects(campaign_id=made.id))
    assert impressions == len(served)
    assert AdOffer.objects(viewer="racer").count() == len(served)
    assert len(AdUser.objects.get(id="racer").caps[made.id]["t"]) == 3


def test_a_refused_cap_drops_only_the_capped_ads(campaign, choose, monkeypatch):
    """The viewer read said there was room; by the write another decision had
    filled the window: the capped ad is not served, the uncapped one is."""
    capped = campaign("capped", ecpm="300", cap_count=1, cap_hours=24)
    free = campaign("free", ecpm="100")
    original = recording.record_viewer
    raced = []

    def record_after_a_rival(*args, **kwargs):
        if not raced:
            raced.append(None)
            raced[0] = choose(viewer="v")  # the other decision, in between
        return original(*args, **kwargs)

    monkeypatch.setattr(recording, "record_viewer", record_after_a_rival)
    served = choose(viewer="v", n=2)
    assert ids(raced[0]) == [capped.id]
    assert ids(served) == [free.id]
    assert AdStats.objects.get(campaign_id=capped.id).impressions == 1
    assert len(AdUser.objects.get(id="v").caps[capped.id]["t"]) == 1


def test_recent_events_are_sliced(campaign, choose, settings):
    settings.RATELIMIT_ENABLED = False  # past RATELIMIT_AD_VIEWER nothing is recorded
    campaign("acme")
    for _ in range(recording.RECENT_MAX + 5):
        choose(viewer="v")
    assert len(AdUser.objects.get(id="v").recent) == recording.RECENT_MAX


def test_entries_past_their_window_are_pruned(campaign, choose, monkeypatch):
    monkeypatch.setattr(recording, "CAPS_PRUNE_AT", 2)
    first = campaign("first", ecpm="300", cap_count=1, cap_hours=1)
    second = campaign("second", ecpm="200", cap_count=1, cap_hours=1)
    gone = campaign("gone", ecpm="100", cap_count=1, cap_hours=1)
    start = now()
    choose(viewer="v", n=3, now=start)
    assert set(AdUser.objects.get(id="v").caps) == {first.id, second.id, gone.id}
    services.campaign_deactivate(campaign_id=gone.id)
    served = choose(viewer="v", n=3, now=start + timedelta(hours=2))
    assert sorted(ids(served)) == sorted([first.id, second.id])
    assert set(AdUser.objects.get(id="v").caps) == {first.id, second.id}


def test_live_entries_past_the_limit_drop_the_longest_unseen(campaign, choose, monkeypatch):
    monkeypatch.setattr(recording, "CAPS_PRUNE_AT", 1)
    monkeypatch.setattr(recording, "CAPS_MAX", 2)
    oldest = campaign("oldest", ecpm="300", cap_count=5, cap_hours=10)
    middle = campaign(
        "middle", ecpm="200", cap_count=5, cap_hours=10, units=[("m", "partner", "top")]
    )
    newest = campaign(
        "newest", ecpm="100", cap_count=5, cap_hours=10, units=[("n", "socialsite", "search")]
    )
    start = now()
    choose(viewer="v", now=start)
    choose(site="partner", zone="top", viewer="v", now=start + timedelta(minutes=1))
    choose(zone="search", viewer="v", now=start + timedelta(minutes=2))
    assert set(AdUser.objects.get(id="v").caps) == {oldest.id, middle.id, newest.id}
    choose(zone="search", viewer="v", now=start + timedelta(minutes=3))
    assert set(AdUser.objects.get(id="v").caps) == {middle.id, newest.id}


def test_last_seen_is_refreshed(campaign, choose):
    campaign("acme")
    start = now()
    choose(viewer="v", now=start)
    choose(viewer="v", now=start + timedelta(days=3))
    assert aware(AdUser.objects.get(id="v").last_seen) == start + timedelta(days=3)


def test_a_new_viewer_created_by_a_rival_decision(campaign, choose, round_trips):
    """Our read found no viewer; a rival decision created it and filled the
    window. Our upsert collides (E11000), is retried once as an update, and
    its condition fails: refused, nothing counted twice."""
    made = campaign("acme", cap_count=1, cap_hours=24)
    choose(viewer="v")  # the rival
    (ad,) = zone_ads("socialsite", "feed")
    pick = recording.Pick(ad=ad, score=1.0, matched=())
    with round_trips() as c:
        refused = recording.record_viewer("v", [pick], {}, False, now())
    assert refused == {made.id}
    assert c.total == 2, c.commands
    assert len(AdUser.objects.get(id="v").caps[made.id]["t"]) == 1


def test_a_new_viewer_with_room_is_counted_after_the_collision(campaign, choose):
    made = campaign("acme", cap_count=2, cap_hours=24)
    choose(viewer="v")  # the rival: one of two
    (ad,) = zone_ads("socialsite", "feed")
    pick = recording.Pick(ad=ad, score=1.0, matched=())
    assert recording.record_viewer("v", [pick], {}, False, now()) == set()
    assert len(AdUser.objects.get(id="v").caps[made.id]["t"]) == 2


# --- A new visitor's first answer (issue 32, item 7) ----------------------------


def serve(browser: Client) -> list[str]:
    """The campaigns `/ads/serve/` answers this browser with."""
    response = browser.get(
        "/ads/serve/", {"site": "socialsite", "zone": "feed"}, HTTP_USER_AGENT=FIREFOX
    )
    assert response.status_code == 200
    return [ad["campaign_id"] for ad in response.json()["ads"]]


@pytest.fixture(params=["anonymous", "signed-in"])
def new_visitor(request, make_user, login):
    """A browser that never saw an ad: no `ad_viewer` cookie, no `ad_user`."""
    if request.param == "anonymous":
        return Client()
    return login(make_user("newbie"))


def test_a_new_visitors_first_impression_counts_toward_a_cap_of_one(
    campaign, new_visitor, round_trips
):
    """The first answer (the one that sets the cookie, for an anonymous
    visitor) counts: the next request, carrying that cookie, gets no ad of
    the capped campaign. Before, a cookieless first impression was recorded
    in no profile, so the second page showed it again."""
    capped = campaign("capped", ecpm="300", cap_count=1, cap_hours=24)
    filler = campaign("filler", ecpm="100")
    assert AdUser.objects.count() == 0
    assert serve(new_visitor) == [capped.id]
    with round_trips() as c:
        assert serve(new_visitor) == [filler.id]
    if "sessionid" not in new_visitor.cookies:
        # Still one decision: the zone and the viewer, then the offers, the
        # stats and the viewer's profile, started with the first impression.
        assert c.total == 5, c.commands
    assert serve(new_visitor) == [filler.id]
    assert AdStats.objects.get(campaign_id=capped.id).impressions == 1
    # One profile, holding the first impression of the capped campaign.
    (profile,) = AdUser.objects
    assert len(profile.caps[capped.id]["t"]) == 1


def test_a_new_visitor_capped_everywhere_gets_nothing_on_the_second_request(
    campaign, new_visitor, monkeypatch
):
    made = campaign(cap_count=1, cap_hours=24)
    start = now()
    assert serve(new_visitor) == [made.id]
    assert serve(new_visitor) == []
    assert serve(new_visitor) == []
    assert AdOffer.objects(campaign_id=made.id).count() == 1
    # The window is 24 hours from the first impression, then one more.
    monkeypatch.setattr(public, "clock_now", lambda: start + timedelta(hours=24, seconds=2))
    assert serve(new_visitor) == [made.id]
    assert serve(new_visitor) == []


def test_a_new_visitors_first_impression_fills_its_share_of_a_larger_cap(campaign):
    """Cap 2: the first answer is one of the two, whatever the cookie carries."""
    free = campaign("free", ecpm="300")
    browser = Client()
    assert serve(browser) == [free.id]
    assert "." not in browser.cookies[COOKIE_NAME].value  # nothing capped to carry
    capped = campaign("capped", ecpm="400", cap_count=2, cap_hours=1)
    other = Client()
    assert serve(other) == [capped.id]
    assert serve(other) == [capped.id]
    assert serve(other) == [free.id]
    assert len(AdUser.objects.get(id__startswith="v:").caps[capped.id]["t"]) == 2
