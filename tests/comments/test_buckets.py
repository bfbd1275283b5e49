"""The buckets store (*Storing Comments*'s hybrid design): the seed's skip/limit walk
across buckets, checked on the seed's own example and by a property test, and
posting under concurrency."""

import sys
import threading
from collections import Counter

from bson import ObjectId
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from comments.documents import CommentBucket
from comments.stores import cursors, get_store
from tests.comments.helpers import new_discussion, stored_comment, texts
from tests.conftest import sized


def make_buckets(sizes: list[int]) -> tuple[ObjectId, list[list[dict]]]:
    """A discussion whose buckets hold exactly `sizes` comments, built directly."""
    d, buckets, i = ObjectId(), [], 0
    for size in sizes:
        buckets.append([stored_comment(i + k) for k in range(size)])
        i += size
    if buckets:
        CommentBucket._get_collection().insert_many(
            [
                {"discussion_id": d, "bucket": n, "count": len(cs), "comments": cs}
                for n, cs in enumerate(buckets)
            ]
        )
    return d, buckets


def text_of(comments: list[dict]) -> list[str]:
    return [c["text"] for c in comments]


def test_the_seeds_example(round_trips):
    """100, 102, 101 and 22 comments; skip=300, limit=50: the last 3 of the
    third bucket, then all 22 of the fourth (*Storing Comments*'s table)."""
    store = get_store("buckets")
    d, buckets = make_buckets([100, 102, 101, 22])
    with round_trips() as c:
        found = store.find_comments(d, 300, 50)
    assert [(n, text_of(cs)) for n, cs in found] == [
        (2, text_of(buckets[2][-3:])),
        (3, text_of(buckets[3])),
    ]
    assert c.total == 3  # the counts, then one $slice per bucket the page overlaps

    page = store.page(d, order="oldest", after=cursors.offset(299), limit=50)
    assert texts(page) == text_of(buckets[2][-3:] + buckets[3])
    assert page.next is None and page.prev is not None


@hsettings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sizes=st.lists(st.integers(1, 30), max_size=8),
    skip=st.integers(0, 260),
    limit=st.integers(1, 80),
)
def test_find_comments_is_a_slice_of_the_discussion(sizes, skip, limit):
    store = get_store("buckets")
    d, buckets = make_buckets(sizes)
    whole = [c for cs in buckets for c in cs]
    found = store.find_comments(d, skip, limit)
    assert text_of([c for _, cs in found for c in cs]) == text_of(whole[skip : skip + limit])
    assert all(cs for _, cs in found)


@hsettings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sizes=st.lists(st.integers(1, 12), max_size=6), limit=st.integers(1, 15))
def test_pages_walk_the_whole_discussion(sizes, limit):
    store = get_store("buckets")
    d, buckets = make_buckets(sizes)
    whole = text_of([c for cs in buckets for c in cs])
    for order, expected in (("oldest", whole), ("newest", whole[::-1])):
        found, cursor = [], None
        while True:
            page = store.page(d, order=order, after=cursor, limit=limit)
            assert len(page) <= limit
            found += texts(page)
            if page.next is None:
                break
            cursor = page.next
        assert found == expected


# Through a driver each comment costs the wire server milliseconds: fewer
# comments and smaller buckets there, as many bucket boundaries to race at.
THREADS, EACH, SIZE = 8, sized(200, 50), sized(100, 20)


def test_concurrent_posting_loses_nothing(settings):
    """8 threads post 200 comments each into one discussion (50 through a driver)."""
    settings.COMMENTS_BUCKET_SIZE = size = SIZE
    store, d = get_store("buckets"), new_discussion()
    start, errors = threading.Barrier(THREADS), []

    def writer(t: int):
        try:
            start.wait()
            for i in range(EACH):
                store.post(d, author={"id": f"t{t}", "name": f"T{t}"}, text=f"{t}:{i}")
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(THREADS)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: more interleavings, more races
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors

    rows = list(CommentBucket._get_collection().find({"discussion_id": d}).sort("bucket", 1))
    assert [r["bucket"] for r in rows] == list(range(len(rows)))
    for r in rows:
        assert r["count"] == len(r["comments"]) > 0  # no empty bucket
        assert r["count"] <= size + THREADS  # at most a few over
    assert all(r["count"] >= size for r in rows[:-1])  # rolled over only when full

    stored = [c["text"] for r in rows for c in r["comments"]]
    assert Counter(stored) == Counter(f"{t}:{i}" for t in range(THREADS) for i in range(EACH))
    assert len({c["slug"] for r in rows for c in r["comments"]}) == THREADS * EACH
    assert store.count(d) == THREADS * EACH
    for t in range(THREADS):  # each writer's comments in the order it posted them
        mine = [s for s in stored if s.startswith(f"{t}:")]
        assert mine == [f"{t}:{i}" for i in range(EACH)]
