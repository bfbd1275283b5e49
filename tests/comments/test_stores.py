"""The three comment stores behind one interface (*Storing Comments*): posting and
replying, direct links, sub-discussions, counts, edits, soft deletes, cursors,
order parity between the stores, and the round-trip budget of a thread page."""

import dataclasses
from datetime import timedelta

import pytest
from bson import ObjectId

from comments.documents import CommentDocument
from comments.stores import (
    DiscussionNotFound,
    InvalidCursor,
    ThreadingUnsupported,
    UnknownParent,
    cursors,
    get_store,
    ledger,
    slugs,
)
from tests.comments.helpers import (
    ALICE,
    BASE,
    new_discussion,
    post_discussion,
    random_discussion,
    read_all,
    stored_comment,
    texts,
    walk,
)

STORES = ["documents", "embedded", "buckets"]
THREADED_STORES = ["documents", "embedded"]
BOB = {"id": "bob", "name": "Bob"}


@pytest.fixture(params=STORES)
def store(request, settings):
    settings.COMMENTS_BUCKET_SIZE = 4  # several buckets even in small tests
    return get_store(request.param)


@pytest.fixture
def d():
    return new_discussion()


def test_get_store_follows_the_setting(settings):
    assert get_store().name == "documents"
    settings.COMMENTS_STORE = "buckets"
    assert get_store().name == "buckets"
    with pytest.raises(ValueError, match="COMMENTS_STORE"):
        get_store("nope")


def test_post_reply_get_and_count(store, d):
    top = store.post(d, author=ALICE, text="first")
    reply = store.post(d, author=BOB, text="second", parent_slug=top.slug)
    deeper = store.post(d, author=ALICE, text="third", parent_slug=reply.slug)

    assert slugs.is_slug(top.slug) and top.depth == 0 and top.parent_slug is None
    assert reply.slug.startswith(top.slug + "/") and reply.depth == 1
    assert reply.parent_slug == top.slug
    assert deeper.full_slug.startswith(reply.full_slug + "/") and deeper.depth == 2
    part = top.full_slug.split(":")[0]
    assert part == top.posted.strftime("%Y.%m.%d.%H.%M.%S.%f")

    got = store.get(d, reply.slug)
    # The documents store counts direct replies on the parent: one since.
    assert dataclasses.replace(got, replies=0) == reply
    assert got.replies == (1 if store.name == "documents" else 0)
    assert got.author == BOB and got.text == "second" and got.discussion_id == d
    assert store.get(d, "zzzz") is None
    assert store.get(d, {"$ne": 1}) is None
    assert store.get(new_discussion(), top.slug) is None
    assert store.count(d) == 3
    assert store.count(new_discussion()) == 0


def test_unknown_parent_is_a_clear_error(store, d):
    store.post(d, author=ALICE, text="first")
    with pytest.raises(UnknownParent, match="'zzzz'"):
        store.post(d, author=ALICE, text="reply", parent_slug="zzzz")
    with pytest.raises(UnknownParent):
        store.post(d, author=ALICE, text="reply", parent_slug={"$ne": ""})
    assert store.count(d) == 1


def test_request_data_never_becomes_an_operator(store, d):
    c = store.post(d, author=ALICE, text="hello")
    for bad in [{"$ne": ""}, {"$regex": ".*"}, "$where", "ab", "ABCD", None]:
        assert store.get(d, bad) is None
        assert store.subtree(d, bad) is None
        assert not store.edit(d, bad, text="x")
        assert not store.soft_delete(d, bad, by="author")
    assert store.get(d, c.slug).text == "hello"


@pytest.mark.parametrize("name", ["embedded", "buckets"])
def test_posting_on_a_missing_post(name):
    with pytest.raises(DiscussionNotFound):
        get_store(name).post(ObjectId(), author=ALICE, text="hello")


def test_subtree_is_the_comment_and_its_descendants(store, d):
    times = (BASE + timedelta(seconds=i) for i in range(100))

    def post(text, parent=None):
        return store.post(
            d, author=ALICE, text=text, parent_slug=parent and parent.slug, posted=next(times)
        )

    a, b = post("a"), post("b")
    a1, b1 = post("a1", a), post("b1", b)
    a1x = post("a1x", a1)
    post("a2", a)
    post("b1x", b1)

    assert texts(store.subtree(d, a.slug)) == ["a", "a1", "a1x", "a2"]
    assert texts(store.subtree(d, a1.slug)) == ["a1", "a1x"]
    assert texts(store.subtree(d, a1x.slug)) == ["a1x"]
    assert store.subtree(d, "zzzz") is None

    def fetch(after, limit):
        return store.subtree(d, a.slug, after=after, limit=limit)

    assert texts(walk(fetch, limit=1)) == ["a", "a1", "a1x", "a2"]
    second = store.subtree(d, a.slug, limit=2)
    third = store.subtree(d, a.slug, after=second.next, limit=2)
    assert texts(third) == ["a1x", "a2"] and third.next is None
    assert texts(store.subtree(d, a.slug, before=third.prev, limit=2)) == ["a", "a1"]


def test_edit_marks_the_comment_edited(store, d):
    c = store.post(d, author=ALICE, text="typo")
    assert c.edited is None
    assert store.edit(d, c.slug, text="fixed")
    got = store.get(d, c.slug)
    assert got.text == got.display_text == "fixed" and got.edited is not None
    assert not store.edit(d, "zzzz", text="x")


def test_mentions_follow_the_text_and_an_erased_author_leaves_a_placeholder(store, d):
    """What an erasure finds and does (docs/accounts.md#erasure), in every store."""
    c = store.post(d, author=ALICE, text="hi @carol")
    reply = store.post(d, author=BOB, text="and @carol", parent_slug=c.slug)
    assert set(store.mentioning("carol", 10)) == {(d, c.slug), (d, reply.slug)}
    assert store.edit(d, c.slug, text="hi all")
    assert store.mentioning("carol", 10) == [(d, reply.slug)]
    assert store.rewrite(d, reply.slug, text="and [deleted account]")
    assert store.mentioning("carol", 10) == [] and not store.get(d, reply.slug).edited

    assert store.authored(ALICE["id"], 10) == [(d, c.slug)]
    assert store.erase_author(d, c.slug)
    erased = store.get(d, c.slug)
    assert erased.author == {"id": "", "name": ""} and erased.display_text == "[deleted]"
    assert store.get(d, reply.slug).parent_slug == c.slug  # the reply keeps its place
    # The array stores find authors through the log, which the service clears after.
    ledger.anonymize(ALICE["id"], [(d, c.slug)])
    assert store.authored(ALICE["id"], 10) == []


def test_soft_delete_keeps_the_replies(store, d):
    parent = store.post(d, author=ALICE, text="parent")
    reply = store.post(d, author=BOB, text="reply", parent_slug=parent.slug)
    other = store.post(d, author=BOB, text="spam")

    assert store.soft_delete(d, parent.slug, by="author")
    assert store.soft_delete(d, other.slug, by="moderator")
    assert not store.soft_delete(d, parent.slug, by="moderator")  # deleted already
    assert not store.edit(d, parent.slug, text="back")  # no editing a deleted comment

    gone = store.get(d, parent.slug)
    assert gone.deleted and gone.deleted_by == "author"
    assert gone.display_text == "[deleted]" and gone.text == ""
    assert store.get(d, other.slug).display_text == "[removed by a moderator]"
    assert store.get(d, reply.slug).display_text == "reply"
    assert [c.display_text for c in store.subtree(d, parent.slug)] == ["[deleted]", "reply"]
    page = store.page(d, order="oldest")
    assert [c.display_text for c in page] == ["[deleted]", "reply", "[removed by a moderator]"]
    assert store.count(d) == 3
    with pytest.raises(ValueError):
        store.soft_delete(d, reply.slug, by="someone")


def test_last_gives_the_newest_oldest_first(store, d):
    post_discussion(store, d, [None, None, 0, None, 2])
    assert texts(store.last(d, 3)) == ["c2", "c3", "c4"]
    assert texts(store.last(d, 10)) == ["c0", "c1", "c2", "c3", "c4"]
    assert store.last(d, 0) == []


def test_delete_discussion(store, d):
    post_discussion(store, d, [None, 0, 1])
    keep = new_discussion()
    post_discussion(store, keep, [None])
    store.delete_discussion(d)
    assert store.count(d) == 0 and store.page(d, order="oldest").comments == []
    assert store.count(keep) == 1


@pytest.mark.parametrize("order", ["oldest", "newest", "threaded"])
def test_cursors_walk_forward_and_back(store, d, order):
    if order == "threaded" and not store.threaded:
        with pytest.raises(ThreadingUnsupported):
            store.page(d, order=order, limit=3)
        return
    parents, threaded = random_discussion(11, seed=3)
    post_discussion(store, d, parents)
    expected = {
        "oldest": [f"c{i}" for i in range(11)],
        "newest": [f"c{i}" for i in reversed(range(11))],
        "threaded": [f"c{i}" for i in threaded],
    }[order]

    pages, cursor = [], None
    while True:
        page = store.page(d, order=order, after=cursor, limit=3)
        assert (page.prev is None) == (not pages)
        pages.append(texts(page))
        if page.next is None:
            break
        cursor = page.next
    assert [t for p in pages for t in p] == expected and [len(p) for p in pages] == [3, 3, 3, 2]

    back, cursor = [], page.prev
    while cursor is not None:
        page = store.page(d, order=order, before=cursor, limit=3)
        back.insert(0, texts(page))
        cursor = page.prev
    assert back == pages[:-1]


def test_bad_cursors_are_rejected(store, d):
    post_discussion(store, d, [None, None, None])
    order = "threaded" if store.threaded else "oldest"
    page = store.page(d, order="newest", limit=1)
    wrong_kind = cursors.offset(1) if order == "threaded" else cursors.threaded("x")
    for bad in ["garbage!", "", "dA", {"$gt": ""}, wrong_kind]:
        with pytest.raises(InvalidCursor):
            store.page(d, order=order, after=bad)
    with pytest.raises(InvalidCursor):
        store.page(d, order="newest", after=page.next, before=page.next)
    with pytest.raises(ValueError):
        store.page(d, order="sideways")


def test_buckets_cannot_thread(d):
    store = get_store("buckets")
    store.post(d, author=ALICE, text="hello")
    assert store.threaded is False
    with pytest.raises(ThreadingUnsupported, match="not available"):
        store.page(d, order="threaded")


def test_order_parity_across_stores(settings):
    """One generated discussion, with random replies, posted to each store."""
    settings.COMMENTS_BUCKET_SIZE = 10
    parents, threaded = random_discussion(90, seed=7)
    assert max(p is not None for p in parents)
    chronological = [f"c{i}" for i in range(90)]
    seen = {}
    for name in STORES:
        store, d = get_store(name), new_discussion()
        post_discussion(store, d, parents)
        orders = (["threaded"] if store.threaded else []) + ["oldest", "newest"]
        seen[name] = {order: texts(read_all(store, d, order)) for order in orders}
    assert seen["documents"]["threaded"] == seen["embedded"]["threaded"]
    assert seen["documents"]["threaded"] == [f"c{i}" for i in threaded]
    for name in STORES:
        assert seen[name]["oldest"] == chronological, name
        assert seen[name]["newest"] == chronological[::-1], name


def test_replies_deeper_than_the_display_limit_are_stored(store, d, settings):
    settings.COMMENTS_MAX_DEPTH = 3
    chain = post_discussion(store, d, [None, 0, 1, 2, 3, 4])
    deepest = store.get(d, chain[-1].slug)
    assert deepest.depth == 5 and deepest.display_depth == 3
    if store.threaded:
        assert texts(store.page(d, order="threaded")) == [f"c{i}" for i in range(6)]


def two_thousand_comments(d) -> list[str]:
    """500 top-level comments with 3 replies each, inserted directly; returns
    the full slugs in threaded order."""
    docs, i = [], 0
    for _ in range(500):
        top = stored_comment(i)
        docs.append(top)
        for _ in range(3):
            i += 1
            docs.append(stored_comment(i, top))
        i += 1
    for doc in docs:
        doc["discussion_id"] = d
    CommentDocument._get_collection().insert_many(docs)
    return sorted(doc["full_slug"] for doc in docs)


@pytest.mark.parametrize("order", ["threaded", "oldest", "newest"])
def test_documents_thread_page_round_trips(d, round_trips, order):
    """Keyset pages: page 40 costs what page 1 costs (docs/performance.md: at most 2)."""
    store = get_store("documents")
    full_slugs = two_thousand_comments(d)
    assert store.count(d) == 2000

    with round_trips() as c:
        page = store.page(d, order=order)
    assert c.total <= 2 and len(page) == 50

    for _ in range(38):
        page = store.page(d, order=order, after=page.next)
    with round_trips() as c:
        page40 = store.page(d, order=order, after=page.next)
    assert c.total <= 2
    assert len(page40) == 50 and page40.next is None and page40.prev is not None
    if order == "threaded":
        assert [x.full_slug for x in page40] == full_slugs[1950:]
        # a cursor built for page 40 directly gives the same page
        direct = store.page(d, order=order, after=cursors.threaded(full_slugs[1949]))
        assert direct.comments == page40.comments
