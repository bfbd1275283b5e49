"""The demo database's secondary indexes narrow, never change, what a query answers.

Each property runs the same query twice on the same documents: once through
the indexes (embedded_mongo/indexes.py, planner.py, reads.py) and once
as mongomock scans, and expects the same documents in the same order. Writes
are checked by comparing the indexes kept incrementally with ones built
afresh from the stored documents.
"""

import collections
import copy
import datetime
import re
from unittest import mock

import pytest
from bson import ObjectId
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mongomock import filtering
from pymongo import DeleteMany, InsertOne, ReplaceOne, UpdateOne

from embedded_mongo import copies, examined, indexes, orders, planner, reads
from socialsite import mongo, roundtrips

pytestmark = pytest.mark.mongomock_only(reason="checks the demo database's own indexes")

OIDS = [ObjectId(f"{n:024x}") for n in range(1, 5)]
BASE = datetime.datetime(2026, 1, 1)
SCALARS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([0.5, 1.0, -2.5]),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "a", "ab", "b", "B", "1"]),
    st.sampled_from(OIDS),
    st.integers(0, 3).map(lambda n: BASE + datetime.timedelta(milliseconds=n)),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3))
SUBDOC = st.fixed_dictionaries({}, optional={"x": VALUES, "y": SCALARS})
DOCUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "a": VALUES,
        "s": st.one_of(SUBDOC, st.lists(SUBDOC, max_size=3), SCALARS),
        "t": SCALARS,
        "u": VALUES,  # not indexed: never narrows
    },
)
FIELDS = st.sampled_from(["a", "s.x", "t", "u", "_id", "s.0.x"])


# Prefix regexes an index bounds (and some it cannot: unanchored, optional
# last letter, case-insensitive, an alternation).
PATTERNS = st.sampled_from(["^a", "^ab", "^b", "^a.?", "^ab?", "^", "a", "^a|b", "^\\.", "^B"])
REGEXES = st.one_of(
    PATTERNS.map(lambda p: {"$regex": p}),
    PATTERNS.map(lambda p: {"$regex": p, "$options": "i"}),
    PATTERNS.map(re.compile),
    PATTERNS.map(lambda p: {"$in": [re.compile(p), "b", 1]}),
)


def _clause(field):
    ops = st.sampled_from(["$gt", "$gte", "$lt", "$lte"])
    return st.one_of(
        SCALARS.map(lambda v: {field: v}),
        SCALARS.map(lambda v: {field: {"$eq": v}}),
        st.lists(SCALARS, max_size=3).map(lambda vs: {field: {"$in": vs}}),
        st.lists(SCALARS, max_size=3).map(lambda vs: {field: {"$all": vs}}),
        REGEXES.map(lambda r: {field: r}),
        st.tuples(ops, SCALARS).map(lambda p: {field: {p[0]: p[1]}}),
        st.tuples(SCALARS, SCALARS).map(lambda p: {field: {"$gte": p[0], "$lt": p[1]}}),
        SCALARS.map(lambda v: {field: {"$ne": v}}),
        SCALARS.map(lambda v: {field: {"$in": [v], "$ne": None}}),
    )


# One element of `s` meets every clause: `s.x` is indexed, `y` is not.
ELEM_MATCHES = st.one_of(
    SCALARS.map(lambda v: {"s": {"$elemMatch": {"x": v}}}),
    st.tuples(SCALARS, SCALARS).map(lambda p: {"s": {"$elemMatch": {"x": p[0], "y": p[1]}}}),
    st.lists(SCALARS, max_size=3).map(lambda vs: {"s": {"$elemMatch": {"x": {"$in": vs}}}}),
    SCALARS.map(lambda v: {"s": {"$elemMatch": {"y": v}}}),
)
CLAUSES = st.one_of(FIELDS.flatmap(_clause), ELEM_MATCHES)
FILTERS = st.one_of(
    CLAUSES,
    st.lists(CLAUSES, min_size=2, max_size=3).map(lambda cs: {"$and": cs}),
    st.lists(CLAUSES, min_size=2, max_size=3).map(lambda cs: {"$or": cs}),
    st.tuples(CLAUSES, CLAUSES).map(lambda p: {**p[0], **p[1]}),
)
SORTS = st.sampled_from(
    [
        None,
        [("a", 1)],
        [("t", -1), ("_id", 1)],
        [("s.x", 1)],
        [("t", -1), ("_id", -1)],
        [("_id", -1)],
        [("a", 1), ("t", 1)],
        [("s.x", -1), ("t", 1)],
    ]
)


@pytest.fixture
def coll(monkeypatch):
    # Keep sorted orders for every group, however small, so they are checked too.
    monkeypatch.setattr(orders, "MIN_GROUP", 0)
    collection = mongo.database()["demo_db_index_checks"]
    collection.drop()
    collection.create_index([("a", 1)])
    collection.create_index([("s.x", 1), ("t", -1)])
    collection.create_index([("t", "hashed")])
    collection.create_index([("a", 1), ("t", -1), ("_id", -1)])
    yield collection
    collection.drop()
    indexes.set_enabled(True)


def _both(query):
    """(through the indexes, scanning)."""
    indexes.set_enabled(True)
    try:
        narrowed = query()
    finally:
        indexes.set_enabled(False)
    try:
        scanned = query()
    finally:
        indexes.set_enabled(True)
    return narrowed, scanned


def _outcome(query):
    try:
        return query()
    except Exception as exc:  # an error must be the same error either way
        return type(exc).__name__


def _fill(coll, documents):
    coll.delete_many({})
    for n, document in enumerate(documents):
        coll.insert_one({"_id": n if n % 3 else f"k{n}", **document})


def _assert_indexes_match_a_rebuild(coll):
    store = coll._store
    kept = indexes.state(store)
    fresh = indexes.State(store)
    for field in kept.hashes:
        fresh.hash_index(field)
        assert {v: set(k) for v, k in kept.hashes[field].items()} == {
            v: set(k) for v, k in fresh.hashes[field].items()
        }, field
    for field in kept.ranges:
        fresh.range_index(field)
        relative = {
            cls: [(v, key) for v, _, key in items]
            for cls, items in kept.ranges[field].items()
            if items
        }
        rebuilt = {
            cls: [(v, key) for v, _, key in items]
            for cls, items in fresh.ranges[field].items()
            if items
        }
        assert relative == rebuilt, field
        assert kept.odd[field] == fresh.odd[field]
    for (fields, sort), index in kept.sorted.items():
        again = fresh.sorted_index(fields, sort)
        assert {g: [(v, k) for v, _, k in items] for g, items in index.groups.items()} == {
            g: [(v, k) for v, _, k in items] for g, items in again.groups.items()
        }, (fields, sort)
        assert index.unsortable == again.unsortable
    assert sorted(kept.seq, key=kept.seq.get) == list(store._documents)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    documents=st.lists(DOCUMENTS, max_size=12), spec=FILTERS, sort=SORTS, limit=st.integers(0, 3)
)
def test_find_answers_what_the_scan_answers(coll, documents, spec, sort, limit):
    _fill(coll, documents)
    narrowed, scanned = _both(
        lambda: _outcome(lambda: list(coll.find(spec, sort=sort, limit=limit)))
    )
    assert narrowed == scanned
    narrowed, scanned = _both(lambda: _outcome(lambda: coll.count_documents(spec)))
    assert narrowed == scanned
    narrowed, scanned = _both(lambda: _outcome(lambda: coll.find_one(spec, sort=sort)))
    assert narrowed == scanned


# Whole documents, top-level fields in or out (copied in one pass), and
# what mongomock's own projection handles (a path, mixed values: refused).
PROJECTIONS = st.sampled_from(
    [
        None,
        {},
        {"_id": 0},
        {"_id": 1},
        {"a": 1},
        {"a": True, "_id": 0},
        {"a": 0},
        {"_id": 0, "t": 0, "u": 0},
        {"t": 1, "a": 1, "s": 1},
        {"s.x": 1},
        {"s.x": 0, "_id": 0},
        {"a": 1, "t": 0},
        {"s": {"$elemMatch": {"x": 1}}},
        {"s": {"$elemMatch": {"x": 1}}, "t": 1},
        {"a": {"$slice": 1}, "_id": 0},
    ]
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(documents=st.lists(DOCUMENTS, max_size=12), spec=FILTERS, sort=SORTS, fields=PROJECTIONS)
def test_a_projection_answers_what_mongomock_answers(coll, documents, spec, sort, fields):
    """Fields, their order and the dates made aware, as mongomock copies them."""
    _fill(coll, documents)

    # A projection of its own for each read: mongomock's takes fields out of
    # it while it copies and puts them back only when it does not fail.
    def found():
        return [list(d.items()) for d in coll.find(spec, copy.deepcopy(fields), sort=sort)]

    narrowed, scanned = _both(lambda: _outcome(found))
    assert narrowed == scanned
    narrowed, scanned = _both(lambda: _outcome(lambda: coll.find_one(spec, copy.deepcopy(fields))))
    assert narrowed == scanned


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(documents=st.lists(DOCUMENTS, max_size=12), spec=FILTERS)
def test_match_first_aggregate_answers_what_the_scan_answers(coll, documents, spec):
    _fill(coll, documents)
    pipeline = [{"$match": spec}, {"$limit": 3}, {"$project": {"a": 1, "s": 1}}]
    narrowed, scanned = _both(lambda: _outcome(lambda: list(coll.aggregate(pipeline))))
    assert narrowed == scanned


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    documents=st.lists(DOCUMENTS, max_size=12),
    spec=FILTERS,
    sort=SORTS.filter(bool),
    limit=st.integers(1, 4),
)
def test_a_sorted_page_aggregate_answers_what_the_scan_answers(coll, documents, spec, sort, limit):
    """`$match`, `$sort`, `$limit` (a page of posts) read in index order."""
    _fill(coll, documents)
    pipeline = [{"$match": spec}, {"$sort": dict(sort)}, {"$limit": limit}]
    narrowed, scanned = _both(lambda: _outcome(lambda: list(coll.aggregate(pipeline))))
    assert narrowed == scanned


WRITES = st.one_of(
    st.tuples(st.just("insert"), DOCUMENTS),
    st.tuples(st.just("set"), FILTERS, VALUES, st.sampled_from(["a", "s.x", "t", "s"])),
    st.tuples(st.just("unset"), FILTERS, st.sampled_from(["a", "s", "t"])),
    st.tuples(st.just("push"), FILTERS, SCALARS),
    st.tuples(st.just("replace"), FILTERS, DOCUMENTS),
    st.tuples(st.just("upsert"), SCALARS, VALUES),
    st.tuples(st.just("delete_one"), FILTERS),
    st.tuples(st.just("delete_many"), FILTERS),
    st.tuples(st.just("bulk"), DOCUMENTS, FILTERS, VALUES),
    st.tuples(st.just("drop")),
)


def _write(coll, op):
    kind, *args = op
    if kind == "insert":
        coll.insert_one(dict(args[0]))
    elif kind == "set":
        coll.update_many(args[0], {"$set": {args[2]: args[1]}})
    elif kind == "unset":
        coll.update_one(args[0], {"$unset": {args[1]: ""}})
    elif kind == "push":
        coll.update_many(args[0], {"$push": {"a": args[1]}})
    elif kind == "replace":
        coll.replace_one(args[0], dict(args[1]))
    elif kind == "upsert":
        coll.update_one({"t": args[0]}, {"$set": {"a": args[1]}}, upsert=True)
    elif kind == "delete_one":
        coll.delete_one(args[0])
    elif kind == "delete_many":
        coll.delete_many(args[0])
    elif kind == "bulk":
        coll.bulk_write(
            [
                InsertOne(dict(args[0])),
                UpdateOne(args[1], {"$set": {"a": args[2]}}),
                ReplaceOne({"t": 0}, {"t": 1}),
                DeleteMany({"a": args[2]}),
            ]
        )
    else:
        coll.drop()
        coll.create_index([("a", 1)])
        coll.create_index([("s.x", 1), ("t", -1)])


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    documents=st.lists(DOCUMENTS, max_size=8), writes=st.lists(WRITES, max_size=6), spec=FILTERS
)
def test_writes_keep_the_indexes_right(coll, documents, writes, spec):
    _fill(coll, documents)
    for field in ("a", "s.x", "t", "_id"):  # built before the writes, so kept by them
        planner.candidates(coll._store, {field: {"$gte": 0}})
        planner.candidates(coll._store, {field: 0})
    state = indexes.state(coll._store)
    for fields, sort in [((), (("_id", 1),)), (("a",), (("t", -1), ("_id", -1)))]:
        state.sorted_index(fields, sort)
    for sort in ([("t", -1), ("_id", 1)], [("a", 1)]):
        _outcome(lambda sort=sort: list(coll.find(spec, sort=sort)))  # orders kept
    for op in writes:
        _outcome(lambda op=op: _write(coll, op))
    _assert_indexes_match_a_rebuild(coll)
    narrowed, scanned = _both(lambda: _outcome(lambda: list(coll.find(spec))))
    assert narrowed == scanned
    for sort in ([("t", -1), ("_id", 1)], [("a", 1)]):
        narrowed, scanned = _both(
            lambda sort=sort: _outcome(lambda: list(coll.find(spec, sort=sort)))
        )
        assert narrowed == scanned


def test_an_indexed_lookup_runs_the_filter_on_its_candidates_only(coll, monkeypatch):
    coll.insert_many(
        [{"_id": n, "a": n % 500, "t": n, "s": {"x": [n, n + 1]}} for n in range(2000)]
    )
    coll.find_one({"a": 1})  # builds the index on first use
    runs = []
    apply = filtering._filterer_inst.apply
    monkeypatch.setattr(filtering._filterer_inst, "apply", lambda *a: runs.append(1) or apply(*a))

    assert [d["_id"] for d in coll.find({"a": 7})] == [7, 507, 1007, 1507]
    assert coll.find_one({"_id": 1234})["t"] == 1234
    assert [d["_id"] for d in coll.find({"_id": {"$in": [5, 3, 99999]}})] == [3, 5]
    assert [d["_id"] for d in coll.find({"s.x": {"$gte": 10, "$lt": 12}})] == [9, 10, 11]
    assert [
        d["_id"]
        for d in coll.aggregate([{"$match": {"a": 7}}, {"$sort": {"t": -1}}, {"$limit": 2}])
    ] == [1507, 1007]
    coll.update_many({"a": {"$in": [8, 9]}}, {"$set": {"a": 7}})
    assert coll.count_documents({"a": 7}) == 12
    assert len(runs) < 100  # a scan would have run it 2,000 times per query


def test_equalities_on_two_indexed_fields_examine_only_their_common_documents(coll):
    """`{a: 3, s.x: {$in: [1, 2]}}` (a like's `{post: {$in: page}, by:
    reader}`): the smaller group is checked against the other clause in the
    index, as a compound index reads it; only common documents are examined."""
    coll.insert_many([{"_id": n, "a": n % 10, "s": {"x": n % 7}} for n in range(700)])
    before = examined.total()
    found = [d["_id"] for d in coll.find({"a": 3, "s.x": {"$in": [1, 2]}})]
    assert found == [n for n in range(700) if n % 10 == 3 and n % 7 in (1, 2)]
    assert examined.total() - before == len(found) == 20


def test_a_find_copies_only_what_it_returns(coll, monkeypatch):
    coll.insert_many([{"_id": n, "a": 1, "t": n} for n in range(300)])
    copied = []
    copy_only_fields = type(coll)._copy_only_fields
    monkeypatch.setattr(
        type(coll),
        "_copy_only_fields",
        lambda self, *a: copied.append(1) or copy_only_fields(self, *a),
    )
    assert [d["_id"] for d in coll.find({}).sort("t", -1).limit(5)] == [299, 298, 297, 296, 295]
    assert coll.find_one({}, sort=[("t", 1)])["_id"] == 0
    assert len(copied) == 6


def test_ttl_expiry_is_the_same_without_a_scan(monkeypatch):
    import mongomock

    now = datetime.datetime(2026, 5, 1, 12, 0)
    monkeypatch.setattr(mongomock, "utcnow", lambda: now)
    db = mongo.database()
    kept = []
    for enabled in (True, False):
        indexes.set_enabled(enabled)
        coll = db[f"demo_db_ttl_{enabled}"]
        coll.drop()
        coll.create_index([("expire", 1)], expireAfterSeconds=60)
        coll.insert_many(
            [
                {"_id": 1, "expire": now - datetime.timedelta(seconds=61)},
                {"_id": 2, "expire": now - datetime.timedelta(seconds=60)},
                {"_id": 3, "expire": now - datetime.timedelta(seconds=59)},
                {"_id": 4, "expire": [now, now - datetime.timedelta(hours=1)]},
                {"_id": 5, "expire": "not a date"},
                {"_id": 6},
                {"_id": 7, "expire": now + datetime.timedelta(hours=1)},
            ]
        )
        before = [d["_id"] for d in coll.find({})]
        coll.update_one({"_id": 7}, {"$set": {"expire": now - datetime.timedelta(days=1)}})
        kept.append(
            (before, [d["_id"] for d in coll.find({})], coll.find_one({"_id": 3}) is not None)
        )
        coll.drop()
    indexes.set_enabled(True)
    assert kept[0] == kept[1] == ([3, 5, 6, 7], [3, 5, 6], True)


def test_round_trips_are_counted_as_before(coll):
    coll.insert_many([{"_id": n, "a": n} for n in range(10)])
    with roundtrips.count() as counted:
        coll.find_one({"a": 3})
        list(coll.find({"_id": {"$in": [1, 2]}}))
        list(coll.aggregate([{"$match": {"a": 3}}, {"$limit": 1}]))
        coll.update_many({"a": {"$in": [1, 2]}}, {"$set": {"t": 1}})
        coll.count_documents({"a": 3})
    assert counted.commands == ["find_one", "find", "aggregate", "update_many", "count_documents"]


def test_unique_indexes_are_checked_through_the_index(coll):
    from pymongo.errors import BulkWriteError, DuplicateKeyError

    coll.create_index([("f", 1), ("g", 1)], unique=True)
    coll.insert_many([{"f": "x", "g": n} for n in range(50)])
    coll.find_one({"f": "x"})  # the index on `f` is now kept by every write
    with pytest.raises(DuplicateKeyError):
        coll.insert_one({"f": "x", "g": 7})
    with pytest.raises(DuplicateKeyError):
        coll.update_one({"g": 8}, {"$set": {"g": 9}})
    with pytest.raises(BulkWriteError):
        coll.insert_many([{"f": "y", "g": 1}, {"f": "x", "g": 3}])
    coll.insert_many([{"f": "z", "g": 1}, {"f": "z", "g": 2}])
    coll.update_one({"f": "z", "g": 2}, {"$set": {"f": "w"}})
    assert coll.count_documents({"f": "x"}) == 50
    assert [d["g"] for d in coll.find({"f": {"$in": ["y", "z", "w"]}})] == [1, 1, 2]
    assert coll.find_one({"g": 8})["g"] == 8


def test_a_large_group_is_read_in_its_index_order_up_to_the_limit(coll, monkeypatch):
    """`{a: 1, t: {$lt: 40}}` by `(t, u)` newest first, on a declared
    `(a, t, u)` index: the read starts at the range's bound in the group's
    kept order and stops at the limit, as a server's index scan does."""
    monkeypatch.setattr(orders, "MIN_GROUP", 64)
    coll.create_index([("a", 1), ("t", -1), ("u", -1)])
    coll.insert_many([{"a": n % 2, "t": n % 50, "u": n} for n in range(400)])
    page = [("t", -1), ("u", -1)]
    first = [d["u"] for d in coll.find({"a": 1, "t": {"$lt": 40}}, sort=page, limit=3)]
    assert first == [389, 339, 289]
    before = examined.total()
    again = [d["u"] for d in coll.find({"a": 1, "t": {"$lt": 40}}, sort=page, limit=3)]
    assert again == first and examined.total() - before == 3  # not the group's 200
    coll.update_one({"u": 339}, {"$set": {"t": 45}})  # out of the page
    coll.insert_one({"a": 1, "t": 39, "u": 389})
    narrowed, scanned = _both(
        lambda: [d["_id"] for d in coll.find({"a": 1, "t": {"$lt": 40}}, sort=page, limit=3)]
    )
    assert narrowed == scanned
    assert [coll.find_one({"_id": i})["u"] for i in narrowed] == [389, 389, 289]


def test_an_elem_match_on_an_indexed_array_reads_its_candidates_only(coll):
    """A timeline's `{entries: {$elemMatch: {id: ...}}}` (a copy's refresh
    after a like) is served by the multikey index on `entries.id`, as a
    server serves it: with 1,000 timeline documents or 10,000, the filter
    runs on the 10 that hold the post, and nothing else is read."""
    coll.create_index([("entries.id", 1)])
    post = ObjectId()
    spec = {"entries": {"$elemMatch": {"id": post, "post": {"$exists": True}}}}

    def refresh_runs(documents: int) -> int:
        coll.delete_many({})
        coll.insert_many(
            [
                {"_id": n, "entries": [{"id": post if n < 10 else ObjectId(), "post": {}}]}
                for n in range(documents)
            ]
        )
        assert planner.candidates(coll._store, spec) == list(range(10))
        runs = []
        apply = filtering._filterer_inst.apply
        with mock.patch.object(
            filtering._filterer_inst, "apply", lambda *a: runs.append(1) or apply(*a)
        ):
            updated = coll.update_many(spec, {"$set": {"entries.$.post.likes_count": 3}})
        assert updated.modified_count == 10
        return len(runs)

    assert refresh_runs(1_000) == refresh_runs(10_000) <= 10 * 4


def test_a_long_cursor_is_read_in_one_pass(coll):
    """mongomock computes a cursor's window on every `next()`; the demo
    database slices it once per cursor, so reading n documents costs O(n),
    not a copy of the whole result list per document."""
    coll.insert_many([{"_id": n, "a": n % 7} for n in range(5_000)])
    before = reads.WINDOWS.built
    assert sum(1 for _ in coll.find({}).batch_size(100_000)) == 5_000
    assert sum(1 for _ in coll.find({}).skip(10).limit(3_000)) == 3_000
    assert reads.WINDOWS.built - before <= 2


def test_an_unsorted_find_one_reads_up_to_its_first_match(coll):
    """GridFS asks `fs.files` and `fs.chunks` for `find_one({}, {"_id": 1})`
    before every file it stores (whether to create their indexes): one
    document examined, not a list of the whole collection per photo."""

    class Taken(collections.OrderedDict):
        """The stored documents, counting those a read takes from the store."""

        count = 0

        def values(self):
            for document in super().values():
                self.count += 1
                yield document

    coll.insert_many([{"_id": n, "u": n % 7} for n in range(3_000)])
    store = coll._store
    store._documents = stored = Taken(store._documents)
    before = examined.total()
    assert coll.find_one(projection={"_id": 1}) == {"_id": 0}
    assert coll.find_one({"u": 3}) == {"_id": 3, "u": 3}  # not indexed: read in order
    assert [d["_id"] for d in coll.find({"u": 5}, limit=2)] == [5, 12]
    assert stored.count == examined.total() - before == 1 + 4 + 13


def test_a_likes_copy_refresh_examines_the_same_documents_at_any_size():
    """A like's copy refresh (`EntryArrayStore.update_counts`: `update_many`
    on `{entries: {$elemMatch: {id: post, ...}}}`) reads its candidates from
    the declared multikey `entries.id` index, as a server does: with 1,000
    timeline documents or 10,000 it examines the 10 that hold the post."""
    from timelines.stores.cache import CacheStore

    store = CacheStore()
    timelines = store.collection()
    post = ObjectId()

    def timelines_up_to(documents: int) -> None:
        start = timelines.estimated_document_count()
        timelines.insert_many(
            {
                "owner": f"reader{n}",
                "kind": "news",
                "entries": [{"id": post if n < 10 else ObjectId(), "post": {"likes_count": 0}}],
            }
            for n in range(start, documents)
        )

    def examined_by_a_refresh(version: int) -> int:
        before = examined.total()
        store.update_counts(post, {"likes_count": version}, version)
        return examined.total() - before

    timelines_up_to(1_000)
    small = examined_by_a_refresh(1)
    timelines_up_to(10_000)
    assert examined_by_a_refresh(2) == small == 10
    copies = [d["entries"][0]["post"] for d in timelines.find({"entries.id": post})]
    assert copies == [{"likes_count": 2, "counts_v": 2}] * 10


def test_people_and_post_searches_examine_the_same_documents_at_any_size(make_user):
    """A people search (`search_people`: a name-word prefix on the
    `(name_terms, _id)` index and a handle range on `_id`, in handle order)
    and a post search (`search_page`: a word on `(terms, ts, _id)`, newest
    first) read their page in index order and stop when it is full: with 500
    users and posts or 5,000, one in five of them matching, they examine the
    same documents."""
    from explore.selectors.discovery import search_page
    from feeds.documents import Post
    from profiles.documents import User
    from profiles.selectors.people import search_people

    viewer = make_user("viewer")
    users, posts = User._get_collection(), Post._get_collection()
    start = datetime.datetime(2026, 1, 1)

    def world_of(size: int) -> None:
        have = posts.estimated_document_count()
        users.insert_many(
            {
                # The others' handles sort first: a read of everyone in
                # handle order would meet them all before the page.
                "_id": f"{'al' if n % 5 == 0 else 'aa'}{n:05d}",
                "name": "Alma Lind" if n % 5 == 0 else "Bo Berg",
                "name_terms": ["a", "al", "alm", "l", "li"] if n % 5 == 0 else ["b", "bo"],
                "status": "active",
            }
            for n in range(have, size)
        )
        posts.insert_many(
            {
                "by": {"id": "viewer", "name": "Viewer"},
                "ts": start + datetime.timedelta(minutes=n),
                "circles": ["*public*"],
                "terms": ["coffee", "cup"] if n % 5 == 0 else ["tea"],
                "removed": None,
            }
            for n in range(have, size)
        )

    def examined_by_searches() -> dict:
        found = {}
        for name, search in (
            ("people", lambda: search_people("al", viewer=viewer)),
            ("posts", lambda: search_page("coffee", viewer, None)),
        ):
            before = examined.EXAMINED.by_collection.copy()
            page = search()
            assert len(getattr(page, "items", None) or page.posts) == 20
            found[name] = {
                collection: count - before[collection]
                for collection, count in examined.EXAMINED.by_collection.items()
                if count != before[collection]
            }
        return found

    world_of(500)
    small = examined_by_searches()
    world_of(5_000)
    assert examined_by_searches() == small
    assert small["people"]["user"] <= 2 * 21 and small["posts"]["post"] == 21


# `$lookup` with a pipeline (embedded_mongo/lookup.py): each row's matches
# are what the pipeline answers on its own over the documents whose
# `foreignField` is the row's value (one of its values, for a list), as
# mongomock scans them. The pipelines are the forms pages send (a leading
# `$match`, a plain `$project`, a sort and a limit) and some it must leave be.
LOOKUP_PIPELINES = st.sampled_from(
    [
        [],
        [{"$match": {"t": {"$ne": None}}}, {"$project": {"_id": 0, "a": 1}}],
        [{"$match": {"u": {"$in": ["a", 1, None]}}}, {"$project": {"s": 0, "u": 0}}],
        [{"$project": {"_id": 1}}],
        [{"$project": {"_id": 0}}, {"$limit": 2}],
        [{"$project": {"a": 1, "t": True}}, {"$limit": 1}],
        [{"$project": {"s.x": 0}}],
        # The newest few: `k` ties, `n` is the order of insertion.
        [{"$match": {"a": {"$exists": True}}}, {"$sort": {"k": -1, "n": -1}}, {"$limit": 2}],
        [{"$sort": {"k": 1}}, {"$limit": 3}, {"$project": {"s": 0}}],
        [{"$sort": {"k": -1}}, {"$limit": 2}, {"$project": {"_id": 0, "n": 1}}],
        [{"$sort": {"n": -1}}, {"$limit": 1}, {"$addFields": {"x": 1}}],
        [{"$sort": {"t": 1, "_id": 1}}, {"$limit": 2}, {"$project": {"_id": 0, "t": 1}}],
        [{"$project": {"k": 0}}, {"$sort": {"k": -1}}, {"$limit": 2}],
        # Narrowed by another field first (a reader's likes, then the page's posts).
        [{"$match": {"a": "a"}}, {"$project": {"_id": 0, "t": 1}}],
        [{"$match": {"s.x": 1}}, {"$sort": {"n": 1}}, {"$limit": 2}],
        [{"$match": {"t": {"$exists": False}}}, {"$sort": {"s.x": 1}}, {"$limit": 2}],
    ]
)
# Few values, so that rows find documents, among them the ones that compare
# across types (1, 1.0 and True).
FEW = st.sampled_from([0, 1, 1.0, True, "a", "b", OIDS[0], BASE, None])
FEW_VALUES = st.one_of(FEW, st.lists(FEW, max_size=3))
FEW_SUBDOC = st.fixed_dictionaries({}, optional={"x": FEW_VALUES})
LOOKED_UP = st.fixed_dictionaries(
    {},
    optional={
        "a": FEW_VALUES,
        "s": st.one_of(FEW_SUBDOC, st.lists(FEW_SUBDOC, max_size=2)),
        "t": FEW,
        "u": FEW_VALUES,
    },
)
LOCAL = st.fixed_dictionaries({}, optional={"v": FEW_VALUES})


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    documents=st.lists(LOOKED_UP, max_size=12),
    rows=st.lists(LOCAL, min_size=1, max_size=3),
    field=st.sampled_from(["a", "t", "_id", "s.x", "u"]),
    pipeline=LOOKUP_PIPELINES,
)
def test_a_lookup_answers_what_its_pipeline_answers_alone(coll, documents, rows, field, pipeline):
    # Documents no row's value can match, so that the indexes narrow to a
    # few candidates (past half the collection the read is a scan).
    if coll.count_documents({"a": "z"}) == 0:
        filler = {"a": "z", "s": {"x": "z"}, "t": "z", "k": 0, "n": 0}
        coll.insert_many([{"_id": f"z{n}", **filler} for n in range(30)])
    coll.delete_many({"a": {"$ne": "z"}})
    if documents:
        coll.insert_many(
            [{"_id": n, **doc, "k": n * 7 % 4, "n": n} for n, doc in enumerate(documents)]
        )
    looked_up, expected = _lookup_and_alone(coll, rows, field, pipeline)
    if isinstance(looked_up, str) or any(isinstance(row["found"], str) for row in expected):
        return  # a pipeline mongomock refuses either way
    assert looked_up == expected


def _lookup_and_alone(coll, rows: list[dict], field: str, pipeline: list[dict]):
    """(the rows with what the `$lookup` found, the rows with what the
    pipeline answers alone over the documents matching their value, as
    mongomock scans them)."""
    local = mongo.database()["demo_db_lookup_rows"]
    local.drop()
    local.insert_many([{"_id": n, **row} for n, row in enumerate(rows)])
    lookup = {
        "from": coll.name,
        "localField": "v",
        "foreignField": field,
        "pipeline": pipeline,
        "as": "found",
    }
    looked_up = _outcome(
        lambda: list(local.aggregate([{"$match": {"_id": {"$gte": 0}}}, {"$lookup": lookup}]))
    )
    indexes.set_enabled(False)
    try:
        expected = []
        for row in local.find():
            value = row.get("v")
            matching = {field: {"$in": value} if isinstance(value, list) else value}
            row["found"] = _outcome(
                lambda matching=matching: list(coll.aggregate([{"$match": matching}, *pipeline]))
            )
            expected.append(row)
    finally:
        indexes.set_enabled(True)
        local.drop()
    return looked_up, expected


@pytest.mark.parametrize(
    ("rows", "field", "pipeline"),
    [
        # The newest few of one key and of several: each key's walk stops at
        # the limit, ties in `k` fall in the order of insertion.
        ([{"v": "x"}], "a", [{"$sort": {"k": -1, "n": -1}}, {"$limit": 3}]),
        ([{"v": ["y", "x"]}], "a", [{"$sort": {"k": -1}}, {"$limit": 4}]),
        ([{"v": ["x", "y"]}], "a", [{"$sort": {"n": 1}}, {"$limit": 2}, {"$project": {"t": 0}}]),
        # A sort after a projection sorts what the projection left.
        ([{"v": "x"}], "a", [{"$project": {"k": 0}}, {"$sort": {"k": -1}}, {"$limit": 2}]),
        # Narrowed by another field first: values of other types and other
        # values of the same type are not among those asked for.
        ([{"v": [1, "q"]}], "t", [{"$match": {"a": "x"}}, {"$project": {"_id": 0, "t": 1}}]),
        ([{"v": 2}], "t", [{"$match": {"a": "x"}}]),
        # Rows sharing documents: each its own, in the order of the read.
        ([{"v": "y"}, {"v": ["y", "x"]}], "a", [{"$project": {"n": 0}}]),
    ],
)
def test_a_lookup_of_the_forms_pages_send_is_exact(coll, rows, field, pipeline):
    coll.insert_many(
        [
            {"_id": n, "a": "x" if n % 3 else "y", "k": n % 4, "n": n, "t": [1, 2, "q"][n % 3]}
            for n in range(24)
        ]
        + [{"_id": f"z{n}", "a": "z", "t": "z"} for n in range(60)]
    )
    looked_up, expected = _lookup_and_alone(coll, rows, field, pipeline)
    assert looked_up == expected
    assert all(row["found"] for row in looked_up)


def test_rows_that_look_up_the_same_document_each_have_their_own(coll):
    coll.insert_one({"_id": 1, "a": "x", "s": {"x": [1, 2]}})
    local = mongo.database()["demo_db_lookup_rows"]
    local.drop()
    local.insert_many([{"_id": n, "v": "x"} for n in range(2)])
    stage = {
        "$lookup": {
            "from": coll.name,
            "localField": "v",
            "foreignField": "a",
            "pipeline": [{"$project": {"t": 0}}],
            "as": "found",
        }
    }
    first, second = local.aggregate([{"$match": {"_id": {"$gte": 0}}}, stage])
    first["found"][0]["s"]["x"].append(3)
    assert second["found"][0]["s"] == {"x": [1, 2]}
    assert coll.find_one({"_id": 1})["s"] == {"x": [1, 2]}
    local.drop()


def test_a_lookup_of_the_newest_few_reads_each_key_down_to_the_limit(coll, monkeypatch):
    """A news page's pulled authors' newest posts (timelines/selectors/pulled.py):
    each author's documents are walked newest first and the walk stops at the
    limit, as a server walks `(by.id, ts)` per author; the filter runs on a
    few more than the limit per author, not on every post they wrote, and
    only the chosen documents are copied."""
    monkeypatch.setattr(orders, "MIN_GROUP", 64)
    coll.insert_many(
        [{"_id": n, "a": "ann" if n % 3 else "bob", "t": n, "u": n % 7 == 0} for n in range(900)]
    )
    coll.find_one({"a": "ann"})
    local = mongo.database()["demo_db_lookup_rows"]
    local.drop()
    local.insert_one({"_id": 1, "v": ["ann", "bob", "cyd"]})
    stage = {
        "$lookup": {
            "from": coll.name,
            "localField": "v",
            "foreignField": "a",
            "pipeline": [
                {"$match": {"u": False}},
                {"$sort": {"t": -1, "_id": -1}},
                {"$limit": 5},
                {"$project": {"u": 0}},
            ],
            "as": "newest",
        }
    }
    runs, copied = [], []
    apply = filtering._filterer_inst.apply
    monkeypatch.setattr(filtering._filterer_inst, "apply", lambda *a: runs.append(1) or apply(*a))
    monkeypatch.setattr(
        copies, "aware_copy", lambda d, c=copies.aware_copy: copied.append(1) or c(d)
    )
    [row] = local.aggregate([{"$match": {"_id": 1}}, stage])
    assert [d["_id"] for d in row["newest"]] == [899, 898, 897, 895, 894]
    assert row["newest"][0] == {"_id": 899, "a": "ann", "t": 899}
    assert len(runs) < 40  # 900 documents; a sorted read of every candidate filters 771
    assert len(copied) == 5 + 1  # the five chosen, and the row the leading $match read
    local.drop()


def test_a_lookup_filters_only_what_its_key_can_match(coll, monkeypatch):
    """A reader's likes of a page's posts, `{by: reader, post: {$in: page}}`:
    the index narrows to the reader's likes, and those of other posts are
    passed over without running the filter, as a server's compound index
    `(post, by)` never reads them."""
    coll.insert_many([{"_id": n, "a": "ann" if n < 200 else "bob", "t": n} for n in range(800)])
    local = mongo.database()["demo_db_lookup_rows"]
    local.drop()
    local.insert_one({"_id": 1, "v": [5, 7, 500]})
    stage = {
        "$lookup": {
            "from": coll.name,
            "localField": "v",
            "foreignField": "t",
            "pipeline": [{"$match": {"a": "ann"}}, {"$project": {"_id": 0, "t": 1}}],
            "as": "liked",
        }
    }
    runs = []
    apply = filtering._filterer_inst.apply
    monkeypatch.setattr(filtering._filterer_inst, "apply", lambda *a: runs.append(1) or apply(*a))
    [row] = local.aggregate([{"$match": {"_id": 1}}, stage])
    assert row["liked"] == [{"t": 5}, {"t": 7}]
    assert len(runs) < 10  # not the 200 of ann's
    local.drop()
