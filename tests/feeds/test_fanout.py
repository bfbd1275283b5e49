"""Fan-out on write: batching, idempotence, crash and retry, inactive readers,
and graph changes reaching the feeds."""

import math
from datetime import timedelta

import pytest

from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from profiles import services as graph
from profiles.documents import FollowerEdge, FollowingEdge, User
from socialsite.clock import now
from socialsite.cursors import EPOCH
from timelines.delivery import fanout, retry, upkeep
from timelines.documents import CacheTimeline, PulledAuthor
from timelines.selectors import pages as selectors
from timelines.stores import get_store

WRITE_MODELS = ["cache", "month", "size"]


@pytest.fixture(params=WRITE_MODELS)
def model(request, settings):
    settings.FEED_MODEL = request.param
    return request.param


def insert_active_users(handles: list[str]) -> None:
    """Many active users at once (test set-up, not the subject under test)."""
    t = now()
    User._get_collection().insert_many(
        [
            {
                "_id": h,
                "name": h,
                "password": "x",
                "status": "active",
                "last_seen": t,
                "blocked": [],
            }
            for h in handles
        ]
    )


def bulk_followers(star: str, n: int) -> list[str]:
    """n active followers of `star`, inserted in bulk (the graph, not the test subject)."""
    handles = [f"fan{i:05d}" for i in range(n)]
    insert_active_users(handles)
    FollowerEdge._get_collection().insert_many([{"_f": star, "_t": h} for h in handles])
    if get_store().name == "cache":
        CacheTimeline._get_collection().insert_many(
            [{"owner": h, "kind": k, "entries": []} for h in handles for k in ("wall", "news")]
        )
    return handles


def news_ids(handle: str) -> list:
    user = User.objects.get(handle=handle)
    return [p["_id"] for p in selectors.news_page(user).posts]


def entries_of(post_id, owners) -> dict[str, int]:
    """How many entries for `post_id` each owner's news holds, across documents."""
    counts = dict.fromkeys(owners, 0)
    store = get_store()
    for owner in owners:
        chunk = store.entries("news", owner, None, 1000)
        counts[owner] = sum(1 for e in chunk.entries if e["id"] == post_id)
    return counts


def test_fanout_round_trips_grow_with_batches_not_followers(
    model, settings, make_user, round_trips
):
    """More followers than a server's first batch (101): counted with getMore,
    the reads stay one round trip per batch."""
    star = make_user("star")
    bulk_followers("star", 250)
    # 500: all 250 in one page, past 101 documents; 125: pages end exactly
    # at the last follower (the one-document lookahead saves an empty page);
    # 100: a last page shorter than the others.
    for batch in (500, 125, 100):
        settings.FEED_FANOUT_BATCH = batch
        with round_trips() as c:
            post = services.post_create(
                author=star, type="status", detail={"text": "hello"}, circles=[PUBLIC]
            )
        assert Post.objects.get(id=post.id).delivery.state == "done"
        assert Post.objects.get(id=post.id).delivery.readers == 251
        # The constant: insert the post, author's counter, claim, wall,
        # re-check after writing, done (6). Per batch (the author joins the
        # first): read a page of followers, filter active readers, write (3).
        assert c.total == 6 + 3 * math.ceil(250 / batch), c.commands
        assert "getMore" not in c.commands
    assert entries_of(post.id, ["fan00000", "fan00249", "star"]) == {
        "fan00000": 1,
        "fan00249": 1,
        "star": 1,
    }


def test_a_pulled_authors_post_costs_the_same_whatever_their_followers(
    settings, make_user, round_trips
):
    """Hybrid fan-out (docs/performance.md#celebrities-are-pulled): 1,000
    followers past a threshold of 500. The post that counts them is pushed
    and marks the author; the next one is written to the author's own
    timelines only, in a constant number of round trips."""
    settings.FEED_MODEL, settings.FEED_PULL_THRESHOLD, settings.FEED_FANOUT_BATCH = (
        "cache",
        500,
        250,
    )
    star = make_user("star")
    fans = bulk_followers("star", 1000)
    # A page pulls along the reader's own edges (`following`), which the
    # delivery does not read.
    FollowingEdge._get_collection().insert_many(
        [{"_f": fan, "_t": "star", "_g": [], "state": "active"} for fan in fans]
    )
    with round_trips() as pushed:
        services.post_create(author=star, type="status", detail={"text": "a"}, circles=[PUBLIC])
    # Pushed in 4 batches, then the mark (1). Through a driver a batch's bulk
    # write under `size` may be two commands (closing buckets, opening one).
    assert 6 + 3 * 4 + 1 <= pushed.total <= 6 + 4 * 4 + 1, pushed.commands
    # Past the grace, every process has read the mark.
    PulledAuthor.objects(handle="star").update_one(set__since=EPOCH)
    with round_trips() as pulled:
        post = services.post_create(
            author=star, type="status", detail={"text": "b"}, circles=[PUBLIC]
        )
    # The constant (6), this process reading the list again after its mark
    # (1), and the author's own news: filter, write (2).
    assert pulled.total == 6 + 1 + 2, pulled.commands
    assert Post.objects.get(id=post.id).delivery.readers == 1
    assert entries_of(post.id, ["fan00000", "fan00999", "star"]) == {
        "fan00000": 0,
        "fan00999": 0,
        "star": 1,
    }
    assert news_ids("fan00999")[0] == post.id


def test_crash_halfway_then_retry_leaves_exactly_one_entry(
    model, settings, make_user, monkeypatch
):
    settings.FEED_FANOUT_BATCH = 10
    star = make_user("star")
    fans = bulk_followers("star", 55)
    post = Post(
        by={"id": "star", "name": "Star"},
        circles=[PUBLIC],
        type="status",
        detail={"text": "crash"},
        ts=now(),
    )
    post.save()
    store_class = type(get_store())
    real_deliver = store_class.deliver
    calls = {"n": 0}

    def dying_deliver(self, kind, owners, entry):
        if kind == "news":
            calls["n"] += 1
            if calls["n"] == 3:
                # Half the batch lands, then the worker dies.
                real_deliver(self, kind, owners[: len(owners) // 2], entry)
                raise RuntimeError("worker died")
        return real_deliver(self, kind, owners, entry)

    monkeypatch.setattr(store_class, "deliver", dying_deliver)
    with pytest.raises(RuntimeError):
        fanout.deliver_post(post.id)
    assert Post.objects.get(id=post.id).delivery.state == "delivering"
    counts = entries_of(post.id, fans)
    assert 0 < sum(counts.values()) < len(fans)

    monkeypatch.setattr(store_class, "deliver", real_deliver)
    fanout.deliver_post(post.id)
    fanout.deliver_post(post.id)  # a duplicate run after success is a no-op
    # And re-running an unfinished delivery from scratch is idempotent too.
    Post.objects(id=post.id).update_one(set__delivery__state="delivering")
    fanout.deliver_post(post.id)
    assert set(entries_of(post.id, [*fans, "star"]).values()) == {1}
    assert Post.objects.get(id=post.id).delivery.state == "done"
    assert star.handle in User.objects.get(handle="star").handle


def test_redeliver_pending_picks_up_stuck_posts(model, make_user, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    post = services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    assert Post.objects.get(id=post.id).delivery.state == "pending"
    assert news_ids("fan") == [] or get_store().name == "read"
    Post.objects(id=post.id).update_one(set__delivery__queued=now() - timedelta(hours=1))
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    assert retry.redeliver_pending(older_than_seconds=60) == 1
    assert Post.objects.get(id=post.id).delivery.state == "done"
    assert news_ids("fan") == [post.id]


def test_inactive_readers_get_no_fanout_and_are_rebuilt_on_return(
    model, make_user, settings, login
):
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    User.objects(handle="fan").update_one(set__last_seen=now() - timedelta(days=30))
    post = services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    assert entries_of(post.id, ["fan"]) == {"fan": 0}
    assert Post.objects.get(id=post.id).delivery.readers == 1  # the author only

    # While the rebuild is queued, the page says so and reads the read model.
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    client = login(User.objects.get(handle="fan"))
    html = client.get("/feed/").content.decode()
    assert "catching up your feed" in html
    assert f'data-post-id="{post.id}"' in html
    assert User.objects.get(handle="fan").feed_rebuild is not None

    # The rebuild itself (what the worker runs) fills the timeline.
    upkeep.rebuild("fan", "news")
    assert entries_of(post.id, ["fan"]) == {"fan": 1}
    assert User.objects.get(handle="fan").feed_rebuild is None
    assert "catching up" not in client.get("/feed/").content.decode()


def test_graph_changes_reach_the_feeds(model, make_user):
    star, fan, other = make_user("star"), make_user("fan"), make_user("other")
    posts = [
        services.post_create(
            author=star, type="status", detail={"text": f"p{i}"}, circles=[PUBLIC]
        )
        for i in range(3)
    ]
    # Following backfills the followee's recent posts.
    graph.follow_create(follower=fan, followee="star")
    assert news_ids("fan") == [p.id for p in reversed(posts)]
    # Unfollowing takes them out.
    graph.follow_delete(follower="fan", followee="star")
    assert news_ids("fan") == []
    # A circle post reaches circle members even if they don't follow back.
    graph.circle_create(owner=star, name="close")
    graph.follow_create(follower=star, followee="fan", circles=["close"])
    secret = services.post_create(
        author=star, type="status", detail={"text": "s"}, circles=["close"]
    )
    assert news_ids("fan") == [secret.id]
    # Taking fan out of the circle takes the post out of fan's news.
    graph.circle_remove_member(owner=User.objects.get(handle="star"), name="close", member="fan")
    assert news_ids("fan") == []
    # Blocking removes the blocked author's posts.
    graph.follow_create(follower=other, followee="star")
    assert len(news_ids("other")) == 3
    graph.block_create(blocker=User.objects.get(handle="other"), blocked="star")
    assert news_ids("other") == []
    # Deleting a post removes it from every timeline.
    graph.follow_create(follower=fan, followee="star")
    services.post_delete(post_id=posts[0].id, actor=star)
    assert posts[0].id not in news_ids("fan")
    assert posts[0].id not in [p["_id"] for p in selectors.wall_page(star, star).posts]


@pytest.mark.parametrize("embed", [False, True])
def test_edited_post_shows_new_text_everywhere(model, settings, embed, make_user):
    settings.FEED_EMBED = embed
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    post = services.post_create(
        author=star, type="status", detail={"text": "old"}, circles=[PUBLIC]
    )
    services.post_edit(post_id=post.id, actor=star, changes={"text": "new"})
    fan_user = User.objects.get(handle="fan")
    [seen] = selectors.news_page(fan_user).posts
    assert seen["detail"]["text"] == "new" and seen["edited"] is not None
    [on_wall] = selectors.wall_page(star, fan_user).posts
    assert on_wall["detail"]["text"] == "new"


@pytest.mark.parametrize("followed", [5, 200])
def test_cache_feed_page_is_two_round_trips(settings, make_user, round_trips, followed):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", False
    reader = make_user("reader")
    authors = [f"author{i:03d}" for i in range(followed)]
    insert_active_users(authors)
    for h in authors:
        graph.follow_create(follower=reader, followee=h)
    for i in range(30):
        services.post_create(
            author=User.objects.get(handle=authors[i % followed]),
            type="status",
            detail={"text": f"t{i}"},
            circles=[PUBLIC],
        )
    reader = User.objects.get(handle="reader")
    with round_trips() as c:
        page = selectors.news_page(reader)
    assert len(page.posts) == settings.FEED_PAGE_SIZE
    assert c.total <= 2, c.commands
    with round_trips() as c:
        from socialsite.cursors import Cursor

        selectors.news_page(reader, Cursor.decode(page.next_cursor))
    assert c.total <= 2, c.commands


def test_cache_falls_back_to_the_read_model_past_the_cap_and_without_a_document(
    settings, make_user
):
    settings.FEED_MODEL, settings.FEED_CACHE_SIZE, settings.FEED_PAGE_SIZE = "cache", 5, 4
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    made = [
        services.post_create(
            author=star, type="status", detail={"text": f"{i}"}, circles=[PUBLIC]
        ).id
        for i in range(12)
    ]
    cached = get_store().entries("news", "fan", None, 100)
    assert len(cached.entries) == 5 and not cached.complete  # capped

    def walk():
        from socialsite.cursors import Cursor

        user, seen, cursor = User.objects.get(handle="fan"), [], None
        while True:
            page = selectors.news_page(user, cursor)
            seen += [p["_id"] for p in page.posts]
            if not page.next_cursor:
                return seen
            cursor = Cursor.decode(page.next_cursor)

    assert walk() == list(reversed(made))
    CacheTimeline._get_collection().delete_many({"owner": "fan"})
    assert walk() == list(reversed(made))


def test_removal_racing_with_delivery_leaves_no_entry(model, settings, make_user, monkeypatch):
    """A moderator removes the post while its delivery is writing batches."""
    settings.FEED_FANOUT_BATCH = 5
    star = make_user("star")
    fans = bulk_followers("star", 20)
    store_class = type(get_store())
    real_deliver = store_class.deliver

    def removal_midway(self, kind, owners, entry):
        if kind == "news" and owners[0] == fans[5]:
            Post.objects(id=entry["id"]).update_one(set__removed={"by": "mod", "reason": "x"})
            upkeep.remove_everywhere(entry["id"])  # what the moderator's removal does
        return real_deliver(self, kind, owners, entry)

    monkeypatch.setattr(store_class, "deliver", removal_midway)
    post = services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    assert set(entries_of(post.id, [*fans, "star"]).values()) == {0}
