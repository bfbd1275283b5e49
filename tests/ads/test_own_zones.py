"""Socialsite's own ad zones (docs/ads-api.md; issue 11, item 8): the feed,
search and profile pages carry one slot that static/ads/embed.js fills from
/ads/serve/; settings, moderation, ad management and post pages carry none.
The slot costs its page no database round trip (docs/performance.md)."""

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from ads.documents import AdOffer, AdStats, AdUser
from ads.serving.viewer import COOKIE_NAME
from ads.templatetags.ads import slot_keywords
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as profiles

SLOT = re.compile(
    r'<div class="ad-slot" data-ad-site="([^"]*)" data-ad-zone="([^"]*)"'
    r'(?: data-ad-kw="([^"]*)")?></div>'
)


def slots(response) -> list[tuple[str, str, str]]:
    assert response.status_code == 200
    return SLOT.findall(response.content.decode())


def posts_before_slot(response) -> int:
    html = response.content.decode()
    return html[: html.index('class="ad-slot"')].count('<article class="post ')


def write(author, count: int) -> None:
    for i in range(count):
        feeds.post_create(
            author=author, type="status", detail={"text": f"post {i}"}, circles=[PUBLIC]
        )


@pytest.fixture
def reader(make_user, login):
    """A reader who follows `author`: returns (reader's client, author)."""
    reader, author = make_user("reader"), make_user("author")
    profiles.follow_create(follower=reader, followee="author")
    return login(reader), author


def test_the_feed_has_one_slot_after_the_third_post(reader):
    client, author = reader
    write(author, 6)
    response = client.get("/feed/")
    assert slots(response) == [("socialsite", "feed", "")]
    assert posts_before_slot(response) == 3
    html = response.content.decode()
    # The script that fills it, from this site, with the page's CSP nonce.
    assert re.search(r'<script src="/static/ads/embed\.js" defer nonce="[^"]+"></script>', html)


def test_a_short_feed_has_its_slot_after_the_last_post(reader):
    client, author = reader
    write(author, 2)
    response = client.get("/feed/")
    assert slots(response) == [("socialsite", "feed", "")]
    assert posts_before_slot(response) == 2


def test_an_empty_feed_has_no_slot(make_user, login):
    assert slots(login(make_user("loner")).get("/feed/")) == []


def test_the_slot_adds_no_round_trip_to_the_feed(reader, round_trips, campaign):
    client, author = reader
    write(author, 5)
    client.get("/feed/")  # the first page view may refresh the reader's last_seen

    def page_trips():
        with round_trips() as trips:
            response = client.get("/feed/")
        assert slots(response)
        return trips.total

    without_ads = page_trips()
    campaign("acme", units=[("acme-1", "socialsite", "feed")])
    assert page_trips() == without_ads
    # The page chose nothing: choosing happens when embed.js asks.
    assert AdOffer.objects.count() == 0 and AdUser.objects.count() == 0
    assert not [r for r in AdStats.objects if r.impressions]


def test_pages_set_no_viewer_cookie(reader, client):
    reader_client, author = reader
    write(author, 4)
    assert COOKIE_NAME not in reader_client.get("/feed/").cookies
    assert COOKIE_NAME not in client.get("/search/?q=car").cookies


def test_search_has_a_slot_with_the_query_words(client):
    assert slots(client.get("/search/", {"q": "Vintage  Cars, rally"})) == [
        ("socialsite", "search", "vintage,cars,rally")
    ]


def test_search_without_a_query_has_no_slot(client):
    assert slots(client.get("/search/")) == []


def test_the_profile_has_a_slot_with_its_interests(make_user, client):
    bob = make_user("bob")
    profiles.profile_update(
        user=bob, name="Bob", bio="", location="", interests=["Rock climbing", "jazz"], website=""
    )
    write(bob, 4)
    response = client.get("/u/bob/")
    assert slots(response) == [("socialsite", "profile", "rock,climbing,jazz")]
    assert posts_before_slot(response) == 3


def test_keywords_in_the_slot_are_escaped_and_bounded():
    assert slot_keywords('"><script>,x') == '"><script>,x'  # escaped by the template
    assert slot_keywords(["a" * 41, "ok"]) == "ok"
    assert len(slot_keywords(" ".join(f"w{i}" for i in range(50))).split(",")) == 20
    assert slot_keywords(None) == "" and slot_keywords([]) == ""


def test_a_hostile_query_stays_text_in_the_slot(client):
    html = client.get("/search/", {"q": '"><img src=x onerror=alert(1)>'}).content.decode()
    [(_, _, kw)] = SLOT.findall(html)
    assert "<img" not in kw and "&lt;img" in kw and "&quot;&gt;" in kw


def test_no_slot_on_settings_moderation_management_or_post_pages(make_user, login):
    admin = make_user("boss", role="admin")
    moderator = make_user("mody", role="moderator")
    write(admin, 4)
    post_id = feeds.post_create(
        author=admin, type="status", detail={"text": "one"}, circles=[PUBLIC]
    ).id
    as_admin, as_mod = login(admin), login(moderator)
    for client, path in [
        (as_admin, "/settings/profile/"),
        (as_admin, "/settings/password/"),
        (as_admin, "/circles/"),
        (as_mod, "/mod/"),
        (as_mod, "/mod/reports/"),
        (as_admin, "/ads/manage/"),
        (as_admin, f"/posts/{post_id}/"),
        (as_admin, "/incoming/"),
    ]:
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"data-ad-site" not in response.content, path
        assert b"ads/embed.js" not in response.content, path


def test_embed_js_builds_no_html_from_ad_text():
    source = Path(finders.find("ads/embed.js")).read_text(encoding="utf-8")
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source
    assert "document.write" not in source and "eval(" not in source
    assert 'rel = "sponsored noopener"' in source
    assert "IntersectionObserver" in source and "threshold: 0.5" in source
