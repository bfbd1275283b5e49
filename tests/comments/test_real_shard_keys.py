"""Every single-document write on a comment collection carries the whole
shard key of its collection (issue 10, item 5; docs/performance.md): on a sharded
cluster an update_one, delete_one or find_one_and_update without it fails.

The test wraps the collection class (mongomock's, or pymongo's on a real
server) and reads each write's filter against the shard keys the documents
declare, for the three stores and every write path: post, reply, edit, soft
delete by the author and by a moderator, restore, votes, and the post's summary.
"""

from datetime import timedelta

import pytest
from bson import ObjectId

from comments import services, votes
from comments.documents import (
    CommentBucket,
    CommentBudget,
    CommentDocument,
    CommentLogEntry,
    CommentVote,
)
from comments.stores import get_store
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from tests.comments.helpers import ALICE, new_discussion

STORES = ["documents", "embedded", "buckets"]
#: The collection that holds each store's comments.
HOLDER = {"documents": "comments", "embedded": "post", "buckets": "comment_buckets"}
DOCUMENTS = (CommentDocument, CommentBucket, CommentLogEntry, CommentBudget, CommentVote, Post)
SINGLE_WRITES = (
    "update_one",
    "replace_one",
    "delete_one",
    "find_one_and_update",
    "find_one_and_replace",
    "find_one_and_delete",
)


def shard_key(document) -> list[str]:
    """The stored names of the document's shard key fields."""
    names = document._meta.get("shard_key") or ()
    return ["_id" if n in ("id", "pk") else document._fields[n].db_field for n in names]


KEYS = {d._get_collection_name(): shard_key(d) for d in DOCUMENTS}


def missing_key(collection: str, query: dict) -> list[str]:
    """The shard key fields the filter does not pin to one value."""
    return [
        name
        for name in KEYS.get(collection, ())
        if name not in query
        or (isinstance(query[name], dict) and any(k.startswith("$") for k in query[name]))
    ]


@pytest.fixture
def writes(monkeypatch):
    """(collection, method, filter) of every single-document write."""
    seen = []
    collection_class = type(CommentDocument._get_collection())
    for method in SINGLE_WRITES:
        original = getattr(collection_class, method)

        def wrapper(self, filter, *args, _original=original, _method=method, **kwargs):
            seen.append((self.name, _method, dict(filter)))
            return _original(self, filter, *args, **kwargs)

        monkeypatch.setattr(collection_class, method, wrapper)
    return seen


def test_the_checker_knows_the_keys_and_catches_a_partial_one():
    assert KEYS["comments"] == ["discussion_id", "slug"]
    assert KEYS["comment_buckets"] == ["discussion_id", "bucket"]
    assert KEYS["post"] == ["_id"]
    # The bucket edit before issue 10: discussion and slug, but no bucket.
    old_edit = {"discussion_id": ObjectId(), "comments": {"$elemMatch": {"slug": "abcd"}}}
    assert missing_key("comment_buckets", old_edit) == ["bucket"]
    assert missing_key("comment_buckets", {**old_edit, "bucket": {"$gte": 0}}) == ["bucket"]
    assert missing_key("comment_buckets", {**old_edit, "bucket": 3}) == []


@pytest.mark.parametrize("name", STORES)
def test_every_comment_write_carries_the_full_shard_key(settings, make_user, writes, name):
    settings.COMMENTS_STORE = name
    settings.COMMENTS_BUCKET_SIZE = 2  # the edits below land in an older bucket
    ada, bob = make_user("ada"), make_user("bob")
    post = feeds.post_create(author=ada, type="status", detail={"text": "hi"}, circles=[PUBLIC])
    doc = Post._get_collection().find_one({"_id": post.id})
    writes.clear()

    first = services.comment_create(post=doc, author=bob, text="first")
    reply = services.comment_create(post=doc, author=ada, text="reply", parent_slug=first.slug)
    for i in range(4):  # fill a few buckets
        services.comment_create(post=doc, author=bob, text=f"more {i}")
    services.comment_edit(post_id=post.id, slug=first.slug, actor=bob, text="first, edited")
    services.comment_edit(post_id=post.id, slug=reply.slug, actor=ada, text="reply, edited")
    services.comment_delete(post_id=post.id, slug=first.slug, actor=bob)
    services.comment_soft_delete(post_id=post.id, slug=reply.slug, by="moderator")
    assert services.comment_restore(post_id=post.id, slug=reply.slug, text="reply, edited")
    # Votes: cast, changed, taken back; a dead request's vote settled; erased.
    for direction in ("up", "down", "none", "up"):
        votes.comment_vote(post=doc, slug=reply.slug, voter=bob, direction=direction)
    CommentVote._get_collection().insert_one(
        {
            "discussion_id": post.id,
            "slug": reply.slug,
            "voter": "cyd",
            "dir": -1,
            "ts": post.ts,
            "pending": ObjectId.from_datetime(post.ts - timedelta(hours=1)),
        }
    )
    assert votes.votes_settle(older_than_seconds=60) == 1
    assert votes.votes_erase("bob", 10) == 1

    store = get_store()
    assert store.get(post.id, first.slug).deleted_by == "author"
    assert store.get(post.id, reply.slug).text == "reply, edited"
    # The store's own writes were seen: two edits, two deletes, the restore.
    updates = [w for w in writes if w[0] == HOLDER[name] and w[1] == "update_one"]
    assert len(updates) >= 5
    bad = [(c, m, q) for c, m, q in writes if missing_key(c, q)]
    assert bad == []


@pytest.mark.parametrize("name", STORES)
def test_the_store_writes_alone_carry_the_key(settings, writes, name):
    """The stores called directly (as the demo and moderation do)."""
    settings.COMMENTS_BUCKET_SIZE = 2
    store, d = get_store(name), new_discussion()
    made = [store.post(d, author=ALICE, text=str(i)) for i in range(5)]
    store.post(d, author=ALICE, text="r", parent_slug=made[0].slug)
    writes.clear()
    assert store.edit(d, made[0].slug, text="edited")
    assert store.soft_delete(d, made[1].slug, by="moderator")
    assert store.restore(d, made[1].slug, text="1")
    assert store.soft_delete(d, made[2].slug, by="author")
    assert not store.edit(d, made[2].slug, text="gone")
    store.delete_discussion(d)
    assert len([w for w in writes if w[0] == HOLDER[name]]) >= 5
    bad = [(c, m, q) for c, m, q in writes if missing_key(c, q)]
    assert bad == []
