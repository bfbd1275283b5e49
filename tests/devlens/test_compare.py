"""The compare page (docs/developer-lens.md): one page of the demo under every model,
with the parity check against the system of record."""

import re

import pytest

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from socialsite.active import COMMENT_STORES, TIMELINE_MODELS
from tests.devlens.conftest import commented_post
from timelines.documents import MonthTimeline

ROW = re.compile(r'<tr class="(model-row|embed-row|store-row)"([^>]*)>')
ATTR = re.compile(r'data-([a-z-]+)="([^"]*)"')
MODEL_ROW = re.compile(
    r'<tr class="model-row" data-model="(\w+)" data-round-trips="(\d+)" data-docs="(\d+)" '
    r'data-ms="([0-9.]+)" data-parity="(ok|differs)"'
)


def rows(page: str, kind: str) -> list[dict]:
    return [dict(ATTR.findall(attrs)) for found, attrs in ROW.findall(page) if found == kind]


def compare(client, path: str) -> str:
    response = client.get("/dev/compare/", {"path": path})
    assert response.status_code == 200, response.content[:2000]
    return response.content.decode()


def assert_every_model_agrees(page: str) -> list[dict]:
    models = rows(page, "model-row")
    assert [row["model"] for row in models] == list(TIMELINE_MODELS)
    assert {row["parity"] for row in models} == {"ok"}, models
    # The three stored models again with the other kind of entry.
    variants = rows(page, "embed-row")
    assert [row["model"] for row in variants] == ["cache", "month", "size"]
    assert {row["parity"] for row in variants} == {"ok"}, variants
    # docs/developer-lens.md's markup, attribute for attribute, in this order.
    assert [m[0] for m in MODEL_ROW.findall(page)] == list(TIMELINE_MODELS)
    return models


@pytest.mark.mongomock_only(
    reason="every model over the demo; the compare page runs through the driver below"
)
def test_the_demo_feed_agrees_under_every_model(demo_admin):
    page = compare(demo_admin, "/feed/")
    models = assert_every_model_agrees(page)
    shown = len(re.findall(r"data-post-id", demo_admin.get("/feed/").content.decode()))
    assert shown > 5  # alice's demo feed has posts: parity compared something
    assert all(int(row["round-trips"]) > 0 and int(row["docs"]) > 0 for row in models)
    # Alice follows pulled authors: each stored model merged their posts when
    # read, and says how many (the read model reads every post that way).
    pulled = {row["model"]: int(row["pulled"]) for row in models}
    assert pulled["read"] == 0 and pulled["cache"] > 0, pulled
    assert pulled["cache"] == pulled["month"] == pulled["size"], pulled
    assert f"· {pulled['cache']} pulled" in page


@pytest.mark.parametrize("whose", ["own", "followed"])
def test_demo_walls_agree_under_every_model(demo_admin, demo, whose):
    handle = "alice"
    if whose == "followed":
        author = Post._get_collection().find_one({"by.id": {"$ne": "alice"}, "to": None})
        handle = author["by"]["id"]
    page = compare(demo_admin, f"/u/{handle}/")
    assert_every_model_agrees(page)


def test_a_demo_post_page_agrees_under_every_model_and_comment_store(demo_admin):
    post = commented_post()
    assert post["comments_count"] > 0
    page = compare(demo_admin, f"/posts/{post['_id']}/?order=oldest")
    assert_every_model_agrees(page)
    stores = rows(page, "store-row")
    assert [row["store"] for row in stores] == list(COMMENT_STORES)
    # Holds only if the demo's comments went through the comment services,
    # which write every shadow store (docs/storage-models.md#shadow-models), not into one store
    # directly.
    assert {row["parity"] for row in stores} == {"ok"}, stores
    thread = demo_admin.get(f"/posts/{post['_id']}/?order=oldest").content.decode()
    assert 'class="comment' in thread  # the stores agreed on comments, not on nothing


def test_a_broken_shadow_timeline_differs(demo_admin):
    """Take one entry out of alice's month timeline: that model, and only
    it, no longer shows what the system of record shows."""
    feed = demo_admin.get("/feed/").content.decode()
    first = re.search(r'data-post-id="([0-9a-f]{24})"', feed).group(1)
    months = MonthTimeline._get_collection()
    holder = months.find_one({"owner": "alice", "kind": "news", "entries.id": {"$exists": True}})
    entry_ids = [
        e["id"] for doc in months.find({"owner": "alice", "kind": "news"}) for e in doc["entries"]
    ]
    assert holder is not None and any(str(i) == first for i in entry_ids)
    months.update_many(
        {"owner": "alice", "kind": "news"},
        {"$pull": {"entries": {"id": next(i for i in entry_ids if str(i) == first)}}},
    )

    page = compare(demo_admin, "/feed/")
    parity = {row["model"]: row["parity"] for row in rows(page, "model-row")}
    assert parity == {"cache": "ok", "month": "differs", "size": "ok", "read": "ok"}
    variants = {row["model"]: row["parity"] for row in rows(page, "embed-row")}
    assert variants["month"] == "differs"
    assert "1 missing" in page


def test_the_compare_page_leaves_the_session_and_messages_alone(demo_admin):
    demo_admin.post("/dev/", {"timeline_model": "size", "comment_store": "documents"})
    page = compare(demo_admin, "/feed/")
    assert demo_admin.session["dev_models"]["timeline_model"] == "size"
    # The renderings before it did not consume the switch's message: the
    # compare page itself shows it, once.
    assert page.count("Switched: this session") == 1


def test_comments_written_through_the_services_agree_under_every_store(shadows, make_user, login):
    """The comment write path keeps every store (COMMENTS_SHADOW_STORES), so
    a thread shows the same comments, in the same order, under each."""
    root = make_user("root", role="admin")
    ann, ben = make_user("ann"), make_user("ben")
    made = feeds.post_create(
        author=ann, type="status", detail={"text": "Which flour?"}, circles=[PUBLIC]
    )
    first = None
    for n, author in enumerate([ben, ann, root, ben, ann]):
        post = Post._get_collection().find_one({"_id": made.id})
        comment = comments.comment_create(
            post=post, author=author, text=f"comment {n}", parent_slug=first
        )
        first = first or comment.slug
    page = compare(login(root), f"/posts/{made.id}/?order=oldest")
    stores = rows(page, "store-row")
    assert [row["store"] for row in stores] == list(COMMENT_STORES)
    assert {row["parity"] for row in stores} == {"ok"}, stores
    assert page.count("· 5 comments") == 3 + 4 + 3  # every store row, model row and variant


def test_a_threaded_post_page_compares_its_comment_stores_oldest_first(shadows, make_user, login):
    """A reply to the first comment, written last, comes second in the
    threaded order and last in the oldest-first one. `buckets` cannot thread,
    so the stores are compared in the order all three serve."""
    root = make_user("root", role="admin")
    ann, ben = make_user("ann"), make_user("ben")
    made = feeds.post_create(author=ann, type="status", detail={"text": "Rye?"}, circles=[PUBLIC])
    post = Post._get_collection().find_one({"_id": made.id})
    first = comments.comment_create(post=post, author=ben, text="first", parent_slug=None)
    comments.comment_create(post=post, author=ann, text="second", parent_slug=None)
    comments.comment_create(post=post, author=root, text="reply", parent_slug=first.slug)
    page = compare(login(root), f"/posts/{made.id}/")
    stores = rows(page, "store-row")
    assert [row["store"] for row in stores] == list(COMMENT_STORES)
    assert {row["parity"] for row in stores} == {"ok"}, stores
    assert "oldest first" in page
