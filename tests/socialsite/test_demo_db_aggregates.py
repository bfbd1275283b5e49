"""Aggregates the pages rely on answer as a server answers them: `$lookup`
with an array `localField` and a pipeline, `$unwind`, and a leading `$match`
on top-level fields with dates (the embedded database runs them its own,
faster way: batched, without per-row copies; the second test pass checks the
same expectations through the driver)."""

from datetime import UTC, datetime, timedelta

from mongoengine.connection import get_db

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _collections():
    db = get_db()
    # Not the site's collections, which the suite empties between tests.
    db.drop_collection("scratch_pages")
    db.drop_collection("scratch_likes")
    pages, likes = db["scratch_pages"], db["scratch_likes"]
    pages.insert_many(
        [
            {"owner": "ann", "kind": "news", "page": [{"id": 1}, {"id": 2}, {"id": 3}]},
            {"owner": "ann", "kind": "wall", "page": [{"id": 9}]},
            {"owner": "bob", "kind": "news", "page": []},
        ]
    )
    likes.insert_many(
        [
            {"post": 1, "by": "ann", "ts": T0},
            {"post": 1, "by": "bob", "ts": T0},
            {"post": 2, "by": "bob", "ts": T0},
            {"post": 3, "by": "ann", "ts": T0 + timedelta(seconds=1)},
        ]
    )
    likes.create_index([("post", 1), ("by", 1)], unique=True)
    pages.create_index([("owner", 1), ("kind", 1)], unique=True)
    return pages, likes


def test_a_lookup_over_an_array_of_ids_with_a_pipeline():
    pages, _ = _collections()
    [row] = pages.aggregate(
        [
            {"$match": {"owner": "ann", "kind": "news"}},
            {"$addFields": {"_ids": {"$map": {"input": "$page", "as": "e", "in": "$$e.id"}}}},
            {
                "$lookup": {
                    "from": "scratch_likes",
                    "localField": "_ids",
                    "foreignField": "post",
                    "pipeline": [
                        {"$match": {"by": "ann"}},
                        {"$project": {"_id": 0, "post": 1, "ts": 1}},
                    ],
                    "as": "liked",
                }
            },
        ]
    )
    assert sorted(like["post"] for like in row["liked"]) == [1, 3]
    assert all(set(like) == {"post", "ts"} for like in row["liked"])
    assert {like["ts"] for like in row["liked"]} == {T0, T0 + timedelta(seconds=1)}


def test_an_unwind_gives_each_element_its_own_row():
    pages, _ = _collections()
    rows = list(
        pages.aggregate(
            [
                {"$match": {"owner": {"$in": ["ann", "bob"]}, "kind": "news"}},
                {"$unwind": {"path": "$page", "preserveNullAndEmptyArrays": True}},
                {"$project": {"_id": 0, "owner": 1, "page": 1}},
            ]
        )
    )
    assert sorted(rows, key=str) == sorted(
        [
            {"owner": "ann", "page": {"id": 1}},
            {"owner": "ann", "page": {"id": 2}},
            {"owner": "ann", "page": {"id": 3}},
            {"owner": "bob"},
        ],
        key=str,
    )
    rows[0]["page"]["id"] = 99  # rows are the reader's own: the store is unchanged
    assert pages.find_one({"owner": "ann", "kind": "news"})["page"][0]["id"] == 1


def test_a_leading_match_on_dates_keeps_exactly_its_documents():
    _, likes = _collections()
    later = list(likes.aggregate([{"$match": {"ts": {"$gt": T0}, "by": "ann"}}]))
    assert [like["post"] for like in later] == [3]
    assert later[0]["ts"] == T0 + timedelta(seconds=1)
    assert later[0]["ts"].tzinfo is not None


def test_a_lookup_of_the_newest_few_by_several_keys_sorts_before_it_limits():
    """A news page's pulled posts (timelines/selectors/pulled.py): the newest n
    of several authors, sorted across them, then cut; an exclusion `$project`
    after the limit drops its fields and keeps the rest."""
    pages, _ = _collections()
    db = get_db()
    db.drop_collection("scratch_posts")
    posts = db["scratch_posts"]
    posts.insert_many(
        [
            {"_id": i, "by": by, "ts": T0 + timedelta(minutes=i), "big": "x" * 10, "keep": i}
            for i, by in enumerate(["ann", "bob", "cyd", "ann", "bob", "ann", "cyd", "bob"])
        ]
    )
    posts.create_index([("by", 1), ("ts", -1), ("_id", -1)])
    [row] = pages.aggregate(
        [
            {"$match": {"owner": "ann", "kind": "news"}},
            {"$addFields": {"_authors": {"$literal": ["ann", "bob", "nobody"]}}},
            {
                "$lookup": {
                    "from": "scratch_posts",
                    "localField": "_authors",
                    "foreignField": "by",
                    "pipeline": [
                        {"$match": {"ts": {"$lt": T0 + timedelta(minutes=7)}}},
                        {"$sort": {"ts": -1, "_id": -1}},
                        {"$limit": 3},
                        {"$project": {"big": 0}},
                    ],
                    "as": "newest",
                }
            },
        ]
    )
    assert [post["_id"] for post in row["newest"]] == [5, 4, 3]
    assert all("big" not in post and post["keep"] == post["_id"] for post in row["newest"])


def test_a_page_of_a_timeline_copies_only_the_page(monkeypatch):
    """A timeline page (timelines/stores/cache.py): `$match`, `$limit`, then a
    `$project` that slices the entries older than a cursor. The embedded
    database runs the slice on the stored document and copies only the page
    (embedded_mongo/reads.py), with the answer a copy-then-project gives:
    aware dates, the cursor compared to the millisecond, the reader's own rows."""
    from embedded_mongo import copies

    db = get_db()
    db.drop_collection("scratch_timelines")
    timelines = db["scratch_timelines"]
    timelines.create_index([("owner", 1), ("kind", 1)], unique=True)
    entries = [{"id": n, "ts": T0 - timedelta(minutes=n), "by": "ann"} for n in range(50)]
    timelines.insert_many(
        [{"owner": "ann", "kind": "news", "entries": entries}]
        + [{"owner": owner, "kind": "news", "entries": []} for owner in ("bob", "cyd", "dan")]
    )
    copied = []
    aware_copy = copies.aware_copy
    monkeypatch.setattr(copies, "aware_copy", lambda doc: copied.append(doc) or aware_copy(doc))
    before = {"ts": T0 - timedelta(minutes=10), "id": 10}
    older = {
        "$or": [
            {"$lt": ["$$e.ts", before["ts"]]},
            {"$and": [{"$eq": ["$$e.ts", before["ts"]]}, {"$lt": ["$$e.id", before["id"]]}]},
        ]
    }
    [row] = timelines.aggregate(
        [
            {"$match": {"owner": "ann", "kind": "news"}},
            {"$limit": 1},
            {
                "$project": {
                    "page": {
                        "$slice": [{"$filter": {"input": "$entries", "as": "e", "cond": older}}, 3]
                    },
                    "stored": {"$size": "$entries"},
                }
            },
            {"$project": {"page.by": 0}},
        ]
    )
    assert row["stored"] == 50
    assert row["page"] == [{"id": n, "ts": T0 - timedelta(minutes=n)} for n in (11, 12, 13)]
    assert row["page"][0]["ts"].tzinfo is not None
    assert [len(doc.get("page", ())) for doc in copied] == [3]
    assert all("entries" not in doc for doc in copied)
    row["page"][0]["id"] = 99  # the reader's own copy: the stored entry is unchanged
    assert timelines.find_one({"owner": "ann"})["entries"][11]["id"] == 11


def test_a_slice_projection_is_copied_as_mongomock_copies_it():
    """`{"comments": {"$slice": [start, n]}}` (a post's comment page) goes to
    mongomock's own copy, not the one-pass copier of plain projections."""
    db = get_db()
    db.drop_collection("scratch_threads")
    threads = db["scratch_threads"]
    threads.insert_many([{"_id": n, "c": [1, 2, 3], "at": T0} for n in range(4)])
    assert threads.find_one({"_id": 1}, {"at": 1, "c": {"$slice": [1, 1]}}) == {
        "_id": 1,
        "c": [2],
        "at": T0,
    }
    only = threads.find_one({"_id": 2}, {"c": {"$slice": -1}, "_id": 0, "at": 1})
    assert only == {"c": [3], "at": T0} and only["at"].tzinfo is not None
