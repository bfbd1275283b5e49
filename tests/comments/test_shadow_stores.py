"""Shadow comment stores (docs/storage-models.md#shadow-models): with COMMENTS_SHADOW_STORES every
comment write reaches all three stores, so a thread reads the same under
each (docs/developer-lens.md's live switch); a shadow that misses a write is left
behind, never fails the user, and `convert_comments` brings it level."""

import io

import pytest
from django.core.management import call_command

from comments import selectors
from comments import services as comments
from comments.documents import CommentLogEntry
from comments.stores import CommentError, get_store, shadows
from comments.stores.base import stored_form
from comments.stores.buckets import BucketsStore
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from socialsite import active
from tests.comments.shadow_helpers import (
    STORES,
    as_read,
    assert_same_under_every_store,
    busy_discussion,
)


@pytest.fixture(params=STORES)
def record(request, settings):
    """Shadows on, under each store of record."""
    settings.COMMENTS_STORE = request.param
    settings.COMMENTS_SHADOW_STORES = "all"
    settings.COMMENTS_BUCKET_SIZE = 2  # several buckets
    return request.param


def test_shadow_stores_follow_the_settings(settings):
    settings.COMMENTS_STORE, settings.COMMENTS_SHADOW_STORES = "embedded", "all"
    assert [s.name for s in shadows.write_stores()] == ["embedded", "documents", "buckets"]
    settings.COMMENTS_SHADOW_STORES = "buckets,embedded"
    assert [s.name for s in shadows.write_stores()] == ["embedded", "buckets"]
    settings.COMMENTS_SHADOW_STORES = ""
    assert [s.name for s in shadows.write_stores()] == ["embedded"]
    settings.COMMENTS_SHADOW_STORES = "nope"
    with pytest.raises(ValueError, match="nope"):
        shadows.shadow_names()


def test_every_write_reaches_every_store(record, make_user):
    post_id, _ = busy_discussion(make_user)
    assert_same_under_every_store(post_id)
    # One line per comment in the array stores' log, however many stores wrote it.
    logged = CommentLogEntry._get_collection().count_documents({"discussion_id": post_id})
    assert logged == len(as_read("documents", post_id, "oldest"))


def test_writes_go_to_the_record_whatever_store_the_session_reads(record, make_user):
    """An admin reading through another store at /dev/ writes to the record
    and the shadows as everyone does."""
    star = make_user("star")
    post = feeds.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    doc = {"_id": post.id, "by": {"id": "star"}, "removed": None}
    for name in STORES:
        with active.override(comment_store=name):
            top = comments.comment_create(post=doc, author=star, text=f"via {name}")
            comments.comment_create(post=doc, author=star, text="re", parent_slug=top.slug)
    assert_same_under_every_store(post.id)


def test_a_threaded_view_under_buckets_shows_the_thread_oldest_first(record, make_user):
    post_id, users = busy_discussion(make_user)
    with active.override(comment_store="buckets"):
        thread = selectors.thread(post_id, order="threaded", viewer=users["fan"])
    assert thread.order == "oldest" and "not available" in thread.notice
    assert [c.slug for c in thread.page.comments] == [
        row[1] for row in as_read("documents", post_id, "oldest")
    ]


def test_a_shadow_that_misses_a_write_is_brought_level_by_convert(
    settings, make_user, monkeypatch, caplog
):
    settings.COMMENTS_STORE, settings.COMMENTS_SHADOW_STORES = "documents", "all"
    real_put = BucketsStore.put
    failures = {"left": 1}

    def put_once_failing(self, discussion_id, comment):
        if failures["left"]:
            failures["left"] -= 1
            raise CommentError("bucket store down")
        return real_put(self, discussion_id, comment)

    monkeypatch.setattr(BucketsStore, "put", put_once_failing)
    post_id, _ = busy_discussion(make_user)
    assert "convert_comments --to buckets" in caplog.text
    documents = as_read("documents", post_id, "oldest")
    assert as_read("embedded", post_id, "oldest") == documents
    assert len(as_read("buckets", post_id, "oldest")) == len(documents) - 1

    out = io.StringIO()
    call_command("convert_comments", "--to", "buckets", stdout=out)
    assert f"Converted 1 thread(s) ({len(documents)} comment(s))" in out.getvalue()
    assert_same_under_every_store(post_id)


def test_putting_a_comment_twice_stores_it_once(record, make_user):
    post_id, _ = busy_discussion(make_user)
    thread = get_store(record).page(post_id, order="oldest", limit=100).comments
    for name in STORES:
        store = get_store(name)
        assert [store.put(post_id, stored_form(c)) for c in thread] == [False] * len(thread)
    assert_same_under_every_store(post_id)
