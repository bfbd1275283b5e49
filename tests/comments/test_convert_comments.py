"""`manage.py convert_comments --to <store>`: every thread of the store of
record copied into another store, which then reads the same; says how many
threads and comments; safe to run again."""

import io

import pytest
from django.core.management import CommandError, call_command

from comments import services
from comments.documents import CommentBucket, CommentDocument
from comments.stores import get_store
from feeds.documents import Post
from tests.comments.shadow_helpers import as_read, assert_same_under_every_store, busy_discussion


def convert(*args) -> str:
    out = io.StringIO()
    call_command("convert_comments", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def unshadowed(settings):
    settings.COMMENTS_STORE, settings.COMMENTS_SHADOW_STORES = "documents", ""
    settings.COMMENTS_BUCKET_SIZE = 2


def test_convert_fills_the_other_stores_and_counts(unshadowed, make_user):
    post_id, _ = busy_discussion(make_user)
    total = len(as_read("documents", post_id, "oldest"))
    assert get_store("embedded").count(post_id) == 0  # nothing shadowed
    assert get_store("buckets").count(post_id) == 0

    out = convert("--to", "embedded")
    assert f"Converted 1 thread(s) ({total} comment(s)) from documents to embedded." in out
    assert convert("--to", "buckets").startswith("Converted 1 thread(s)")
    assert_same_under_every_store(post_id)

    # Again: the same result, nothing doubled.
    assert f"({total} comment(s))" in convert("--to", "buckets")
    convert("--to", "embedded")
    assert_same_under_every_store(post_id)
    stored = CommentBucket._get_collection().find({"discussion_id": post_id})
    assert sum(b["count"] for b in stored) == total


def test_a_converted_buckets_store_keeps_taking_comments(unshadowed, make_user, settings):
    post_id, users = busy_discussion(make_user)
    convert("--to", "buckets")
    settings.COMMENTS_STORE = "buckets"
    post = Post._get_collection().find_one({"_id": post_id})
    services.comment_create(post=post, author=users["fan"], text="after the switch")
    newest = as_read("buckets", post_id, "newest")
    assert newest[0][4] == "after the switch"
    assert len(newest) == len(as_read("documents", post_id, "oldest")) + 1


def test_convert_from_another_store_and_refusals(unshadowed, make_user, settings):
    post_id, _ = busy_discussion(make_user)
    convert("--to", "embedded")
    CommentDocument._get_collection().delete_many({})
    out = convert("--from", "embedded", "--to", "documents")
    assert "from embedded to documents" in out
    convert("--to", "buckets")
    assert_same_under_every_store(post_id)
    with pytest.raises(CommandError, match="nothing to convert"):
        convert("--to", "documents")
    with pytest.raises(CommandError):
        convert("--to", "nope")


def test_convert_with_no_comments_says_so(unshadowed):
    assert "Converted 0 thread(s) (0 comment(s))" in convert("--to", "buckets")
