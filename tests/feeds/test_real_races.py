"""Upserts that race another worker (docs/performance.md): under `month` and `size`
a delivery's upsert can lose the insert of the same timeline document to a
concurrent delivery of another post, and must then be retried, not dropped.

The race is forced at the driver boundary, so it runs the same on mongomock
and on a server: the timeline collection is wrapped so that, the first time
an upsert for a chosen reader is sent, the rival delivery's document lands
first and the upsert reports E11000, exactly as a server answers when both
finds missed and the other insert won.
"""

import pytest
from pymongo.errors import BulkWriteError

from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from profiles import services as graph
from profiles.documents import User
from socialsite.bulk import bulk_upsert
from socialsite.clock import now
from timelines.delivery import fanout
from timelines.selectors import pages as selectors
from timelines.selectors.entries import entry_for
from timelines.stores import get_store, month, size

READERS = [f"reader{i:02d}" for i in range(12)]


class RacedCollection:
    """The real collection, but the first upsert for each (owner, kind) in
    `targets` loses its insert to `rival_document(filter, kind)`."""

    def __init__(self, real, targets: set, rival_document):
        self.real, self.targets, self.rival_document = real, set(targets), rival_document
        self.raced: list[tuple] = []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def bulk_write(self, ops, ordered=True, **kwargs):
        errors = []
        for index, op in enumerate(ops):
            key = (op._filter.get("owner"), op._filter.get("kind"))
            if getattr(op, "_upsert", False) and key in self.targets:
                self.targets.discard(key)
                self.real.insert_one(self.rival_document(op._filter))
                self.raced.append(key)
                errors.append({"index": index, "code": 11000, "errmsg": "E11000 (forced race)"})
                if ordered:
                    break
                continue
            self.real.bulk_write([op], ordered=True)
        if errors:
            raise BulkWriteError({"writeErrors": errors, "writeConcernErrors": [], "nInserted": 0})
        return None


@pytest.fixture
def world(make_user):
    ada = make_user("ada")
    for handle in READERS:
        graph.follow_create(follower=make_user(handle), followee="ada")
    return ada


def rival_post() -> dict:
    """Another post whose delivery is the one that wins the insert."""
    post = Post(by={"id": "cyd", "name": "Cyd"}, circles=[PUBLIC], type="status", ts=now())
    post.detail = {"text": "the rival"}
    post.save()
    return Post._get_collection().find_one({"_id": post.id})


def rival_factory(model: str, rival: dict):
    entry = entry_for(rival)

    def document(query: dict) -> dict:
        base = {"owner": query["owner"], "kind": query["kind"], "entries": [entry]}
        if model == "month":
            return {**base, "month": query["month"], "part": query.get("part", 0)}
        return {**base, "slot": size.OPEN, "size": 1, "min_ts": entry["ts"], "max_ts": entry["ts"]}

    return document


def ids_in(kind: str, owner: str) -> list:
    return [e["id"] for e in get_store().entries(kind, owner, None, 1000).entries]


@pytest.mark.parametrize("model", ["month", "size"])
def test_a_raced_upsert_is_retried_and_every_reader_gets_the_post_once(
    model, settings, world, monkeypatch
):
    settings.FEED_MODEL = model
    settings.FEED_FANOUT_BATCH = 5  # several batches, races in each
    module = {"month": month, "size": size}[model]
    real = module._collection()
    raced_readers = READERS[::2]
    targets = {(h, "news") for h in raced_readers} | {("ada", "wall"), ("ada", "news")}
    rival = rival_post()
    raced = RacedCollection(real, targets, rival_factory(model, rival))
    monkeypatch.setattr(module, "_collection", lambda: raced)

    post = services.post_create(
        author=world, type="status", detail={"text": "hi"}, circles=[PUBLIC]
    )

    assert sorted(raced.raced) == sorted(targets)  # every race did happen
    assert Post.objects.get(id=post.id).delivery.state == "done"
    for owner in ["ada", *READERS]:
        news = ids_in("news", owner)
        assert news.count(post.id) == 1, owner
        if owner in raced_readers or owner == "ada":
            assert news.count(rival["_id"]) == 1, owner  # the winner's entry is kept
    assert ids_in("wall", "ada").count(post.id) == 1
    assert real.count_documents({"owner": "reader00", "kind": "news"}) == 1

    # Delivering again (a sweeper's retry) still leaves exactly one entry each:
    # the upsert's E11000 repeats on its retry and means "already there".
    Post.objects(id=post.id).update_one(set__delivery__state="delivering")
    fanout.deliver_post(post.id)
    for owner in ["ada", *READERS]:
        assert ids_in("news", owner).count(post.id) == 1, owner


@pytest.mark.parametrize("model", ["month", "size"])
def test_the_feed_page_shows_the_raced_post(model, settings, world, monkeypatch):
    settings.FEED_MODEL = model
    module = {"month": month, "size": size}[model]
    raced = RacedCollection(
        module._collection(), {("reader03", "news")}, rival_factory(model, rival_post())
    )
    monkeypatch.setattr(module, "_collection", lambda: raced)
    post = services.post_create(
        author=world, type="status", detail={"text": "hi"}, circles=[PUBLIC]
    )
    page = selectors.news_page(User.objects.get(handle="reader03"))
    assert raced.raced == [("reader03", "news")]
    assert [p["_id"] for p in page.posts].count(post.id) == 1


def test_a_rollover_raced_by_another_rollover_is_retried(settings, make_user, monkeypatch):
    """Under `month`, two workers that both find a month's parts full both
    upsert part N+1: the loser's E11000 is retried into the winner's part."""
    settings.FEED_MODEL, settings.FEED_MONTH_CAP = "month", 2
    ada = make_user("ada")
    graph.follow_create(follower=make_user("bob"), followee="ada")
    posts = [
        services.post_create(author=ada, type="status", detail={"text": str(i)}, circles=[PUBLIC])
        for i in range(2)
    ]
    rival = rival_post()
    real = month._collection()

    def rival_part(query):
        return {**rival_factory("month", rival)(query), "part": query["part"]}

    # Only the rollover's upsert names its part: race that one.
    class RacedRollover(RacedCollection):
        def bulk_write(self, ops, ordered=True, **kwargs):
            if not any("part" in op._filter for op in ops):
                return self.real.bulk_write(ops, ordered=ordered)
            return super().bulk_write(ops, ordered=ordered)

    raced = RacedRollover(real, {("bob", "news")}, rival_part)
    monkeypatch.setattr(month, "_collection", lambda: raced)
    third = services.post_create(author=ada, type="status", detail={"text": "3"}, circles=[PUBLIC])

    assert raced.raced == [("bob", "news")]
    parts = list(real.find({"owner": "bob", "kind": "news"}, {"part": 1, "entries.id": 1}))
    assert sorted(p["part"] for p in parts) == [0, 1]
    assert all(len(p["entries"]) <= 2 for p in parts)
    assert sorted(ids_in("news", "bob")) == sorted(
        [*[p.id for p in posts], third.id, rival["_id"]]
    )


def test_bulk_upsert_retries_once_and_reports_what_collides_again():
    """The helper itself, on an ordered batch: the first E11000 of an op is
    retried, the rest of the batch still runs, a second E11000 is reported."""

    class Scripted:
        def __init__(self, failures):
            self.failures, self.sent = failures, []

        def bulk_write(self, ops, ordered=True):
            self.sent.append(list(ops))
            for index, op in enumerate(ops):
                if self.failures.get(op, 0) > 0:
                    self.failures[op] -= 1
                    raise BulkWriteError({"writeErrors": [{"index": index, "code": 11000}]})

    collection = Scripted({"b": 1, "c": 2})
    assert bulk_upsert(collection, ["a", "b", "c", "d"], ordered=True) == [2]
    assert collection.sent == [["a", "b", "c", "d"], ["b", "c", "d"], ["c", "d"], ["d"]]

    other = Scripted({})
    other.bulk_write = lambda ops, ordered: (_ for _ in ()).throw(
        BulkWriteError({"writeErrors": [{"index": 0, "code": 121}]})
    )
    with pytest.raises(BulkWriteError):
        bulk_upsert(other, ["a"])
