"""The feed management commands and the benchmark's smoke run."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from feeds.documents import PUBLIC, Author, Delivery, Post
from feeds.services import posts as services
from profiles import services as graph
from socialsite import mongo
from socialsite.clock import now
from timelines.documents import CacheTimeline


def run(*args, **kwargs) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO(), **kwargs)
    return out.getvalue()


def news_ids(handle: str) -> list:
    doc = CacheTimeline._get_collection().find_one({"owner": handle, "kind": "news"})
    return [entry["id"] for entry in doc["entries"]] if doc else []


def wall_ids(handle: str) -> list:
    doc = CacheTimeline._get_collection().find_one({"owner": handle, "kind": "wall"})
    return [entry["id"] for entry in doc["entries"]] if doc else []


@pytest.fixture
def cache_world(settings, make_user):
    """ada posts twice; bob and cat follow her and have the posts in their caches."""
    settings.FEED_MODEL = "cache"
    ada, bob, cat = make_user("ada"), make_user("bob"), make_user("cat")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=cat, followee="ada")
    posts = [
        services.post_create(
            author=ada,
            type="status",
            detail={"text": f"hello {i}"},
            circles=[PUBLIC],
            ts=now() - timedelta(minutes=10 - i),
        )
        for i in range(2)
    ]
    expected = [p.id for p in reversed(posts)]  # newest first
    assert news_ids("bob") == expected
    assert news_ids("cat") == expected
    return expected


def empty_caches():
    CacheTimeline._get_collection().update_many({}, {"$set": {"entries": []}})


# --- rebuild_feeds ------------------------------------------------------------


def test_rebuild_one_user_refills_their_emptied_cache(cache_world):
    empty_caches()
    out = run("rebuild_feeds", "--user", "BOB")
    assert news_ids("bob") == cache_world
    assert news_ids("cat") == []  # only the user asked for
    assert "Rebuilt 2 timeline(s)" in out


def test_rebuild_all_refills_every_cache(cache_world):
    empty_caches()
    out = run("rebuild_feeds", "--all")
    assert news_ids("bob") == cache_world
    assert news_ids("cat") == cache_world
    assert wall_ids("ada") == cache_world
    assert "of 3 user(s)" in out


def test_rebuild_one_kind_only(cache_world):
    empty_caches()
    run("rebuild_feeds", "--all", "--kind", "wall")
    assert wall_ids("ada") == cache_world
    assert news_ids("bob") == []


@pytest.mark.parametrize("handle", ["nobody", "$where", "a", "x" * 40, "{'$ne': 1}"])
def test_rebuild_refuses_an_unknown_or_malformed_handle(cache_world, handle):
    with pytest.raises(CommandError, match="No such user"):
        run("rebuild_feeds", "--user", handle)


@pytest.mark.parametrize("args", [(), ("--user", "bob", "--all"), ("--kind", "news")])
def test_rebuild_needs_exactly_one_of_user_or_all(cache_world, args):
    with pytest.raises(CommandError):
        run("rebuild_feeds", *args)


def test_rebuild_refuses_an_unknown_kind(cache_world):
    with pytest.raises(CommandError):
        run("rebuild_feeds", "--all", "--kind", "incoming")


def test_rebuild_under_the_read_model_has_nothing_to_do(settings, make_user):
    settings.FEED_MODEL = "read"
    make_user("ada")
    out = run("rebuild_feeds", "--all")
    assert "nothing to rebuild" in out


# --- redeliver_pending --------------------------------------------------------


def stuck_post(author: str, *, queued_ago: timedelta) -> Post:
    """A post whose delivery task was lost: still pending since `queued_ago`."""
    post = Post(
        by=Author(id=author, name=author.title()),
        circles=[PUBLIC],
        type="status",
        detail={"text": "lost in the queue"},
        delivery=Delivery(state="pending", queued=now() - queued_ago),
    )
    post.save(force_insert=True)
    return post


def delivery_state(post: Post) -> str:
    return Post._get_collection().find_one({"_id": post.id})["delivery"]["state"]


def test_redeliver_pending_delivers_a_stuck_post(settings, make_user):
    settings.FEED_MODEL = "cache"
    make_user("ada")
    bob = make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    old = stuck_post("ada", queued_ago=timedelta(hours=1))
    recent = stuck_post("ada", queued_ago=timedelta(seconds=5))
    out = run("redeliver_pending")
    assert "1 post(s) re-enqueued" in out
    assert delivery_state(old) == "done"
    assert news_ids("bob") == [old.id]
    assert delivery_state(recent) == "pending"  # younger than FEED_PENDING_SECONDS

    out = run("redeliver_pending", "--older-than", "0")
    assert "1 post(s) re-enqueued" in out
    assert delivery_state(recent) == "done"
    assert set(news_ids("bob")) == {old.id, recent.id}
    # Done posts are left alone; running it again delivers nothing twice.
    assert "0 post(s)" in run("redeliver_pending", "--older-than", "0")
    assert len(news_ids("bob")) == 2


def test_redeliver_pending_refuses_a_negative_age():
    with pytest.raises(CommandError):
        run("redeliver_pending", "--older-than", "-1")


# --- feed_stats ---------------------------------------------------------------


def test_feed_stats_reports_every_model_and_delivery_states(cache_world):
    stuck_post("ada", queued_ago=timedelta(hours=1))
    out = run("feed_stats")
    lines = out.splitlines()
    for model, collection in [
        ("cache", "timeline_cache"),
        ("month", "timeline_month"),
        ("size", "timeline_size"),
    ]:
        assert any(line.split()[:2] == [model, collection] for line in lines), out
    assert any(line.startswith("read ") for line in lines)
    # 3 users x 2 kinds; 2 posts in 2 news caches and ada's wall and news.
    cache_line = next(line for line in lines if line.startswith("cache "))
    assert cache_line.split()[2:4] == ["6", "8"]
    assert "posts by delivery state: pending 1, delivering 0, done 2, failed 0 (total 3)" in out
    if mongo.is_demo():
        assert "n/a (demo mode)" in out


# The shard plan's tests are in tests/test_shard_plan.py.


# --- the benchmark stays runnable ---------------------------------------------


def test_benchmark_smoke_run(capsys):
    from benchmarks import feeds as bench

    argv = ["--users", "12", "--maxfollows", "4", "--posts", "5", "--reads", "3", "--wipe"]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("model "))
    assert [cell.strip() for cell in header.split("|")] == list(bench.HEADER)
    for model in bench.TIMELINE_MODELS:
        assert any(line.startswith(f"{model} ") for line in out.splitlines())
    if mongo.is_demo():
        assert "not MongoDB" in out


@pytest.mark.parametrize("model", ["cache", "month", "size"])
def test_rebuild_all_restores_every_stored_model(settings, make_user, model):
    from timelines.stores import get_store

    settings.FEED_MODEL = model
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    for i in range(3):
        services.post_create(author=ada, type="status", detail={"text": f"p{i}"}, circles=[PUBLIC])
    store = get_store()
    before = store.stats()
    assert before["entries"] == 9  # ada's wall and news, bob's news
    store_collection = before["collection"]
    mongo.database()[store_collection].delete_many({})
    run("rebuild_feeds", "--all")
    assert store.stats()["entries"] == before["entries"]


def test_the_celebrity_benchmark_shows_a_pulled_send_costs_the_same_whatever_the_followers(
    capsys,
):
    from benchmarks import celebrity as bench

    assert bench.main(["--followers", "30", "--sends", "2", "--reads", "2", "--wipe"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("model "))
    assert [cell.strip() for cell in header.split("|")] == list(bench.HEADER)
    rows = {
        tuple(cell.strip() for cell in line.split("|")[:2]): [c.strip() for c in line.split("|")]
        for line in lines
        if line.split("|")[0].strip() in bench.STORED_MODELS
    }
    for model in bench.STORED_MODELS:
        pushed, pulled = rows[(model, "pushed")], rows[(model, "pulled")]
        # Entries per send: every follower's news and the author's news and
        # wall, or the author's two only.
        assert float(pushed[4]) == 32.0 and float(pulled[4]) == 2.0, (pushed, pulled)
        assert float(pulled[2]) == 8.0 and float(pushed[2]) > float(pulled[2])
