"""Mutes (docs/features.md#interactions): the muted person's posts leave my news feed at once
under every timeline model, and come back on unmute; they are not told;
nothing else changes (their wall, their post pages, the follow)."""

import re

import pytest

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.documents import FollowingEdge
from profiles.services import mutes
from tests.conftest import user
from tests.feeds.conftest import MODEL_IDS, MODEL_VARIANTS


@pytest.fixture(params=MODEL_VARIANTS, ids=MODEL_IDS)
def model(request, settings):
    """Each (FEED_MODEL, FEED_EMBED) variant, as tests/feeds/conftest.py has it."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    return request.param


def shown(html: str, posts) -> set:
    return {name for name, p in posts.items() if f'data-post-id="{p.id}"' in html}


@pytest.fixture
def world(model, make_user, login):
    """mia follows ada and bob; ada also placed mia in her circle."""
    mia, ada = make_user("mia"), make_user("ada")
    make_user("bob")
    graph.circle_create(owner=ada, name="close")
    for other in ("ada", "bob"):
        graph.follow_create(follower=user("mia"), followee=other)
    graph.follow_create(follower=user("ada"), followee="mia", circles=["close"])
    posts = {
        "ada": feeds.post_create(
            author=user("ada"), type="status", detail={"text": "ada"}, circles=[PUBLIC]
        ),
        "ada-circle": feeds.post_create(
            author=user("ada"), type="status", detail={"text": "ada c"}, circles=[ALL_CIRCLES]
        ),
        "ada-on-my-wall": feeds.post_create(
            author=user("ada"), type="status", detail={"text": "hi"}, circles=[PUBLIC], to="mia"
        ),
        "bob": feeds.post_create(
            author=user("bob"), type="status", detail={"text": "bob"}, circles=[PUBLIC]
        ),
        "mine": feeds.post_create(
            author=user("mia"), type="status", detail={"text": "mia"}, circles=[PUBLIC]
        ),
    }
    return posts, login(mia)


def test_a_muted_persons_posts_leave_my_news_feed_and_come_back(world):
    posts, client = world
    assert shown(client.get("/feed/").content.decode(), posts) == set(posts)

    response = client.post("/u/ada/mute/")
    assert response.status_code == 302 and response["Location"] == "/u/ada/"
    assert user("mia").muted == ["ada"]
    assert shown(client.get("/feed/").content.decode(), posts) == {"bob", "mine"}
    # Nothing else changes: her wall and posts stay open, the follows stay.
    wall = client.get("/u/ada/").content.decode()
    assert {"ada", "ada-circle"} <= shown(wall, posts)
    assert client.get(f"/posts/{posts['ada-circle'].id}/").status_code == 200
    assert FollowingEdge.objects(follower="mia", followee="ada").count() == 1
    assert FollowingEdge.objects(follower="ada", followee="mia").count() == 1

    assert client.post("/u/ada/unmute/", {"next": "/feed/"})["Location"] == "/feed/"
    assert user("mia").muted == []
    assert shown(client.get("/feed/").content.decode(), posts) == set(posts)


def test_a_news_page_past_the_muted_posts_is_still_full(model, make_user, settings):
    """A prolific muted author does not leave the page short: the feed reads on."""
    from timelines.selectors import pages as selectors

    settings.FEED_PAGE_SIZE = 3
    make_user("mia")
    loud, calm = make_user("loud"), make_user("calm")
    for other in ("loud", "calm"):
        graph.follow_create(follower=user("mia"), followee=other)
    for n in range(4):
        feeds.post_create(author=calm, type="status", detail={"text": f"c{n}"}, circles=[PUBLIC])
    for n in range(8):
        feeds.post_create(author=loud, type="status", detail={"text": f"l{n}"}, circles=[PUBLIC])
    mutes.mute_create(user=user("mia"), handle="loud")
    page = selectors.news_page(user("mia"))
    assert [p["by"]["id"] for p in page.posts] == ["calm"] * 3 and page.next_cursor


def _header(html: str) -> str:
    """The profile card, without the per-request CSRF tokens."""
    card = html[html.index('<section class="card profile"') :]
    card = card[: card.index("</section>")]
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", card)


def test_they_are_not_told(world, login):
    posts, client = world
    ada = login(user("ada"))
    before = _header(ada.get("/u/mia/").content.decode())
    client.post("/u/ada/mute/")
    assert _header(ada.get("/u/mia/").content.decode()) == before
    assert ada.get(f"/posts/{posts['mine'].id}/").status_code == 200
    assert shown(ada.get("/u/mia/").content.decode(), posts) >= {"mine"}


def test_the_wall_and_the_circles_page_offer_unmute(make_user, login):
    make_user("ada", "Ada Lovelace")
    mia = make_user("mia")
    client = login(mia)
    page = client.get("/u/ada/").content.decode()
    assert 'action="/u/ada/mute/"' in page and 'action="/u/ada/unmute/"' not in page
    assert 'data-muted="ada"' not in client.get("/circles/").content.decode()
    client.post("/u/ada/mute/")
    page = client.get("/u/ada/").content.decode()
    assert 'action="/u/ada/unmute/"' in page and 'action="/u/ada/mute/"' not in page
    circles = client.get("/circles/").content.decode()
    assert 'data-muted="ada"' in circles and "Ada Lovelace" in circles
    assert 'action="/u/ada/unmute/"' in circles
    response = client.post("/u/ada/unmute/", {"next": "/circles/"})
    assert response["Location"] == "/circles/"
    assert 'data-muted="ada"' not in client.get("/circles/").content.decode()


def test_routes_refuse_get_unknown_handles_and_oneself(make_user, login, client):
    mia = make_user("mia")
    signed_in = login(mia)
    for action in ("mute", "unmute"):
        assert signed_in.get(f"/u/mia/{action}/")["Location"] == "/u/mia/"  # a GET never acts
        for bad in ("nobody", "%24ne", "a" * 40, "NO!"):
            assert signed_in.post(f"/u/{bad}/{action}/").status_code == 404, bad
        assert client.post(f"/u/mia/{action}/").status_code == 302  # to log in
    response = signed_in.post("/u/mia/mute/")
    assert response.status_code == 302
    assert "You can&#x27;t mute yourself." in signed_in.get(response["Location"]).content.decode()
    assert user("mia").muted == []


def test_mute_services_are_idempotent_and_bounded(make_user, monkeypatch):
    make_user("ada"), make_user("bob")
    mia = make_user("mia")
    assert mutes.mute_create(user=mia, handle="ada") is True
    assert mutes.mute_create(user=mia, handle="ada") is False
    assert user("mia").muted == ["ada"]
    with pytest.raises(graph.UnknownUser):
        mutes.mute_create(user=mia, handle="nobody")
    with pytest.raises(graph.GraphError):
        mutes.mute_create(user=mia, handle="mia")
    monkeypatch.setattr(mutes, "MAX_MUTES", 1)
    with pytest.raises(graph.GraphError, match="at most 1"):
        mutes.mute_create(user=user("mia"), handle="bob")
    assert mutes.mute_create(user=user("mia"), handle="ada") is False  # already muted: fine
    assert mutes.mute_delete(user=mia, handle="ada") is True
    assert mutes.mute_delete(user=mia, handle="ada") is False
    assert user("mia").muted == []


def test_mutes_are_rate_limited_per_user(settings, make_user, login):
    settings.RATELIMIT_MUTE = "2/60"
    make_user("ada")
    mia, other = make_user("mia"), make_user("other")
    client = login(mia)
    assert client.post("/u/ada/mute/").status_code == 302
    assert client.post("/u/ada/unmute/").status_code == 302
    response = client.post("/u/ada/mute/")
    assert response.status_code == 429 and "Too many attempts" in response.content.decode()
    assert user("mia").muted == []
    assert login(other).post("/u/ada/mute/").status_code == 302
