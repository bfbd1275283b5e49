"""`/ads/click/<offer>/` and `/ads/view/<offer>/` (docs/ads-api.md; issue 11,
items 6 and 10): a click goes only to the unit's stored url and counts once
per offer, never for the owner, past the IP's limits or for a bot; a view
counts once per offer."""

from datetime import timedelta

import pytest
from django.test import Client

from ads.documents import AdOffer, AdStats
from socialsite.clock import now

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"


@pytest.fixture(autouse=True)
def _no_click_limits(settings):
    # The limits are tested on their own below; elsewhere they would count
    # every test's clicks from the one test client address.
    settings.RATELIMIT_AD_CLICK = ["1000/60"]


def totals(campaign_id: str) -> tuple[int, int, int]:
    rows = list(AdStats.objects(campaign_id=campaign_id))
    return (
        sum(r.impressions for r in rows),
        sum(r.views for r in rows),
        sum(r.clicks for r in rows),
    )


def served(client: Client | None = None, **params) -> dict:
    """One ad from socialsite/feed, served to `client` (a new browser by default)."""
    query = {"site": "socialsite", "zone": "feed", **params}
    response = (client or Client()).get("/ads/serve/", query, HTTP_USER_AGENT=FIREFOX)
    [ad] = response.json()["ads"]
    return ad


def path_of(url: str) -> str:
    return url.removeprefix("http://testserver")


def follow(url: str, client: Client | None = None, ua: str = FIREFOX, **extra):
    return (client or Client()).get(path_of(url), HTTP_USER_AGENT=ua, **extra)


def test_a_click_redirects_to_the_stored_url_and_counts_once(campaign):
    made = campaign()
    ad = served()
    first = follow(ad["click_url"])
    assert first.status_code == 302
    assert first["Location"] == "https://example.org/acme-1"
    assert first["Cache-Control"] == "no-store"
    again = follow(ad["click_url"], REMOTE_ADDR="10.0.0.2")
    assert again.status_code == 302 and again["Location"] == "https://example.org/acme-1"
    assert totals(made.id) == (1, 0, 1)
    assert AdOffer.objects.get().clicked is True


def test_nothing_in_the_request_changes_where_a_click_goes(campaign):
    campaign()
    ad = served()
    response = Client().get(
        path_of(ad["click_url"]),
        {"next": "https://evil.example/", "url": "https://evil.example/"},
        HTTP_USER_AGENT=FIREFOX,
        HTTP_REFERER="https://evil.example/",
    )
    assert response["Location"] == "https://example.org/acme-1"


def test_the_owners_own_click_is_not_counted(campaign, make_user, login):
    owner = make_user("acmeboss")
    made = campaign(owner="acmeboss")
    client = login(owner)
    ad = served(client)
    response = follow(ad["click_url"], client)
    assert response.status_code == 302 and response["Location"] == "https://example.org/acme-1"
    assert totals(made.id) == (1, 0, 0)
    # Another viewer's click on the same campaign counts as usual.
    follow(served()["click_url"])
    assert totals(made.id)[2] == 1


def test_clicks_past_the_ip_limit_redirect_but_do_not_count(settings, campaign):
    settings.RATELIMIT_AD_CLICK = ["1/60", "10/3600"]
    made = campaign()
    ads = [served() for _ in range(3)]
    responses = [follow(ad["click_url"]) for ad in ads]
    assert [r.status_code for r in responses] == [302, 302, 302]
    assert {r["Location"] for r in responses} == {"https://example.org/acme-1"}
    assert totals(made.id)[2] == 1
    # Another address has its own limit.
    follow(served()["click_url"], REMOTE_ADDR="10.9.8.7")
    assert totals(made.id)[2] == 2


def test_the_hourly_limit_holds_too(settings, campaign):
    settings.RATELIMIT_AD_CLICK = ["100/60", "2/3600"]
    made = campaign()
    for _ in range(4):
        follow(served()["click_url"])
    assert totals(made.id)[2] == 2


def test_an_expired_offer_is_404(campaign):
    made = campaign()
    ad = served()
    AdOffer.objects.update(set__created=now() - timedelta(hours=2, seconds=1))
    response = follow(ad["click_url"])
    assert response.status_code == 404
    assert totals(made.id)[2] == 0


@pytest.mark.parametrize("offer_id", ["AAAAAAAAAAAAAAAAAAAAAA", "zz-zz_zz-zz_zz-zz_zz-z"])
def test_an_unknown_offer_is_404(client, campaign, offer_id):
    campaign()
    served()
    response = client.get(f"/ads/click/{offer_id}/", HTTP_USER_AGENT=FIREFOX)
    assert response.status_code == 404


@pytest.mark.parametrize(
    "offer_id",
    [
        "short",
        "x" * 65,
        "%24ne",
        "a.b" * 8,
        "%00" * 22,
        "%D9%A1" * 22,
        "AAAAAAAAAAAAAAAAAAAAAA%0A",
    ],
)
@pytest.mark.parametrize("route", ["click", "view"])
def test_a_malformed_offer_id_is_404_before_any_query(client, round_trips, route, offer_id):
    with round_trips() as trips:
        response = client.get(f"/ads/{route}/{offer_id}/", HTTP_USER_AGENT=FIREFOX)
    assert response.status_code == 404
    assert trips.total == 0, trips.commands


def test_a_bots_click_redirects_uncounted(campaign):
    made = campaign()
    ad = served()
    response = follow(ad["click_url"], ua=BINGBOT)
    assert response.status_code == 302 and response["Location"] == "https://example.org/acme-1"
    assert totals(made.id)[2] == 0
    follow(ad["click_url"])  # the person's own click still counts
    assert totals(made.id)[2] == 1


def test_a_head_redirects_uncounted(campaign):
    made = campaign()
    ad = served()
    response = Client().head(path_of(ad["click_url"]), HTTP_USER_AGENT=FIREFOX)
    assert response.status_code == 302
    assert totals(made.id)[2] == 0


def test_a_view_is_204_and_counts_once_per_offer(campaign):
    made = campaign()
    ad = served()
    first = follow(ad["view_url"])
    assert first.status_code == 204
    assert first["Access-Control-Allow-Origin"] == "*"
    assert first["Cache-Control"] == "no-store"
    assert follow(ad["view_url"]).status_code == 204
    assert totals(made.id) == (1, 1, 0)
    follow(served()["view_url"])  # another page view, another offer
    assert totals(made.id) == (2, 2, 0)


def test_views_of_unknown_or_bot_offers_count_nothing(client, campaign):
    made = campaign()
    assert client.get("/ads/view/AAAAAAAAAAAAAAAAAAAAAA/").status_code == 204
    bot_ad = (
        Client()
        .get("/ads/serve/", {"site": "socialsite", "zone": "feed"}, HTTP_USER_AGENT=BINGBOT)
        .json()["ads"][0]
    )
    assert follow(bot_ad["view_url"]).status_code == 204
    assert totals(made.id) == (0, 0, 0)
