"""Time as MongoDB keeps it (docs/performance.md): posts are stamped to the
millisecond at the source, and every model pages on (ts, _id), so posts of
the same millisecond are neither repeated nor skipped across pages.

mongomock's `$push` sorts a compound `$sort` by one key only; the demo
database layer (embedded_mongo/push_sort.py) sorts like a server, and the `cache`
reads sort their page by (ts, id) again, so both must hold here.
"""

import random
from datetime import UTC, datetime, timedelta

import pytest

from feeds import demo
from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from profiles import services as graph
from socialsite.clock import now, to_millis
from socialsite.cursors import Cursor
from tests.feeds.test_real_limits import walk
from timelines.delivery import upkeep
from timelines.documents import CacheTimeline

MODELS = ["cache", "month", "size", "read"]
INSTANT = datetime(2025, 6, 30, 23, 59, 59, 999_000, tzinfo=UTC)


def test_post_times_are_milliseconds_at_the_source(make_user):
    ada = make_user("ada")
    assert now().microsecond % 1000 == 0
    backdated = services.post_create(
        author=ada,
        type="status",
        detail={"text": "then"},
        circles=[PUBLIC],
        ts=datetime(2025, 6, 1, 12, 0, 0, 123_456, tzinfo=UTC),
    )
    fresh = services.post_create(
        author=ada, type="status", detail={"text": "now"}, circles=[PUBLIC]
    )
    for post in (backdated, fresh):
        stored = Post._get_collection().find_one({"_id": post.id})["ts"]
        assert stored.microsecond % 1000 == 0 and post.ts.microsecond % 1000 == 0
    assert backdated.ts.replace(tzinfo=UTC) == datetime(2025, 6, 1, 12, 0, 0, 123_000, tzinfo=UTC)
    assert to_millis(datetime(2025, 1, 1, 0, 0, 0, 999_999)).microsecond == 999_000


def test_demo_posts_are_stamped_to_the_millisecond(make_user, monkeypatch):
    """At the source: the times the demo plans its posts at, which it hands
    to `post_create` or writes in bulk (a round trip through BSON would hide
    microseconds, so the plan is checked)."""
    handles = [make_user(h).handle for h in ("ada", "bob", "cyd", "dee")]
    stamps, real_plan = [], demo._plan

    def recording_plan(*args, **kwargs):
        planned = real_plan(*args, **kwargs)
        stamps.extend(post["ts"] for post in planned)
        return planned

    monkeypatch.setattr(demo, "_plan", recording_plan)
    demo.seed_more(handles=handles, seed=5, posts_per_user=2)
    assert len(stamps) == 8
    assert all(ts.microsecond % 1000 == 0 for ts in stamps)
    assert Post.objects.count() >= 6


def write_crowd(ada) -> list:
    """25 posts by ada in one millisecond, 5 a millisecond earlier, 5 later,
    written in a shuffled order (ids do not follow times); newest first."""
    stamps = [INSTANT] * 25 + [INSTANT - timedelta(milliseconds=1)] * 5
    stamps += [INSTANT + timedelta(milliseconds=1)] * 5
    random.Random(11).shuffle(stamps)
    posts = [
        services.post_create(
            author=ada, type="status", detail={"text": f"p{i}"}, circles=[PUBLIC], ts=ts
        )
        for i, ts in enumerate(stamps)
    ]
    return sorted(posts, key=lambda p: (p.ts, p.id), reverse=True)


@pytest.fixture
def crowd(make_user):
    """The crowd, delivered under the default model; bob follows ada."""
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    return write_crowd(ada)


@pytest.mark.parametrize("embed", [False, True])
@pytest.mark.parametrize("model", MODELS)
def test_same_millisecond_posts_page_once_each_in_order(model, embed, settings, crowd):
    settings.FEED_MODEL, settings.FEED_EMBED = model, embed
    settings.FEED_PAGE_SIZE, settings.FEED_CACHE_SIZE, settings.FEED_BUCKET_SIZE = 4, 100, 6
    settings.FEED_MONTH_CAP = 7
    for handle in ("ada", "bob"):  # the crowd was delivered under the default model
        upkeep.rebuild(handle, "news")
        upkeep.rebuild(handle, "wall")
    expected = [p.id for p in crowd]
    assert walk("news", "bob") == expected
    assert walk("wall", "ada") == expected


@pytest.mark.parametrize("model", ["cache", "month", "size"])
def test_same_millisecond_posts_delivered_live_page_once_each(model, settings, make_user):
    settings.FEED_MODEL, settings.FEED_PAGE_SIZE = model, 3
    settings.FEED_BUCKET_SIZE, settings.FEED_MONTH_CAP = 4, 5
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    expected = [p.id for p in write_crowd(ada)]
    assert walk("news", "bob") == expected
    assert walk("wall", "ada") == expected


def test_the_cache_array_is_kept_in_ts_then_id_order(settings, make_user):
    """What a server does with `$push` + `$sort: {ts: -1, id: -1}` + `$slice`,
    and what the demo database must do too."""
    settings.FEED_MODEL, settings.FEED_CACHE_SIZE = "cache", 6
    ada = make_user("ada")
    posts = [
        services.post_create(
            author=ada, type="status", detail={"text": str(i)}, circles=[PUBLIC], ts=ts
        )
        for i, ts in enumerate([INSTANT] * 5 + [INSTANT - timedelta(milliseconds=1)] * 4)
    ]
    entries = CacheTimeline._get_collection().find_one({"owner": "ada", "kind": "wall"})["entries"]
    keep = sorted(posts, key=lambda p: (p.ts, p.id), reverse=True)[:6]
    assert [e["id"] for e in entries] == [p.id for p in keep]
    cursor = Cursor.decode(Cursor(INSTANT, keep[2].id).encode())
    assert cursor == (INSTANT, keep[2].id)  # a cursor holds the millisecond exactly
