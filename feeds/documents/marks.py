"""The marks people leave on posts: votes, likes, reposts, bookmarks. Each
is one small document per (post, person), unique, so one each holds under
races and across shards."""

import mongoengine as me

from feeds.documents.posts import Delivery
from socialsite.clock import now


class PollVote(me.Document):
    """One vote per (poll, voter); the counts live on the post, kept with $inc."""

    post = me.ObjectIdField(required=True)
    voter = me.StringField(required=True)
    option = me.IntField(required=True)
    ts = me.DateTimeField(default=now)

    meta = {
        "collection": "poll_vote",
        "indexes": [
            {"fields": ["post", "voter"], "unique": True, "name": "post_voter"},
            # A person's votes: their export and erasure.
            {"fields": ["voter", "-ts"], "name": "voter_ts"},
        ],
        # The whole unique key, so "one vote each" holds across shards, and a
        # popular poll's votes split by voter instead of one jumbo chunk.
        "shard_key": ("post", "voter"),
        "auto_create_index": False,
    }


class PostLike(me.Document):
    """One like per (post, person); the count lives on the post (`likes_count`)."""

    post = me.ObjectIdField(required=True)
    by = me.StringField(required=True)
    ts = me.DateTimeField(default=now)

    meta = {
        "collection": "post_like",
        # Also serves "which of this page's posts did the viewer like":
        # `{post: {$in: page}, by: viewer}`, one query per page.
        "indexes": [
            {"fields": ["post", "by"], "unique": True, "name": "post_by"},
            # A person's likes, newest first: their export and erasure.
            {"fields": ["by", "-ts"], "name": "by_ts"},
        ],
        # The whole unique key, as poll_vote: "one like each" holds across
        # shards, and a popular post's likes split by liker.
        "shard_key": ("post", "by"),
        "auto_create_index": False,
    }


class PostRepost(me.Document):
    """One repost per (post, person): the system of record of reposts.

    Delivered like a post (`delivery`, timelines/delivery/fanout.py `deliver_repost`): its
    timeline entry has the repost's own `_id` and time, `by` the reposter and
    `of` the original, which pages always read from `post` (never a copy), so
    a deleted, removed or edited original is seen as it is now."""

    post = me.ObjectIdField(required=True)
    by = me.StringField(required=True)
    author = me.StringField(required=True)  # the original's author
    ts = me.DateTimeField(default=now)
    delivery = me.EmbeddedDocumentField(Delivery, default=Delivery)

    meta = {
        "collection": "post_repost",
        "indexes": [
            # Also serves a post's reposts (`{post}`: cascades on delete and
            # removal) and "which of these posts did X repost".
            {"fields": ["post", "by"], "unique": True, "name": "post_by"},
            # A reposter's reposts, newest first: the `read` model's walls and
            # news, backfill after a follow.
            {"fields": ["by", "-ts", "-_id"], "name": "by_ts"},
            # The sweeper, as for posts.
            {"fields": ["delivery.state", "delivery.queued"], "name": "delivery_state"},
            {"fields": ["delivery.state", "delivery.started"], "name": "delivery_started"},
        ],
        # The whole unique key, as poll_vote: "one repost each" holds across
        # shards, and a popular post's reposts split by reposter.
        "shard_key": ("post", "by"),
        "auto_create_index": False,
    }


class Bookmark(me.Document):
    """A post someone kept for later: private to them, one per (owner, post).
    Whether they may still see the post is decided when the list is read."""

    owner = me.StringField(required=True)
    post = me.ObjectIdField(required=True)
    ts = me.DateTimeField(default=now)

    meta = {
        "collection": "bookmark",
        "indexes": [
            # One each, and "did I keep this post" by point read.
            {"fields": ["owner", "post"], "unique": True, "name": "owner_post"},
            # The list, newest first, keyset on (ts, _id).
            {"fields": ["owner", "-ts", "-_id"], "name": "owner_ts"},
            # A deleted post's bookmarks go with it.
            {"fields": ["post"], "name": "post"},
        ],
        # The whole unique key: one per (owner, post) across shards, and one
        # person's list in their range of chunks.
        "shard_key": ("owner", "post"),
        "auto_create_index": False,
    }
