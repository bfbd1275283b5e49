"""`GET /feed/new/?since=`: how many posts the feed would show above its first
one (issue 12, item 5; docs/privacy.md, docs/performance.md, docs/features.md#interactions), under
the four timeline models."""

from datetime import timedelta

import pytest
from bson import ObjectId

from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.services import posts as services
from feeds.services import reposts
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import User
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests.conftest import user
from timelines.delivery import upkeep
from timelines.selectors import newposts
from timelines.selectors import pages as selectors
from timelines.selectors.entries import entry_for
from timelines.selectors.newposts import COUNT_CAP
from timelines.stores import get_store


def say(author: str, text: str, circles=(PUBLIC,), **fields):
    return services.post_create(
        author=user(author), type="status", detail={"text": text}, circles=list(circles), **fields
    )


def count(handle: str, since: str):
    return newposts.new_posts(user(handle), Cursor.decode(since))


def shown_above(handle: str, since: str) -> list:
    """What the feed itself shows above the cursor: the count must match it."""
    cursor = Cursor.decode(since)
    posts = selectors.news_page(user(handle)).posts
    return [p["detail"]["text"] for p in posts if place(p) > (cursor.ts, cursor.id)]


def place(post: dict) -> tuple:
    """A page's post's place in the timeline: a repost's own, else the post's."""
    return tuple(post.get("_at") or (post["ts"], post["_id"]))


@pytest.fixture
def reader_world(make_user):
    """The reader follows ann, cyd, dee and eve; eve and fay place the reader
    in their circle "close"; bob is not followed. The reader's feed starts
    with one post by ann: its cursor is the page's `data-since`."""
    reader = make_user("reader")
    for handle in ("ann", "bob", "cyd", "dee", "eve", "fay"):
        make_user(handle)
    for handle in ("ann", "cyd", "dee", "eve", "fay"):
        graph.follow_create(follower=user("reader"), followee=handle)
    for handle in ("eve", "fay"):
        graph.circle_create(owner=user(handle), name="close")
        graph.follow_create(follower=user(handle), followee="reader", circles=["close"])
    say("ann", "the first one")
    return reader


def test_counts_exactly_what_the_feed_would_show_above_its_first_post(
    model, reader_world, make_user, monkeypatch
):
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    assert count("reader", since) == newposts.NewPosts(0, False)

    # Counted: a followed person's public post, the reader's own (the feed
    # shows it), a circle post of a circle the reader is in.
    say("ann", "new and public")
    say("reader", "my own")
    say("fay", "for my circle", circles=["close"])
    # Not counted: someone the reader does not follow, someone blocked or
    # muted since, a circle the reader has left (its resync still queued, so
    # only the read-time check stands between), a removed and a deleted post.
    say("bob", "not followed")
    graph.mute_create(user=user("reader"), handle="dee")
    say("dee", "muted")
    say("eve", "for the circle the reader leaves", circles=["close"])
    say("eve", "for all my circles", circles=[ALL_CIRCLES])
    with monkeypatch.context() as queued:
        queued.setattr(upkeep, "resync", lambda reader, author: None)
        graph.circle_remove_member(owner=user("eve"), name="close", member="reader")
        graph.block_create(blocker=user("reader"), blocked="cyd")
    say("cyd", "blocked")
    removed = say("ann", "removed by a moderator")
    moderation.post_remove(
        moderator=make_user("mod", role="moderator"),
        target=resolve_target(f"post:{removed.id}"),
        reason="spam",
    )
    deleted = say("ann", "deleted by ann")
    services.post_delete(post_id=deleted.id, actor=user("ann"))

    found = count("reader", since)
    assert found == newposts.NewPosts(3, False)
    assert found.count == len(shown_above("reader", since))


def test_a_post_after_the_page_counts_and_the_page_after_it_counts_none(model, reader_world):
    say("ann", "one")
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    assert count("reader", since).count == 0
    say("ann", "two")
    assert count("reader", since).count == 1
    # The reader loads it: the new first post is the new cursor.
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    assert count("reader", since).count == 0


def test_posts_of_the_same_millisecond_are_told_apart_by_id(model, reader_world):
    moment = now()
    first = say("ann", "first", ts=moment)
    since = Cursor(moment, first.id).encode()
    assert count("reader", since).count == 0
    say("cyd", "same millisecond, later id", ts=moment)
    assert count("reader", since).count == 1


def test_an_empty_feed_counts_every_post_it_would_show(model, make_user):
    make_user("reader")
    make_user("ann")
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    assert since == newposts.EMPTY_FEED.encode()
    graph.follow_create(follower=user("reader"), followee="ann")
    say("ann", "hello")
    assert count("reader", since).count == 1 == len(shown_above("reader", since))


def test_a_capped_cache_that_no_longer_reaches_the_cursor_asks_the_read_model(settings, make_user):
    settings.FEED_MODEL, settings.FEED_CACHE_SIZE = "cache", 5
    make_user("reader")
    make_user("ann")
    graph.follow_create(follower=user("reader"), followee="ann")
    first = say("ann", "the page's first")
    since = Cursor(first.ts, first.id).encode()
    for i in range(8):
        say("ann", f"new {i}")
    assert count("reader", since).count == 8


def test_a_feed_being_rebuilt_is_counted_as_the_feed_shows_it(settings, reader_world):
    settings.FEED_MODEL = "cache"
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    say("ann", "new")
    User._get_collection().update_one({"_id": "reader"}, {"$set": {"feed_rebuild": now()}})
    # The cache holds nothing while it is rebuilt; the read model answers.
    get_store().replace("news", "reader", [])
    assert count("reader", since).count == 1 == len(shown_above("reader", since))


def test_reposts_count_once_and_never_from_or_of_someone_hidden(model, reader_world, make_user):
    """Reposts by people the reader follows (docs/features.md#interactions): a post counts once
    however often it is reposted; none by or of someone muted or blocked;
    none of a deleted original."""
    make_user("gus")
    graph.follow_create(follower=user("reader"), followee="gus")
    since = newposts.since_of(selectors.news_page(user("reader")).posts)

    def repost(handle, post):
        reposts.repost_create(post_id=post.id, user=user(handle))

    by_stranger = say("bob", "reposted by two people the reader follows")
    repost("ann", by_stranger)
    repost("eve", by_stranger)
    new_by_followed = say("cyd", "new, and reposted by ann")
    repost("ann", new_by_followed)
    assert count("reader", since).count == 2 == len(shown_above("reader", since))

    graph.mute_create(user=user("reader"), handle="dee")
    repost("dee", say("bob", "reposted by someone muted"))
    repost("gus", say("dee", "by someone muted, reposted by gus"))
    graph.block_create(blocker=user("reader"), blocked="fay")
    repost("gus", say("fay", "by someone blocked, reposted by gus"))
    deleted = say("bob", "reposted, then deleted")
    repost("gus", deleted)
    services.post_delete(post_id=deleted.id, actor=user("bob"))
    assert count("reader", since).count == 2 == len(shown_above("reader", since))


def test_a_feed_that_starts_with_a_repost_starts_at_the_repost(model, reader_world, login):
    """The page's cursor is its first entry's place: a repost's own time and
    id. The original's older place would count the repost as new forever."""
    original = say("bob", "older than its repost", ts=now() - timedelta(days=3))
    reposts.repost_create(post_id=original.id, user=user("ann"))
    [first, *_] = selectors.news_page(user("reader")).posts
    assert first["_id"] == original.id and first.get("reposted_by") == "ann"
    since = newposts.since_of([first])
    assert Cursor.decode(since) > (original.ts, original.id)
    page = login(user("reader")).get("/feed/").content.decode()
    assert f'data-since="{since}"' in page
    assert count("reader", since) == newposts.NewPosts(0, False)


# --- round trips (docs/performance.md) -------------------------------------------------


def big_feed(settings, entries: int = 1000):
    """A reader whose news holds `entries` posts by 50 followed authors,
    written straight into the store (a fan-out of 1,000 posts is not what is
    measured here)."""
    settings.FEED_CACHE_SIZE = settings.FEED_MONTH_CAP = entries
    authors = [f"author{i:02d}" for i in range(50)]
    graph.user_create(handle="reader", name="Reader", password="x" * 12)
    for handle in authors:
        graph.user_create(handle=handle, name=handle.title(), password="x" * 12)
        graph.follow_create(follower=user("reader"), followee=handle)
    start = now() - timedelta(days=2)
    posts = [
        {
            "_id": ObjectId(),
            "by": {"id": authors[i % 50], "name": authors[i % 50].title()},
            "circles": [PUBLIC],
            "type": "status",
            "ts": start + timedelta(seconds=i),
            "detail": {"text": f"post {i}"},
            "removed": None,
        }
        for i in range(entries)
    ]
    Post._get_collection().insert_many(posts)
    get_store().replace("news", "reader", [entry_for(p) for p in posts])
    return posts


@pytest.mark.parametrize("model", ["cache", "month", "size", "read"])
@pytest.mark.parametrize("embed", [False, True])
def test_round_trips_at_a_feed_of_1000_entries(model, embed, settings, round_trips):
    settings.FEED_MODEL, settings.FEED_EMBED = model, embed
    posts = big_feed(settings)
    reader = user("reader")
    budget = {"cache": 1, "month": 1, "size": 1, "read": 3}[model]
    # A page read a while ago (5 newer), and one from long ago (past the cap).
    for since, expected in [(posts[-6], newposts.NewPosts(5, False)), (posts[0], None)]:
        cursor = Cursor(since["ts"], since["_id"])
        with round_trips() as c:
            found = newposts.new_posts(reader, cursor)
        assert c.total == budget, c.commands
        assert found == (expected or newposts.NewPosts(COUNT_CAP, True))


def test_circle_posts_and_reposts_cost_one_read_each_as_on_the_page(
    settings, reader_world, round_trips
):
    """Beyond the timeline read: the graph query for others' circle posts,
    and the read of reposted originals, each only when there are some."""
    settings.FEED_MODEL = "cache"
    since = Cursor.decode(newposts.since_of(selectors.news_page(user("reader")).posts))
    say("fay", "for my circle", circles=["close"])
    reader = user("reader")
    with round_trips() as c:
        assert newposts.new_posts(reader, since).count == 1
    assert c.commands == ["aggregate", "find"]
    reposts.repost_create(post_id=say("bob", "not followed").id, user=user("ann"))
    with round_trips() as c:
        assert newposts.new_posts(reader, since).count == 2
    assert c.commands == ["aggregate", "find", "find"]


# --- the endpoint ---------------------------------------------------------------


def test_the_endpoint_answers_json_never_cached(model, reader_world, login, round_trips):
    client = login(user("reader"))
    page = client.get("/feed/").content.decode()
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    assert f'data-since="{since}"' in page and 'data-new-url="/feed/new/"' in page
    say("ann", "new")
    with round_trips() as c:
        response = client.get("/feed/new/", {"since": since})
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == {"count": 1, "more": False}
    assert response["Cache-Control"] == "no-store"
    if model[0] == "cache":
        # The session with the signed-in user (one aggregate), and the
        # timeline read.
        assert c.commands == ["aggregate", "aggregate"], c.commands


def test_older_pages_do_not_poll(reader_world, login):
    client = login(user("reader"))
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    page = client.get("/feed/", {"before": since}).content.decode()
    assert "data-since=" in page and "data-poll-ms" not in page


@pytest.mark.parametrize(
    "since",
    [
        None,
        "",
        "abc",
        "1_zz",
        "1700000000000",
        "1700000000000_" + "0" * 23,
        "1700000000000_" + "g" * 24,
        "99999999999999999_" + "0" * 24,
        "999999999999999_" + "0" * 24,  # past year 9999
        "\u00b2_" + "0" * 24,
        "-1_" + "0" * 24,
        '{"$gt": ""}',
        "1700000000000_" + "0" * 24 + "\x00",
    ],
)
def test_malformed_cursors_are_400_json(reader_world, login, since):
    client = login(user("reader"))
    response = client.get("/feed/new/", {} if since is None else {"since": since})
    assert response.status_code == 400, response.content
    assert "error" in response.json() and response["Cache-Control"] == "no-store"


def test_anonymous_visitors_get_403_json_and_other_methods_405(reader_world, login):
    from django.test import Client

    since = newposts.EMPTY_FEED.encode()
    response = Client().get("/feed/new/", {"since": since})
    assert response.status_code == 403 and "error" in response.json()
    response = login(user("reader")).post("/feed/new/", {"since": since})
    assert response.status_code == 405
