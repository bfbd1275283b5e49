"""`manage.py convert_comments --to <store>`: every thread of the store of
record copied into another store, which then reads the same; says how many
threads and comments; safe to run again."""

import io

import pytest
from django.core.management import CommandError, call_command

from comments import services
from comments.documents import CommentBucket, CommentDocument
from comments.stores import CommentError, get_store, shadows
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
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
    assert "\nConverted 1 thread(s)" in convert("--to", "buckets")
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


def _threads(make_user, n: int) -> list:
    """`n` posts with one comment each, and a post without comments between
    every two of them (the walk reads those too, and skips them)."""
    author = make_user("author")
    made = []
    for number in range(n):
        feeds.post_create(author=author, type="status", detail={"text": "quiet"}, circles=[PUBLIC])
        post = feeds.post_create(
            author=author, type="status", detail={"text": "x"}, circles=[PUBLIC]
        )
        doc = {"_id": post.id, "by": {"id": "author"}, "removed": None}
        services.comment_create(post=doc, author=author, text=f"comment {number}")
        made.append(post.id)
    return made


def test_convert_walks_in_batches_and_resumes_where_it_stopped(unshadowed, make_user, monkeypatch):
    """Each batch is its own short query on the `_id` index; a run stopped by
    a refused thread says where to resume, and the resumed run converts only
    what comes after, then the rest of the threads."""
    monkeypatch.setattr(shadows, "CONVERT_BATCH", 2)
    posts = _threads(make_user, 4)
    buckets = get_store("buckets")
    original = type(buckets).replace_thread

    def refuse_the_third(self, post_id, comments):
        if post_id == posts[2]:
            raise CommentError("refused")
        return original(self, post_id, comments)

    monkeypatch.setattr(type(buckets), "replace_thread", refuse_the_third)
    with pytest.raises(CommandError, match="Resume with --after ") as stopped:
        convert("--to", "buckets")
    after = str(stopped.value).rsplit("--after ", 1)[1].rstrip(".")
    assert [buckets.count(p) for p in posts] == [1, 1, 0, 0]
    assert after == str(posts[1])  # batches of two posts: a quiet one, then a thread

    monkeypatch.setattr(type(buckets), "replace_thread", original)
    out = convert("--to", "buckets", "--after", after)
    assert "Converted 2 thread(s) (2 comment(s))" in out  # only what came after
    assert f"through post {posts[3]}" in out
    assert [buckets.count(p) for p in posts] == [1, 1, 1, 1]


def test_convert_refuses_a_position_that_is_not_a_post_id(unshadowed, make_user):
    posts = _threads(make_user, 1)
    for bad in ("nope", "$gt", "f" * 25):
        with pytest.raises(CommandError, match="is not a post id"):
            convert("--to", "buckets", "--after", bad)
    assert get_store("buckets").count(posts[0]) == 0
