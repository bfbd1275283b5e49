"""Nothing grows past MongoDB's 16 MB document limit, and nothing is retried
forever (docs/performance.md, docs/architecture.md#reliability-and-security-habits): `month`
documents roll over at FEED_MONTH_CAP,
embedded copies keep to FEED_EMBED_MAX_BYTES, and a delivery that keeps
failing is given up after FEED_DELIVERY_MAX_ATTEMPTS, loudly."""

import logging
import random
from datetime import UTC, datetime, timedelta

import bson
import pytest
from pymongo.errors import WriteError

from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from profiles import services as graph
from profiles.documents import User
from socialsite.clock import now
from socialsite.cursors import Cursor
from timelines.delivery import fanout, retry, upkeep
from timelines.documents import CacheTimeline, MonthTimeline
from timelines.selectors import pages as selectors
from timelines.stores import get_store, month

JUNE = datetime(2025, 6, 1, tzinfo=UTC)


def walk(kind: str, handle: str) -> list:
    """Every post of a feed, page after page, through the pages' own cursors."""
    user = User.objects.get(handle=handle)
    seen, before = [], None
    for _ in range(100):
        if kind == "news":
            page = selectors.news_page(user, before)
        else:
            page = selectors.wall_page(user, user, before)
        seen += [p["_id"] for p in page.posts]
        if page.next_cursor is None:
            return seen
        before = Cursor.decode(page.next_cursor)
    raise AssertionError("the pages never end")


@pytest.fixture
def pair(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    return ada, bob


# --- month: a capped document per part ---------------------------------------------


def test_a_busy_month_rolls_over_into_parts_and_pages_read_them_all(settings, pair):
    settings.FEED_MODEL, settings.FEED_MONTH_CAP, settings.FEED_PAGE_SIZE = "month", 3, 4
    ada, _ = pair
    rng = random.Random(3)
    # Delivered out of time order, as concurrent workers and backfills do.
    stamps = [JUNE + timedelta(hours=h) for h in rng.sample(range(600), 10)]
    posts = [
        services.post_create(
            author=ada, type="status", detail={"text": str(i)}, circles=[PUBLIC], ts=ts
        )
        for i, ts in enumerate(stamps)
    ]
    parts = list(
        MonthTimeline._get_collection().find({"owner": "bob", "kind": "news"}).sort("part", 1)
    )
    assert [p["part"] for p in parts] == [0, 1, 2, 3]
    assert [len(p["entries"]) for p in parts] == [3, 3, 3, 1]
    for part in parts:  # each part newest first, so a page reads only its head
        keys = [(e["ts"], e["id"]) for e in part["entries"]]
        assert keys == sorted(keys, reverse=True)
    newest_first = [p.id for p in sorted(posts, key=lambda p: (p.ts, p.id), reverse=True)]
    assert walk("news", "bob") == newest_first
    assert walk("wall", "ada") == newest_first

    # Re-delivering a post of a full part adds nothing that a page shows twice.
    Post.objects(id=posts[0].id).update_one(set__delivery__state="delivering")
    fanout.deliver_post(posts[0].id)
    assert walk("news", "bob") == newest_first

    # A rebuild (more than a part's worth in one month) splits into parts too.
    upkeep.rebuild("bob", "news")
    sizes = [
        len(p["entries"])
        for p in MonthTimeline._get_collection().find({"owner": "bob", "kind": "news"})
    ]
    assert sorted(sizes) == [1, 3, 3, 3]
    assert walk("news", "bob") == newest_first


def test_a_month_page_reads_only_the_head_of_each_part(settings, pair, monkeypatch):
    settings.FEED_MODEL, settings.FEED_MONTH_CAP = "month", 30
    ada, _ = pair
    posts = [
        services.post_create(
            author=ada,
            type="status",
            detail={"text": str(i)},
            circles=[PUBLIC],
            ts=JUNE + timedelta(minutes=i),
        )
        for i in range(40)
    ]
    real, returned = month._collection(), []

    class Spy:
        def __getattr__(self, name):
            return getattr(real, name)

        def aggregate(self, pipeline, **kwargs):
            rows = list(real.aggregate(pipeline, **kwargs))
            returned.append([len(row["page"]) for row in rows])
            return iter(rows)

    monkeypatch.setattr(month, "_collection", Spy)
    store = get_store()
    first = store.entries("news", "bob", None, 5)
    second = store.entries("news", "bob", Cursor.of(first.entries[-1]), 5)
    # Two parts (30 + 10 entries), the newer first: each answers at most
    # `limit + 1` entries older than the cursor, never its whole array.
    assert returned == [[6, 6], [5, 6]]
    newest = [p.id for p in reversed(posts)][:10]
    assert [e["id"] for e in first.entries + second.entries] == newest


# --- embedded copies: a byte budget -------------------------------------------------


def test_a_huge_post_is_linked_not_embedded_and_its_page_shows_it_whole(settings, pair, login):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", True
    settings.FEED_EMBED_MAX_BYTES = 4000
    ada, bob = pair
    huge_text = "word " * 20_000  # 100 kB: 800 of them would pass 16 MB
    small = services.post_create(
        author=ada, type="status", detail={"text": "small"}, circles=[PUBLIC]
    )
    huge = services.post_create(
        author=ada, type="status", detail={"text": huge_text}, circles=[PUBLIC]
    )
    doc = CacheTimeline._get_collection().find_one({"owner": "bob", "kind": "news"})
    entries = {e["id"]: e for e in doc["entries"]}
    assert "post" in entries[small.id]  # embedded
    assert "post" not in entries[huge.id]  # a link: no copy at all
    assert len(bson.encode(doc)) < 2 * settings.FEED_EMBED_MAX_BYTES

    html = login(bob).get("/feed/").content.decode()
    assert f'id="post-{huge.id}"' in html and huge_text.strip() in html
    assert f'id="post-{small.id}"' in html

    # An edit that takes a copy past the budget turns it into a link...
    services.post_edit(post_id=small.id, actor=ada, changes={"text": huge_text + "edited"})
    doc = CacheTimeline._get_collection().find_one({"owner": "bob", "kind": "news"})
    assert all("post" not in e for e in doc["entries"])
    html = login(bob).get("/feed/").content.decode()
    assert "edited" in html
    # ...and a link never grows half a copy when the post changes again.
    services.post_edit(post_id=small.id, actor=ada, changes={"text": "short again"})
    doc = CacheTimeline._get_collection().find_one({"owner": "bob", "kind": "news"})
    assert all("post" not in e for e in doc["entries"])
    assert "short again" in login(bob).get("/feed/").content.decode()


def test_many_huge_posts_keep_the_cache_document_small(settings, pair):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", True
    ada, _ = pair
    for i in range(30):
        services.post_create(
            author=ada, type="status", detail={"text": f"{i} " + "x" * 60_000}, circles=[PUBLIC]
        )
    doc = CacheTimeline._get_collection().find_one({"owner": "bob", "kind": "news"})
    assert len(doc["entries"]) == 30
    # Link entries: a few dozen bytes each, where copies would be 1.8 MB.
    assert len(bson.encode(doc)) < 30 * 200


# --- deliveries are never retried forever --------------------------------------------


def test_a_delivery_that_keeps_failing_is_given_up_and_shown_to_moderators(
    settings, pair, make_user, login, monkeypatch, caplog
):
    settings.FEED_MODEL, settings.FEED_DELIVERY_MAX_ATTEMPTS = "month", 3
    ada, _ = pair
    store_class = type(get_store())

    def too_large(self, kind, owners, entry):
        raise WriteError("Resulting document after update is larger than 16777216", 17419)

    monkeypatch.setattr(store_class, "deliver", too_large)
    post = services.post_create(author=ada, type="status", detail={"text": "x"}, circles=[PUBLIC])
    for _ in range(5):  # the sweeper runs again and again
        Post._get_collection().update_one(
            {"_id": post.id}, {"$set": {"delivery.started": now() - timedelta(hours=1)}}
        )
        with caplog.at_level(logging.ERROR, logger="timelines.delivery.fanout"):
            retry.redeliver_pending(older_than_seconds=60)
    delivery = Post.objects.get(id=post.id).delivery
    assert delivery.state == "failed" and delivery.attempts == 3
    assert "17419" in delivery.error or "16777216" in delivery.error
    errors = [
        r
        for r in caplog.records
        if r.levelno == logging.ERROR and r.name == "timelines.delivery.fanout"
    ]
    assert len(errors) == 1 and str(post.id) in errors[0].getMessage()
    assert retry.redeliver_pending(older_than_seconds=0) == 0

    moderator = make_user("mod", role="moderator")
    html = login(moderator).get("/mod/").content.decode()
    assert 'data-count="failed-deliveries">1<' in html
    assert f'data-failed-post="{post.id}"' in html
    assert f'href="/posts/{post.id}/"' in html


def test_a_worker_that_keeps_dying_is_given_up_by_the_sweeper(settings, pair, caplog):
    settings.FEED_DELIVERY_MAX_ATTEMPTS = 2
    ada, _ = pair
    post = services.post_create(author=ada, type="status", detail={"text": "x"}, circles=[PUBLIC])
    # Its worker claimed it twice and died both times (nothing could catch it).
    Post._get_collection().update_one(
        {"_id": post.id},
        {
            "$set": {
                "delivery.state": "delivering",
                "delivery.attempts": 2,
                "delivery.started": now() - timedelta(hours=1),
            }
        },
    )
    with caplog.at_level(logging.ERROR, logger="timelines.delivery.fanout"):
        assert retry.redeliver_pending(older_than_seconds=60) == 0
    assert Post.objects.get(id=post.id).delivery.state == "failed"
    assert any(
        str(post.id) in r.getMessage() for r in caplog.records if r.levelno == logging.ERROR
    )


def test_an_empty_dashboard_lists_no_failed_deliveries(make_user, login):
    html = login(make_user("mod", role="moderator")).get("/mod/").content.decode()
    assert 'data-count="failed-deliveries">0<' in html
    assert "data-failed-post=" not in html
