"""`GET /ads/serve/` (docs/ads-api.md; issue 11, items 7 and 10): the JSON
other sites and embed.js read, its refusals, its headers, bots and the
anonymous viewer's cookie."""

from collections import Counter

import pytest
from django.test import Client

from ads.documents import AdOffer, AdStats, AdUser
from ads.serving.viewer import COOKIE_MAX_AGE, COOKIE_NAME

SERVE = "/ads/serve/"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def impressions(campaign_id: str) -> int:
    return sum(row.impressions for row in AdStats.objects(campaign_id=campaign_id))


def serve(client: Client, query: str, **headers):
    return client.get(f"{SERVE}?{query}", HTTP_USER_AGENT=headers.pop("ua", FIREFOX), **headers)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "zone=feed",
        "site=socialsite",
        "site=&zone=feed",
        "site=socialsite&zone=",
        "site=socialsite&zone=feed&n=abc",
        "site=socialsite&zone=feed&n=0",
        "site=socialsite&zone=feed&n=11",
        "site=socialsite&zone=feed&n=-1",
        "site=socialsite&zone=feed&n=1.5",
        "site=socialsite&zone=feed&n=%D9%A1",  # U+0661, an Arabic-Indic one
        "site=socialsite&zone=feed&n=%EF%BC%92",  # U+FF12, a fullwidth two
        "site=socialsite&zone=feed&n=99999999999999999999999999",
        "site=socialsite&zone=feed&n=",
        "site=socialsite&zone=feed&n=01",
        "site=socialsite&zone=feed&n=1&n=2",
        "site=socialsite&site=partner&zone=feed",
        "site=socialsite&zone=feed&zone=search",
        "site[$ne]=x&zone=feed",
        "site=socialsite&zone[$ne]=x",
        "site=%24ne&zone=feed",
        "site=socialsite&zone=%7B%22%24gt%22%3A%22%22%7D",
        "site=Socialsite&zone=feed",
        "site=social%0Asite&zone=feed",
        "site=socialsite%0A&zone=feed",
        "site=" + "a" * 41 + "&zone=feed",
    ],
)
def test_bad_queries_are_400_with_a_json_error_and_reach_no_query(client, round_trips, query):
    with round_trips() as trips:
        response = serve(client, query)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert isinstance(response.json()["error"], str) and response.json()["error"]
    assert response["Cache-Control"] == "no-store"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert trips.total == 0, trips.commands
    assert COOKIE_NAME not in response.cookies


@pytest.mark.parametrize("query", ["site=nosuch&zone=feed", "site=socialsite&zone=nosuch"])
def test_an_unknown_site_or_zone_answers_no_ads(client, campaign, query):
    campaign()
    response = serve(client, query)
    assert response.status_code == 200
    assert response.json() == {"ads": []}
    assert response["Cache-Control"] == "no-store"
    # Nothing was chosen for this viewer: no cookie either.
    assert COOKIE_NAME not in response.cookies


def test_an_ad_is_served_with_absolute_click_and_view_urls(client, campaign):
    made = campaign("acme", ecpm="100", keywords=["car", "style"])
    response = serve(client, "site=socialsite&zone=feed&kw=Car&kw=boats")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    [ad] = response.json()["ads"]
    offer = AdOffer.objects.get()
    assert ad == {
        "campaign_id": made.id,
        "ad_unit_id": "acme-1",
        "title": "acme-1 title",
        "text": "acme-1 text",
        "url": "https://example.org/acme-1",
        "click_url": f"http://testserver/ads/click/{offer.id}/",
        "view_url": f"http://testserver/ads/view/{offer.id}/",
        "image": "",
        "why": ad["why"],
    }
    # "Why this ad?": the zone and the keywords that chose it.
    assert "“feed”" in ad["why"] and "car" in ad["why"] and "boats" not in ad["why"]
    assert impressions(made.id) == 1


def test_why_without_keywords_says_the_bid_chose(client, campaign):
    campaign()
    [ad] = serve(client, "site=socialsite&zone=feed").json()["ads"]
    assert "“feed”" in ad["why"] and "bid" in ad["why"]


def test_n_ads_come_from_distinct_campaigns(client, campaign):
    for name in ("one", "two", "three"):
        campaign(
            name,
            ecpm="10",
            units=[(f"{name}-a", "partner", "side"), (f"{name}-b", "partner", "side")],
        )
    ads = serve(client, "site=partner&zone=side&n=10").json()["ads"]
    assert len(ads) == 3
    assert len({ad["campaign_id"] for ad in ads}) == 3


def test_the_seed_example_over_http(client, campaign):
    campaign("lux", ecpm="250", keywords=["car", "luxury", "style"])
    campaign("fast", ecpm="200", keywords=["car", "performance"])

    def first(kw: str) -> str:
        query = "&".join(f"kw={w}" for w in kw.split())
        return serve(Client(), f"site=socialsite&zone=feed&n=2&{query}").json()["ads"][0][
            "campaign_id"
        ]

    assert first("performance").startswith("fast:")
    assert first("car").startswith("lux:")
    assert first("car performance").startswith("fast:")


def test_equal_ecpms_both_appear_over_many_requests(campaign):
    a = campaign("alpha", ecpm="120")
    b = campaign("beta", ecpm="120")
    campaign("cheap", ecpm="5")
    shown = Counter(
        serve(Client(), "site=socialsite&zone=feed").json()["ads"][0]["campaign_id"]
        for _ in range(60)
    )
    # Each tied ad is equally likely: 60 draws leave one out with odds 2**-59.
    assert set(shown) == {a.id, b.id}, shown


def test_a_bot_is_served_but_not_counted(client, campaign):
    made = campaign()
    response = serve(client, "site=socialsite&zone=feed", ua=GOOGLEBOT)
    [ad] = response.json()["ads"]
    assert ad["campaign_id"] == made.id
    assert impressions(made.id) == 0
    assert AdUser.objects.count() == 0
    assert AdOffer.objects.get().bot is True


def test_an_anonymous_viewer_gets_a_first_party_cookie_once(client, campaign):
    campaign()
    response = serve(client, "site=socialsite&zone=feed")
    cookie = response.cookies[COOKIE_NAME]
    assert len(cookie.value) >= 22
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Lax"
    assert not cookie["secure"]  # plain http here; see the https test below
    assert int(cookie["max-age"]) == COOKIE_MAX_AGE == 365 * 24 * 60 * 60
    assert cookie["path"] == "/"
    assert not cookie["domain"]  # this host only
    # No profile until the cookie comes back (a script never sends it).
    assert AdUser.objects.count() == 0

    again = serve(client, "site=socialsite&zone=feed")
    assert COOKIE_NAME not in again.cookies  # the browser keeps the one it has
    viewer = AdUser.objects.get().id  # and is one viewer from now on
    token, _signature = cookie.value.split(":")
    assert viewer == f"v:{token}"
    serve(client, "site=socialsite&zone=feed")
    assert AdUser.objects.count() == 1


def test_the_cookie_is_secure_over_https(client, campaign):
    campaign()
    cookie = serve(client, "site=socialsite&zone=feed", secure=True).cookies[COOKIE_NAME]
    assert cookie["secure"] is True


def test_another_sites_cookieless_visitor_is_counted_but_not_profiled(client, campaign):
    """Its browser would drop our SameSite=Lax cookie, so every page view
    would mint a new viewer: keep no `ad_user` and send no cookie."""
    made = campaign()
    for _ in range(3):
        response = serve(client, "site=socialsite&zone=feed", HTTP_SEC_FETCH_SITE="cross-site")
        assert [ad["campaign_id"] for ad in response.json()["ads"]] == [made.id]
        assert COOKIE_NAME not in response.cookies
    assert impressions(made.id) == 3
    assert AdUser.objects.count() == 0
    assert AdOffer.objects.count() == 3


def test_another_sites_visitor_with_our_cookie_is_still_capped(client, campaign):
    made = campaign(cap_count=1, cap_hours=24)
    serve(client, "site=socialsite&zone=feed")  # first-party: the cookie is set
    # The cookie comes back, carrying that first impression (no profile held
    # it): the cap of one is spent, on another site's page too.
    again = serve(client, "site=socialsite&zone=feed", HTTP_SEC_FETCH_SITE="cross-site")
    assert again.json() == {"ads": []}
    assert impressions(made.id) == 1


def test_two_browsers_are_two_viewers(campaign):
    campaign()
    browsers = [Client(), Client()]
    tokens = {serve(b, "site=socialsite&zone=feed").cookies[COOKIE_NAME].value for b in browsers}
    assert len(tokens) == 2
    for browser in browsers:
        serve(browser, "site=socialsite&zone=feed")
    assert AdUser.objects.count() == 2


@pytest.mark.parametrize("forged", ["alice", "short", "x" * 200, "$ne", "a b" * 12])
def test_a_forged_cookie_never_names_a_handle(client, campaign, make_user, forged):
    make_user("alice")
    campaign()
    client.cookies[COOKIE_NAME] = forged
    response = serve(client, "site=socialsite&zone=feed")
    assert response.cookies[COOKIE_NAME].value != forged  # replaced by a real token
    assert not AdUser.objects(id__in=["alice", forged]).count()


def test_a_signed_in_viewer_is_their_handle_and_gets_no_cookie(make_user, login, campaign):
    campaign()
    client = login(make_user("alice"))
    response = serve(client, "site=socialsite&zone=feed")
    assert response.json()["ads"]
    assert COOKIE_NAME not in response.cookies
    assert [v.id for v in AdUser.objects] == ["alice"]


def test_a_head_records_nothing(client, campaign):
    made = campaign()
    response = client.head(f"{SERVE}?site=socialsite&zone=feed", HTTP_USER_AGENT=FIREFOX)
    assert response.status_code == 405
    assert impressions(made.id) == 0 and AdOffer.objects.count() == 0
