"""Comment queries an index serves (issue 10, items 7 and 8; docs/performance.md).

- A sub-discussion is a `$gte`/`$lt` range on `full_slug` (or `comments.slug`
  under `buckets`), not *Storing Comments*'s regex: a Python regex carries the `u` flag
  and gets no index bounds, so it read the whole discussion. The range is
  exact: siblings whose slug shares a prefix stay out.
- The moderation pages' "comments since" and "a user's latest comments" are
  served by a `posted` and an (author, -posted) index under every store.

mongomock has no planner: a recorder keeps each query sent and
`tests.plans.check` reads it against the declared indexes; the bounds
of the sub-discussion are also checked by counting the index entries inside
them. With MONGODB_TEST_URI set the sub-discussion is also explained (on a
MongoDB server: mongoeco's wire server has no planner to report).
"""

from datetime import timedelta
from itertools import count

import pytest

from comments import selectors
from comments.documents import CommentBucket, CommentDocument, CommentLogEntry
from comments.stores import cursors, get_store, slugs
from socialsite import mongo
from tests import plans
from tests.comments.helpers import ALICE, BASE, new_discussion

STORES = ["documents", "embedded", "buckets"]
BOB = {"id": "bob", "name": "Bob"}
DOCUMENTS = {
    d._get_collection_name(): d for d in (CommentDocument, CommentBucket, CommentLogEntry)
}


@pytest.fixture
def recorded(monkeypatch):
    """Every find, count and aggregation sent to the comment collections."""
    seen: list[plans.Query] = []
    collection_class = type(CommentDocument._get_collection())
    find, count_documents = collection_class.find, collection_class.count_documents
    aggregate = collection_class.aggregate

    def record_find(self, filter=None, *args, **kwargs):
        cursor = find(self, filter, *args, **kwargs)
        if self.name in DOCUMENTS:
            query = plans.Query(self.name, dict(filter or {}))
            seen.append(query)
            sort = cursor.sort

            def sorted_by(key, direction=None):
                keys = key if isinstance(key, list) else [(key, direction or 1)]
                query.sort = tuple((k, int(d)) for k, d in keys)
                return sort(key, direction) if direction is not None else sort(key)

            cursor.sort = sorted_by
        return cursor

    def record_count(self, filter, *args, **kwargs):
        if self.name in DOCUMENTS:
            seen.append(plans.Query(self.name, dict(filter), op="count"))
        return count_documents(self, filter, *args, **kwargs)

    def record_aggregate(self, pipeline, *args, **kwargs):
        if self.name in DOCUMENTS and "$match" in pipeline[0]:
            seen.append(plans.Query(self.name, dict(pipeline[0]["$match"]), op="aggregate"))
        # mongomock runs a pipeline on a `find` of everything: not a query sent.
        with monkeypatch.context() as inner:
            inner.setattr(collection_class, "find", find)
            return aggregate(self, pipeline, *args, **kwargs)

    monkeypatch.setattr(collection_class, "find", record_find)
    monkeypatch.setattr(collection_class, "count_documents", record_count)
    monkeypatch.setattr(collection_class, "aggregate", record_aggregate)
    return seen


def problems(queries: list[plans.Query]) -> list[str]:
    found = []
    for query in queries:
        document = DOCUMENTS[query.collection]
        verdict = plans.check(query, plans.declared_indexes(document), plans.array_paths(document))
        if verdict.problem:
            found.append(str(verdict))
    return found


# --- the sub-discussion -------------------------------------------------------


@pytest.fixture
def prefix_siblings(monkeypatch):
    """Top-level comments "abcc", "abcd", "abce", all in the same millisecond
    (so their full slugs differ only in the slug), each with a reply chain."""

    def make(store, d):
        parts, random_part = (
            iter(["abcc", "abcd", "abce", "abcd", "abcd", "abce", "abcc"]),
            slugs.new_part,
        )
        monkeypatch.setattr(slugs, "new_part", lambda: next(parts))
        tops = [store.post(d, author=ALICE, text=t, posted=BASE) for t in "cde"]
        c, d_, e = tops
        late = BASE + timedelta(seconds=1)
        r1 = store.post(d, author=ALICE, text="d1", parent_slug=d_.slug, posted=late)
        r2 = store.post(d, author=ALICE, text="d2", parent_slug=r1.slug, posted=late)
        store.post(d, author=ALICE, text="e1", parent_slug=e.slug, posted=late)
        store.post(d, author=ALICE, text="c1", parent_slug=c.slug, posted=late)
        monkeypatch.setattr(slugs, "new_part", random_part)
        return d_, [d_.slug, r1.slug, r2.slug]

    return make


@pytest.mark.parametrize("name", STORES)
def test_a_sub_discussion_leaves_out_siblings_that_share_a_prefix(settings, name, prefix_siblings):
    settings.COMMENTS_BUCKET_SIZE = 2
    store, d = get_store(name), new_discussion()
    root, expected = prefix_siblings(store, d)
    assert root.slug == "abcd" and expected[1] == "abcd/abcd"
    page = store.subtree(d, root.slug)
    assert [c.slug for c in page] == expected
    assert [c.slug for c in store.subtree(d, expected[1])] == expected[1:]


def test_the_sub_discussion_is_a_bounded_range(prefix_siblings, recorded):
    store, d = get_store("documents"), new_discussion()
    root, expected = prefix_siblings(store, d)
    recorded.clear()
    store.subtree(d, root.slug)
    [query] = [q for q in recorded if "full_slug" in q.filter]
    predicate = query.filter["full_slug"]
    assert set(predicate) == {"$gte", "$lt"}, predicate  # no $regex: both bounds
    assert query.sort == (("full_slug", 1),)
    assert problems(recorded) == []
    # What an index scan of these bounds reads: the sub-discussion, nothing more.
    in_bounds = CommentDocument._get_collection().count_documents(
        {"discussion_id": d, "full_slug": predicate}
    )
    assert in_bounds == len(expected) < store.count(d)


def test_a_forged_cursor_cannot_widen_the_sub_discussion(prefix_siblings):
    store, d = get_store("documents"), new_discussion()
    root, expected = prefix_siblings(store, d)
    for forged in ({"before": cursors.threaded("9999")}, {"after": cursors.threaded("0000")}):
        page = store.subtree(d, root.slug, **forged)
        assert {c.slug for c in page} <= set(expected)


def test_the_buckets_sub_discussion_is_bounded_on_the_multikey_index(prefix_siblings, recorded):
    store, d = get_store("buckets"), new_discussion()
    root, _ = prefix_siblings(store, d)
    recorded.clear()
    store.subtree(d, root.slug)
    [query] = [q for q in recorded if "comments" in q.filter]
    # $elemMatch: both bounds apply to one array element, so a multikey
    # index intersects them (two bare ranges on an array field would not).
    assert query.filter["comments"] == {"$elemMatch": {"slug": slugs.subtree_range("abcd")}}
    assert problems(recorded) == []


@pytest.mark.skipif(mongo.is_demo(), reason="explain needs a server (MONGODB_TEST_URI)")
def test_the_server_bounds_the_sub_discussion(prefix_siblings):
    store, d = get_store("documents"), new_discussion()
    root, _ = prefix_siblings(store, d)
    query = {"discussion_id": d, "full_slug": slugs.subtree_range(root.full_slug)}
    plan = CommentDocument._get_collection().find(query).sort("full_slug", 1).explain()
    found = plans.explain_problems(plan)
    if found is None:
        pytest.skip("this server has no MongoDB query planner to explain with (mongoeco)")
    assert found == []


# --- the moderation pages -------------------------------------------------------


def discussions(store, n: int = 3) -> list:
    """Comments by Alice and Bob on `n` discussions, one minute apart."""
    minutes = count()
    made = []
    for _ in range(n):
        d = new_discussion()
        for author in (ALICE, BOB, ALICE):
            posted = BASE + timedelta(minutes=next(minutes))
            made.append(store.post(d, author=author, text=f"{author['id']}", posted=posted))
    return made


@pytest.mark.parametrize("name", STORES)
def test_comments_since_counts_with_an_index(settings, name, recorded):
    settings.COMMENTS_STORE = name
    made = discussions(get_store(name))
    recorded.clear()
    assert selectors.comments_since(BASE) == len(made) == 9
    assert selectors.comments_since(BASE + timedelta(minutes=4)) == 5
    assert selectors.comments_since(BASE + timedelta(hours=1)) == 0
    assert recorded and problems(recorded) == []


@pytest.mark.parametrize("name", STORES)
def test_recent_by_author_reads_an_index_and_shows_the_comment_as_it_is(settings, name, recorded):
    settings.COMMENTS_STORE = name
    settings.COMMENTS_BUCKET_SIZE = 2
    store = get_store(name)
    made = discussions(store)
    alices = [c for c in made if c.author["id"] == "alice"]
    store.edit(alices[-1].discussion_id, alices[-1].slug, text="edited")
    store.soft_delete(alices[-2].discussion_id, alices[-2].slug, by="moderator")
    recorded.clear()
    recent = selectors.recent_by_author("alice", 4)
    assert [c.slug for c in recent] == [c.slug for c in alices[::-1][:4]]
    assert [c.discussion_id for c in recent] == [c.discussion_id for c in alices[::-1][:4]]
    assert recent[0].text == "edited" and recent[1].deleted_by == "moderator"
    assert selectors.recent_by_author("nobody", 4) == []
    assert recorded and problems(recorded) == []
    # A bounded number of queries, whatever the number of discussions.
    assert len(recorded) <= 3


@pytest.mark.parametrize("name", ["embedded", "buckets"])
def test_deleting_a_discussion_forgets_its_log(settings, name):
    settings.COMMENTS_STORE = name
    store = get_store(name)
    made = discussions(store, n=2)
    store.delete_discussion(made[0].discussion_id)
    assert selectors.comments_since(BASE) == 3
    assert all(
        c.discussion_id == made[-1].discussion_id for c in selectors.recent_by_author("alice", 9)
    )
