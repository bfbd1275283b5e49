"""Shadow timeline models (docs/storage-models.md#shadow-models): with FEED_SHADOW_MODELS
every write keeps every stored model current, so each model, linking or
embedding, shows a reader what the read model (the system of record) shows;
and a delivery that dies halfway and runs again leaves no duplicate in any
store."""

from collections import Counter

import pytest

from feeds.documents import PUBLIC, Post, PostRepost
from feeds.services import posts as services
from feeds.services import reposts
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from socialsite import active
from timelines.delivery import fanout, retry, upkeep
from timelines.documents import CacheTimeline, MonthTimeline, SizeTimeline
from timelines.selectors import pages as selectors
from timelines.stores import get_store, shadow_models, stores_copies, write_stores
from timelines.stores.cache import CacheStore
from timelines.stores.month import MonthStore
from timelines.stores.size import SizeStore

STORED = ("cache", "month", "size")
READ_MODELS = [(m, e) for m in (*STORED, "read") for e in (False, True)]
COLLECTIONS = {"cache": CacheTimeline, "month": MonthTimeline, "size": SizeTimeline}
STORE_CLASSES = {"cache": CacheStore, "month": MonthStore, "size": SizeStore}


@pytest.fixture(params=[*STORED, "read"])
def configured(request, settings):
    """Shadows on, under each configured model (the first of the write stores)."""
    settings.FEED_MODEL = request.param
    settings.FEED_SHADOW_MODELS = "all"
    settings.FEED_EMBED = False
    settings.FEED_BUCKET_SIZE = 2  # several buckets, closed and open
    settings.FEED_MONTH_CAP = 2  # parts that roll over
    return request.param


def shown(handle: str, model: str, embed: bool) -> tuple[list, list]:
    """(news, wall) of `handle` read through one model: (post, reposter) pairs."""
    user = User.objects.get(handle=handle)
    with active.override(timeline_model=model, embed=embed):
        news = selectors.news_page(user).posts
        wall = selectors.wall_page(user, user).posts
    return (
        [(p["_id"], p.get("reposted_by")) for p in news],
        [(p["_id"], p.get("reposted_by")) for p in wall],
    )


def assert_parity(*handles: str) -> None:
    for handle in handles:
        expected = shown(handle, "read", False)
        for model, embed in READ_MODELS:
            assert shown(handle, model, embed) == expected, (handle, model, embed)


def stored_duplicates() -> dict:
    """Entries stored more than once in one timeline, per model (raw documents:
    pages would hide a duplicate, as `month` and `size` keep the first)."""
    found = {}
    for model, document in COLLECTIONS.items():
        counts = Counter(
            (doc["owner"], doc["kind"], entry["id"])
            for doc in document._get_collection().find({})
            for entry in doc["entries"]
        )
        found[model] = {key: n for key, n in counts.items() if n > 1}
    return found


def stored_ids(model: str, owner: str, kind: str) -> list:
    return [e["id"] for e in get_store(model).entries(kind, owner, None, 1000).entries]


def test_write_stores_lists_the_configured_model_first(settings):
    settings.FEED_MODEL, settings.FEED_SHADOW_MODELS = "month", "all"
    assert [s.name for s in write_stores()] == ["month", "cache", "size"]
    settings.FEED_MODEL, settings.FEED_SHADOW_MODELS = "read", "size"
    assert [s.name for s in write_stores()] == ["size"]
    settings.FEED_SHADOW_MODELS = ""
    assert write_stores() == [] and not stores_copies()
    settings.FEED_SHADOW_MODELS = "cache,nope"
    with pytest.raises(ValueError, match="nope"):
        shadow_models()


def test_every_model_shows_what_the_read_model_shows(configured, make_user):
    star = make_user("star")
    fan = make_user("fan")
    other = make_user("other")
    boss = make_user("boss", role="moderator")
    graph.follow_create(follower=fan, followee="star")
    graph.follow_create(follower=other, followee="fan")
    posts = [
        services.post_create(
            author=star, type="status", detail={"text": f"p{i}"}, circles=[PUBLIC]
        )
        for i in range(5)
    ]
    assert_parity("star", "fan", "other")

    # Stored entries carry the copy although FEED_EMBED is off.
    doc = CacheTimeline._get_collection().find_one({"owner": "fan", "kind": "news"})
    assert all("post" in entry for entry in doc["entries"])

    services.post_edit(post_id=posts[1].id, actor=star, changes={"text": "edited"})
    assert_parity("fan")
    for model in STORED:  # the copies in every model were refreshed
        with active.override(timeline_model=model, embed=True):
            page = selectors.news_page(User.objects.get(handle="fan")).posts
        assert {p["_id"]: p["detail"]["text"] for p in page}[posts[1].id] == "edited"

    reposts.repost_create(post_id=posts[0].id, user=User.objects.get(handle="fan"))
    assert_parity("fan", "other")
    services.post_delete(post_id=posts[2].id, actor=star)
    assert_parity("star", "fan")
    moderation.post_remove(moderator=boss, target=Target("post", str(posts[3].id)))
    assert_parity("star", "fan", "other")
    reposts.repost_delete(post_id=posts[0].id, user=User.objects.get(handle="fan"))
    assert_parity("fan", "other")
    graph.follow_delete(follower="fan", followee="star")
    assert_parity("fan")
    assert shown("fan", "read", False)[0] == []
    graph.follow_create(follower=User.objects.get(handle="fan"), followee="star")
    assert_parity("fan")
    assert len(shown("fan", "read", False)[0]) == 3
    for model in STORED:
        upkeep.rebuild("fan", "news")
        assert stored_ids(model, "fan", "news") == [p[0] for p in shown("fan", "read", False)[0]]
    assert stored_duplicates() == {"cache": {}, "month": {}, "size": {}}


def test_a_link_read_loads_posts_from_post_and_an_embed_read_does_not(
    configured, make_user, round_trips
):
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    for i in range(3):
        services.post_create(author=star, type="status", detail={"text": f"{i}"}, circles=[PUBLIC])
    fan = User.objects.get(handle="fan")
    # Changed in `post` only, as if its copies were not refreshed yet: a link
    # read shows what `post` holds, an embed read its copy.
    newest = Post._get_collection().find_one({"by.id": "star"}, sort=[("ts", -1)])
    Post._get_collection().update_one(
        {"_id": newest["_id"]}, {"$set": {"detail.text": "read from post"}}
    )
    for model in STORED:
        with active.override(timeline_model=model, embed=False), round_trips() as link:
            linked = selectors.news_page(fan).posts
        with active.override(timeline_model=model, embed=True), round_trips() as embed:
            embedded = selectors.news_page(fan).posts
        assert [p["_id"] for p in linked] == [p["_id"] for p in embedded]
        assert linked[0]["detail"]["text"] == "read from post", model
        assert embedded[0]["detail"]["text"] == "2", model
        # Linked posts come with the timeline's own aggregate where the
        # store takes lookups (`cache`); the other models read them apart.
        separate = "post" in [d.collection for d in link.details]
        assert separate == (model != "cache"), model
        assert "post" not in [d.collection for d in embed.details], model


@pytest.mark.parametrize("dying", STORED)
def test_a_delivery_that_dies_between_stores_is_completed_by_the_sweeper(
    configured, dying, make_user, monkeypatch, settings
):
    """One store's write raises once, halfway through a batch: the stores
    before it hold the entry, the rest do not. The sweeper runs the delivery
    again: every store ends with exactly one entry per reader."""
    settings.FEED_FANOUT_BATCH = 3
    star = make_user("star")
    fans = [make_user(f"fan{i}") for i in range(7)]
    for fan in fans:
        graph.follow_create(follower=fan, followee="star")
    # Older posts first, so that buckets close and month parts roll over.
    for i in range(3):
        text = {"text": f"old {i}"}
        services.post_create(author=star, type="status", detail=text, circles=[PUBLIC])
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    post = services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

    store_class = STORE_CLASSES[dying]
    real_deliver = store_class.deliver
    calls = {"news": 0}

    def deliver_then_die(self, kind, owners, entry):
        if kind == "news":
            calls["news"] += 1
            if calls["news"] == 2:  # the second batch: half of it lands
                real_deliver(self, kind, owners[: len(owners) // 2], entry)
                raise OSError("worker died")
        return real_deliver(self, kind, owners, entry)

    monkeypatch.setattr(store_class, "deliver", deliver_then_die)
    with pytest.raises(OSError):
        fanout.deliver_post(post.id)
    monkeypatch.setattr(store_class, "deliver", real_deliver)
    assert Post.objects.get(id=post.id).delivery.state == "delivering"

    Post.objects(id=post.id).update_one(set__delivery__started=post.ts.replace(year=2000))
    assert retry.redeliver_pending(older_than_seconds=60) == 1
    assert Post.objects.get(id=post.id).delivery.state == "done"
    fanout.deliver_post(post.id)  # a run after success changes nothing
    Post.objects(id=post.id).update_one(set__delivery__state="delivering")
    fanout.deliver_post(post.id)  # nor does a whole run again

    assert stored_duplicates() == {"cache": {}, "month": {}, "size": {}}
    for model in STORED:
        for handle in [f.handle for f in fans] + ["star"]:
            assert stored_ids(model, handle, "news").count(post.id) == 1, (model, handle)
        assert stored_ids(model, "star", "wall").count(post.id) == 1
    assert_parity("fan0", "fan6", "star")


@pytest.mark.parametrize("dying", STORED)
def test_a_repost_delivery_that_dies_between_stores_runs_again_cleanly(
    configured, dying, make_user, monkeypatch, settings
):
    star = make_user("star")
    make_user("fan")
    readers = [make_user(f"reader{i}") for i in range(4)]
    for reader in readers:
        graph.follow_create(follower=reader, followee="fan")
    post = services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    store_class = STORE_CLASSES[dying]
    real_deliver = store_class.deliver

    def dying_deliver(self, kind, owners, entry):
        if kind == "news":
            real_deliver(self, kind, owners[:2], entry)
            raise OSError("worker died")
        return real_deliver(self, kind, owners, entry)

    monkeypatch.setattr(store_class, "deliver", dying_deliver)
    # The task fails (the worker logs it); the repost stays "delivering".
    reposts.repost_create(post_id=post.id, user=User.objects.get(handle="fan"))
    monkeypatch.setattr(store_class, "deliver", real_deliver)
    state = PostRepost.objects.get(post=post.id, by="fan").delivery.state
    assert state == "delivering"

    fanout.deliver_repost(post.id, "fan")
    assert stored_duplicates() == {"cache": {}, "month": {}, "size": {}}
    assert_parity("fan", "reader0", "reader3")
    assert ("fan" in [by for _, by in shown("reader3", "read", False)[0]]) is True


def test_shadows_off_write_only_the_configured_model(settings, make_user):
    settings.FEED_MODEL, settings.FEED_SHADOW_MODELS = "cache", ""
    star, fan = make_user("star"), make_user("fan")
    graph.follow_create(follower=fan, followee="star")
    services.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    assert CacheTimeline._get_collection().count_documents({}) > 0
    assert MonthTimeline._get_collection().count_documents({}) == 0
    assert SizeTimeline._get_collection().count_documents({}) == 0
    doc = CacheTimeline._get_collection().find_one({"owner": "fan", "kind": "news"})
    assert [("post" in e) for e in doc["entries"]] == [False]
