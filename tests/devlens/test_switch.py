"""The live switch at /dev/ (docs/developer-lens.md): one admin's session reads
through other models; the posts stay, the round trips change, and nobody
else's session is touched."""

import re

import pytest

from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.documents import User
from timelines.documents import CacheTimeline

SERVER_TIMING = re.compile(r'db;desc="(\d+) round trips, (\d+) docs"')
POST_IDS = re.compile(r'<article class="post[^"]*"[^>]*data-post-id="([0-9a-f]{24})"')


def round_trips_on_the_meter(response) -> int:
    """The count of `Server-Timing: db;desc="<n> round trips, <docs> docs"`
    (docs/developer-lens.md#counting-round-trips-in-code)."""
    found = SERVER_TIMING.search(response.get("Server-Timing", ""))
    assert found, f"no db meter in Server-Timing: {response.get('Server-Timing')!r}"
    return int(found.group(1))


def post_ids(response) -> list[str]:
    return POST_IDS.findall(response.content.decode())


@pytest.fixture
def world(settings, make_user, login):
    settings.FEED_MODEL = "cache"
    settings.FEED_SHADOW_MODELS = "all"
    ann, ben = make_user("ann", role="admin"), make_user("ben", role="admin")
    for author in ("cat", "dan", "eve"):
        writer = make_user(author)
        for reader in (ann, ben):
            graph.follow_create(follower=reader, followee=author)
        for n in range(4):
            feeds.post_create(
                author=writer, type="status", detail={"text": f"{author} {n}"}, circles=[PUBLIC]
            )
    return login(ann), login(ben)


def switch(client, **fields):
    data = {"timeline_model": "cache", "comment_store": "documents", **fields}
    return client.post("/dev/", data)


def test_one_session_switches_to_read_the_other_does_not(world):
    session_a, session_b = world
    before_a, before_b = session_a.get("/feed/"), session_b.get("/feed/")
    posts = post_ids(before_a)
    assert len(posts) == 12
    assert post_ids(before_b) == posts

    response = switch(session_a, timeline_model="read")
    assert response.status_code == 302
    assert session_a.session["dev_models"]["timeline_model"] == "read"

    after_a, after_b = session_a.get("/feed/"), session_b.get("/feed/")
    # The same posts in the same order: the model changes the cost, not the page.
    assert post_ids(after_a) == posts
    assert post_ids(after_b) == posts
    # Fan-out on read asks the graph and the posts: more round trips than
    # the cached timeline, on this session's meter only.
    assert round_trips_on_the_meter(after_a) > round_trips_on_the_meter(before_a)
    assert round_trips_on_the_meter(after_b) == round_trips_on_the_meter(before_b)
    assert "dev_models" not in session_b.session

    page = session_a.get("/dev/").content.decode()
    assert 'data-in-use="timeline-model" data-value="read" data-source="session"' in page
    page_b = session_b.get("/dev/").content.decode()
    assert 'data-in-use="timeline-model" data-value="cache" data-source="settings"' in page_b


def test_dev_shows_what_the_last_page_cost(world):
    session_a, _ = world
    session_a.get("/dev/")  # opening the lens starts the recording
    feed = session_a.get("/feed/?x=1")
    page = session_a.get("/dev/").content.decode()
    last = re.search(r'data-last-page="([^"]+)" data-round-trips="(\d+)" data-docs="(\d+)"', page)
    assert last, page
    assert last.group(1) == "/feed/?x=1"
    # Measured around the view: at most what the whole request counted.
    assert 0 < int(last.group(2)) <= round_trips_on_the_meter(feed)
    # The session with its user, and the timeline's document, which brings
    # the page's posts inside it (docs/performance.md#one-read-for-a-page).
    assert int(last.group(3)) >= 2


def test_a_refused_page_is_not_recorded(world):
    """As the meter, the lens shows no figures for a 404 (docs/privacy.md)."""
    session_a, _ = world
    session_a.get("/dev/")
    session_a.get("/feed/?x=2")
    assert session_a.get("/posts/0123456789abcdef01234567/").status_code == 404
    page = session_a.get("/dev/").content.decode()
    assert 'data-last-page="/feed/?x=2"' in page


def test_reset_goes_back_to_the_settings(world):
    session_a, _ = world
    switch(session_a, timeline_model="month", embed="on", comment_store="buckets")
    assert session_a.session["dev_models"] == {
        "timeline_model": "month",
        "embed": True,
        "comment_store": "buckets",
    }
    response = session_a.post("/dev/", {"reset": "1"})
    assert response.status_code == 302
    assert "dev_models" not in session_a.session
    page = session_a.get("/dev/").content.decode()
    assert 'data-value="cache" data-source="settings"' in page


@pytest.mark.parametrize(
    "fields",
    [
        {"timeline_model": "nosuch"},
        {"timeline_model": ""},
        {"comment_store": "nosuch"},
        {"timeline_model": {"$ne": 1}},
    ],
)
def test_an_invalid_choice_re_renders_with_errors(world, fields):
    session_a, _ = world
    response = switch(session_a, **fields)
    assert response.status_code == 400
    assert b'class="errorlist"' in response.content
    assert "dev_models" not in session_a.session


def test_a_model_no_write_keeps_is_refused_when_shadows_are_off(world, settings):
    session_a, _ = world
    settings.FEED_SHADOW_MODELS = ""
    response = switch(session_a, timeline_model="month")
    assert response.status_code == 400
    assert b"not kept up to date" in response.content
    assert "dev_models" not in session_a.session
    # `read` stores nothing: always current, always allowed.
    assert switch(session_a, timeline_model="read").status_code == 302


def test_a_stored_choice_that_lost_its_shadow_is_not_applied(world, settings):
    session_a, _ = world
    posts = post_ids(session_a.get("/feed/"))
    switch(session_a, timeline_model="size")
    settings.FEED_SHADOW_MODELS = ""  # the site restarted without shadows
    assert post_ids(session_a.get("/feed/")) == posts  # read through cache again
    page = session_a.get("/dev/").content.decode()
    assert "data-ignored" in page
    assert 'data-in-use="timeline-model" data-value="cache" data-source="settings"' in page


def test_forms_write_where_everyone_writes(world, settings):
    """A switched session's POST is not switched: its post is fanned out to
    the configured model (cache), so another reader's cached feed shows it."""
    session_a, session_b = world
    settings.FEED_SHADOW_MODELS = ""
    graph.follow_create(follower=User.objects.get(handle="ben"), followee="ann")
    switch(session_a, timeline_model="read")
    response = session_a.post("/posts/", {"type": "status", "text": "from ann", "circles": PUBLIC})
    assert response.status_code == 302
    feed_b = session_b.get("/feed/").content.decode()
    assert "from ann" in feed_b
    stored = CacheTimeline._get_collection().find_one({"owner": "ben", "kind": "news"})
    assert any(entry["by"] == "ann" for entry in stored["entries"])
