"""The demo's bulk seeding writes what the site's own per-item paths write.

seed_demo writes the posts in one insert and fills each timeline once
(feeds/demo.py `in_bulk`, timelines/demo.py `deliver_pending`), after the comments; the site
makes each post through `post_create` and delivers it at once, and the
comments' summaries then refresh the copies in every timeline. A small world
is built both ways, on a frozen clock and with every timeline model kept
(shadows), and every collection compared: ids and random comment slugs
aside, the documents must be the same.
"""

from datetime import UTC, datetime

import pytest
from bson import ObjectId

from comments import demo as comments_demo
from feeds import demo as feeds_demo
from feeds.documents import PUBLIC, Post
from feeds.services import posts as post_services
from profiles import demo as profiles_demo
from profiles import services as profile_services
from socialsite import clock, indexes
from timelines import demo as timelines_demo
from timelines.stores import MODELS, get_store, write_stores

FROZEN = datetime(2026, 3, 14, 15, 9, 26, 535000, tzinfo=UTC)
# Comment slugs carry a random part; GridFS stamps its files with the real time.
RANDOM_KEYS = {"slug", "full_slug", "uploadDate"}


class FrozenDatetime(datetime):
    @classmethod
    def now(cls, tz=None):
        return FROZEN if tz is not None else FROZEN.replace(tzinfo=None)


@pytest.fixture
def world(settings, monkeypatch):
    settings.FEED_SHADOW_MODELS = "all"
    monkeypatch.setattr(clock, "datetime", FrozenDatetime)

    def build(*, bulk: bool) -> dict:
        for document in indexes.all_documents():
            document._get_collection().delete_many({})
        handles = profiles_demo.seed(users=40, maxfollows=8, seed=11)
        if not bulk:
            # What sign-up gives each person (`user_created`): the seeded
            # graph is written in bulk, without it.
            for store in write_stores():
                store.ensure_owner(handles)
        feeds_demo.seed_more(handles=handles, seed=11, bulk=bulk)
        comments_demo.seed_more(handles=handles, seed=11)
        if bulk:
            timelines_demo.deliver_pending()
        return snapshot()

    return build


def snapshot() -> dict:
    """Every collection, normalised: a post's id becomes (author, time), any
    other id a placeholder, and comment slugs are left out."""
    posts = {}
    for document in indexes.all_documents():
        collection = document._get_collection()
        if collection.name == "post":
            posts = {p["_id"]: (p["by"]["id"], p["ts"]) for p in collection.find()}

    def normal(value):
        if isinstance(value, ObjectId):
            return posts.get(value, "<id>")
        if isinstance(value, dict):
            return {k: normal(v) for k, v in value.items() if k not in RANDOM_KEYS}
        if isinstance(value, list):
            return [normal(v) for v in value]
        return value

    found = {}
    for document in indexes.all_documents():
        collection = document._get_collection()
        docs = [normal(doc) for doc in collection.find()]
        found[collection.name] = sorted(docs, key=repr)
    return found


# Through a driver it is two minutes of the wire server (two demo worlds);
# the demo seeding still runs through it in tests/test_site.py.
@pytest.mark.mongomock_only(
    reason="two demo worlds compared; seeding runs through the driver in test_site"
)
def test_bulk_seeding_writes_what_the_per_item_paths_write(world):
    assert len(write_stores()) == len([n for n in MODELS if get_store(n).stores_entries])
    one_by_one = world(bulk=False)
    in_bulk = world(bulk=True)
    assert one_by_one.keys() == in_bulk.keys()
    # The world is not empty where it matters: posts, every stored timeline
    # model with embedded copies, comments, poll votes.
    assert len(one_by_one["post"]) == 60
    for name in MODELS:
        store = get_store(name)
        if store.stores_entries:
            docs = one_by_one[store.collection().name]
            assert any(entry.get("post") for doc in docs for entry in doc["entries"]), name
    assert any(p["comments_count"] for p in one_by_one["post"])
    assert any(p["type"] == "poll" and sum(p["detail"]["votes"]) for p in one_by_one["post"])
    for name in one_by_one:
        assert in_bulk[name] == one_by_one[name], name


def test_demo_posts_delivered_later_keep_what_timelines_hold(make_user):
    """Past the empty world seed_demo starts from, the demo's posts go through
    the site's own fan-out: an earlier post stays in its readers' timelines."""
    ada, bob = make_user("ada"), make_user("bob")
    profile_services.follow_create(follower=bob, followee="ada")
    earlier = post_services.post_create(
        author=ada, type="status", detail={"text": "Before the demo."}, circles=[PUBLIC]
    )
    feeds_demo.seed_more(handles=["ada", "bob"], seed=3, posts_per_user=2)
    timelines_demo.deliver_pending()
    news = get_store().entries("news", "bob", None, 50).entries
    demo_posts = {p.id for p in Post.objects(id__ne=earlier.id)}
    assert earlier.id in {e["id"] for e in news}
    assert {e["id"] for e in news if e["by"] == "ada"} > {earlier.id}
    assert demo_posts and not Post.objects(delivery__state="pending").count()
