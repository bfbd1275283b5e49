"""Ad serving's writes hold together (docs/ads-api.md, docs/performance.md;
issue 20): a serve, click or view is never cut half-way by the page deadline;
a viewer without our cookie leaves no profile behind and is billed only so
often per IP; a budget refuses before a cap is spent, and no impression is
billed without its offer; a stopped campaign's clicks and views count nothing."""

import secrets
import time

import pytest
from django.test import Client
from pymongo import _csot

from ads import services
from ads.documents import AdOffer, AdStats, AdUser, budget_row_id
from ads.services import offers
from ads.serving import recording

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


@pytest.fixture(autouse=True)
def _generous_click_limits(settings):
    settings.RATELIMIT_AD_CLICK = ["1000/60"]


def totals(campaign_id: str) -> tuple[int, int, int]:
    rows = list(AdStats.objects(campaign_id=campaign_id))
    return (
        sum(r.impressions for r in rows),
        sum(r.views for r in rows),
        sum(r.clicks for r in rows),
    )


def serve(client: Client | None = None, **headers):
    return (client or Client()).get(
        "/ads/serve/", {"site": "socialsite", "zone": "feed"}, HTTP_USER_AGENT=FIREFOX, **headers
    )


def follow(url: str, **headers):
    return Client().get(url.removeprefix("http://testserver"), HTTP_USER_AGENT=FIREFOX, **headers)


def after_the_deadline(monkeypatch, owner, name, seen):
    """Wrap `owner.name` so it runs once the page deadline (1 ms) has passed,
    noting the deadline it runs under: on a real server a write under a
    spent deadline fails before it is sent."""
    original = getattr(owner, name)

    def late(*args, **kwargs):
        time.sleep(0.01)
        seen.append(_csot.get_timeout())
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, late)


# --- GETs that write run without the page deadline ----------------------------


def test_serving_outlives_the_page_deadline_with_every_write(settings, monkeypatch, campaign):
    settings.MONGODB_REQUEST_TIMEOUT_MS = 1
    made = campaign(cap_count=5, cap_hours=24)
    browser = Client()
    serve(browser)  # the cookie, so the viewer write is part of the next decision
    seen: list = []
    after_the_deadline(monkeypatch, recording, "record_stats", seen)
    response = serve(browser)
    assert response.status_code == 200
    [ad] = response.json()["ads"]
    assert seen == [None]
    # All three writes landed: the offer, the stats and the viewer's cap.
    assert AdOffer.objects(id=ad["click_url"].split("/")[-2]).count() == 1
    assert totals(made.id)[0] == 2
    # This impression and the cookieless first one, which the cookie carried.
    assert len(AdUser.objects.get().caps[made.id]["t"]) == 2


def test_a_click_and_a_view_outlive_the_page_deadline(settings, monkeypatch, campaign):
    made = campaign()
    ad = serve().json()["ads"][0]
    settings.MONGODB_REQUEST_TIMEOUT_MS = 1
    seen: list = []
    after_the_deadline(monkeypatch, offers, "_count_click", seen)
    after_the_deadline(monkeypatch, offers, "offer_view", seen)
    click = follow(ad["click_url"])
    assert click.status_code == 302 and click["Location"] == "https://example.org/acme-1"
    assert follow(ad["view_url"]).status_code == 204
    assert seen == [None, None]
    assert totals(made.id) == (1, 1, 1)


# --- Viewers without our cookie ------------------------------------------------


@pytest.mark.parametrize("fetch_site", ["same-origin", None])
def test_cookieless_requests_leave_no_viewer_profiles(campaign, fetch_site):
    """A script that never keeps the cookie: served and counted each time,
    but one 90-day `ad_user` per request would only fill the collection."""
    made = campaign()
    headers = {"HTTP_SEC_FETCH_SITE": fetch_site} if fetch_site else {}
    for _ in range(5):
        response = serve(**headers)
        assert [ad["campaign_id"] for ad in response.json()["ads"]] == [made.id]
        assert response.cookies["ad_viewer"].value  # offered, never sent back
    assert AdUser.objects.count() == 0
    assert totals(made.id)[0] == 5


def test_cookieless_impressions_are_billed_only_so_often_per_ip(settings, campaign):
    settings.RATELIMIT_AD_IMPRESSION = "3/600"
    made = campaign()
    ads = [serve(HTTP_SEC_FETCH_SITE="cross-site").json()["ads"] for _ in range(6)]
    assert all(len(served) == 1 for served in ads)  # still served
    assert totals(made.id)[0] == 3  # billed up to the IP's limit only
    # Past the limit an offer counts nothing, click or view.
    late = ads[-1][0]
    assert follow(late["click_url"]).status_code == 302
    assert follow(late["view_url"]).status_code == 204
    assert totals(made.id) == (3, 0, 0)
    # Another address has its own window.
    serve(REMOTE_ADDR="10.9.8.7")
    assert totals(made.id)[0] == 4


@pytest.mark.parametrize("made_up", ["invented", "forged"])
def test_made_up_cookies_are_viewers_without_a_cookie(settings, campaign, made_up):
    """Only a cookie this site signed names a viewer: a script inventing one
    per request keeps no profile and is limited per IP like any other."""
    settings.RATELIMIT_AD_IMPRESSION = "2/600"
    made = campaign()
    for _ in range(4):
        browser = Client()
        token = secrets.token_urlsafe(18)
        browser.cookies["ad_viewer"] = token if made_up == "invented" else f"{token}:forged"
        assert serve(browser).json()["ads"]
    assert AdUser.objects.count() == 0
    assert totals(made.id)[0] == 2


def test_one_kept_cookie_is_billed_only_so_often(settings, campaign):
    settings.RATELIMIT_AD_VIEWER = "3/600"
    made = campaign()
    browser = Client()
    served = [serve(browser).json()["ads"] for _ in range(7)]
    assert all(len(ads) == 1 for ads in served)  # still served
    # The cookieless first request, then three from the kept cookie's profile.
    assert totals(made.id)[0] == 4
    assert len(AdUser.objects.get().recent) == 3


# --- The budget before the cap; no impression billed without its offer -----------


def test_a_spent_budget_refuses_before_the_viewers_cap_is_spent(campaign, choose):
    made = campaign(cap_count=2, cap_hours=24, budget="1")  # 10 impressions at 100 eCPM
    choose(viewer="v")
    # Others spent the rest meanwhile; the zone's copy has not been pulled yet.
    row = budget_row_id(made.id)
    AdStats._get_collection().update_one({"_id": row}, {"$set": {"impressions": 10}})
    assert choose(viewer="v") == []
    assert choose(viewer="other") == []
    # The refused decisions spent no cap (nor made a profile) and billed nothing.
    assert len(AdUser.objects.get(id="v").caps[made.id]["t"]) == 1
    assert AdUser.objects(id="other").count() == 0
    assert totals(made.id)[0] == 1
    assert AdOffer.objects.count() == 1  # the refused ads' offers are withdrawn


def test_a_cap_refused_by_a_rival_decision_is_not_billed(campaign, choose, monkeypatch):
    made = campaign(cap_count=1, cap_hours=24, budget="10")
    original = recording.record_viewer
    rival: list = []

    def after_a_rival(*args, **kwargs):
        if not rival:
            rival.append(None)
            rival[0] = choose(viewer="v")  # fills the window in between
        return original(*args, **kwargs)

    monkeypatch.setattr(recording, "record_viewer", after_a_rival)
    assert choose(viewer="v") == []
    assert len(rival[0]) == 1
    assert totals(made.id)[0] == 1
    budget = AdStats._get_collection().find_one({"_id": budget_row_id(made.id)})
    assert budget["impressions"] == 1
    assert AdOffer.objects.count() == 1


class Crash(Exception):
    pass


@pytest.mark.parametrize("step", ["record_offers", "record_stats", "record_viewer"])
def test_a_crash_at_any_step_bills_nothing_without_its_offer(campaign, choose, monkeypatch, step):
    made = campaign(cap_count=3, cap_hours=24, budget="10")
    choose(viewer="v")  # a known viewer: all three writes take part

    def crash(*args, **kwargs):
        raise Crash(step)

    monkeypatch.setattr(recording, step, crash)
    with pytest.raises(Crash):
        choose(viewer="v")
    billed = totals(made.id)[0]
    budget = AdStats._get_collection().find_one({"_id": budget_row_id(made.id)})
    assert budget["impressions"] == billed
    assert billed <= AdOffer.objects(campaign_id=made.id).count()


# --- A stopped campaign's offers ----------------------------------------------


def test_a_deactivated_campaigns_clicks_and_views_do_not_count(campaign):
    made = campaign()
    ad = serve().json()["ads"][0]
    services.campaign_deactivate(campaign_id=made.id)
    click = follow(ad["click_url"])
    assert click.status_code == 302 and click["Location"] == "https://example.org/acme-1"
    assert follow(ad["view_url"]).status_code == 204
    assert totals(made.id) == (1, 0, 0)
    # Started again, a new offer counts as before.
    services.campaign_activate(campaign_id=made.id)
    again = serve().json()["ads"][0]
    follow(again["click_url"])
    follow(again["view_url"])
    assert totals(made.id) == (2, 1, 1)
