"""Posts: the system of record (*Storing Updates and Profiles*'s `social.post`),
their earlier versions, and their photos' files."""

import mongoengine as me
from pymongo.collection import Collection

from socialsite.clock import now
from socialsite.documents import GridChunk, GridFile, grid_chunk_meta, grid_file_meta

PUBLIC = "*public*"
ALL_CIRCLES = "*circles*"
POST_TYPES = ("status", "link", "photo", "checkin", "poll")
# "failed": given up after FEED_DELIVERY_MAX_ATTEMPTS (the moderation dashboard lists them).
DELIVERY_STATES = ("pending", "delivering", "done", "failed")
# The posts that readers can get at all: not removed by a moderator, and not
# by a suspended author. Every read of `post` for a page includes it.
LIVE = {"removed": None, "author_suspended": {"$ne": True}}
# What a page reads of a post: everything but the delivery bookkeeping and a
# discussion stored inside the post (the `embedded` comment store).
CARD_FIELDS = {
    "delivery": 0,
    "comments": 0,
    "comment_tree": 0,
    "counting": 0,
    "counts_copied": 0,
    "terms": 0,
}


def card_exclusion() -> dict:
    """CARD_FIELDS for an aggregate's `$project`: a fresh exclusion every call,
    since some drivers' `find` adds `_id: 1` to the projection it is given
    (mongomock does), and an exclusion `$project` must not include a field."""
    return {name: 0 for name, shown in CARD_FIELDS.items() if name != "_id" and not shown}


# The tokens of the requests changing a post's likes or reposts count
# (feeds/services/interactions.py); one left behind is the sweeper's to settle.
COUNTING = "counting"


class Author(me.EmbeddedDocument):
    id = me.StringField(required=True)
    name = me.StringField(required=True)


class Removal(me.EmbeddedDocument):
    """A moderator's soft removal: the post shows a placeholder and leaves
    every timeline; `restore` undoes it."""

    by = me.StringField(required=True)
    ts = me.DateTimeField(default=now)
    reason = me.StringField(default="")


class Delivery(me.EmbeddedDocument):
    """Fan-out bookkeeping: `redeliver_pending` re-enqueues stuck posts, until
    `attempts` reaches FEED_DELIVERY_MAX_ATTEMPTS; then `failed` and `error`."""

    state = me.StringField(choices=DELIVERY_STATES, default="pending")
    queued = me.DateTimeField(default=now)
    started = me.DateTimeField()
    finished = me.DateTimeField()
    attempts = me.IntField(default=0)
    readers = me.IntField(default=0)
    failed = me.DateTimeField()
    error = me.StringField()


class Post(me.Document):
    by = me.EmbeddedDocumentField(Author, required=True)
    to = me.StringField()  # the wall owner, when posting on someone else's wall
    circles = me.ListField(me.StringField(), required=True)
    type = me.StringField(choices=POST_TYPES, required=True)
    ts = me.DateTimeField(required=True, default=now)
    detail = me.DictField()
    # The handles its text mentions that were people when it was written (or
    # last edited): pages link them with no lookup (feeds/mentions.py).
    mentions = me.ListField(me.StringField(), default=None)
    # Its hashtags and searchable words, folded, written with its text
    # (feeds/words.py): a tag page and a search are one indexed
    # query each. Absent when empty, so the sparse indexes skip the post.
    tags = me.ListField(me.StringField(), default=None)
    terms = me.ListField(me.StringField(), default=None)
    edited = me.DateTimeField()
    comments_count = me.IntField(default=0)
    comments_shown = me.ListField(me.DictField(), default=list)
    # One per `post_like` document, kept with $inc by feeds/services/likes.py.
    likes_count = me.IntField(default=0)
    # One per `post_repost` document, kept with $inc by feeds/services/reposts.py.
    reposts_count = me.IntField(default=0)
    # Bookkeeping of the two counts (feeds/services/interactions.py): the
    # tokens of requests changing them, their version (one step per change),
    # and the version the embedded copies were last refreshed to.
    counting = me.ListField(me.ObjectIdField(), default=None)
    counts_v = me.IntField()
    counts_copied = me.IntField()
    delivery = me.EmbeddedDocumentField(Delivery, default=Delivery)
    removed = me.EmbeddedDocumentField(Removal)
    author_suspended = me.BooleanField()
    # Written by the comment stores that keep the discussion in the post
    # (comments/stores/embedded.py, buckets.py); pages never read them here.
    comments = me.ListField(me.DictField())
    comment_tree = me.ListField(me.DictField())
    num_buckets = me.IntField()
    # A post of another server's (docs/federation.md): its page there. Its
    # ActivityPub id maps to this post in the federation app's `ap_object`.
    url = me.StringField()

    meta = {
        "collection": "post",
        "indexes": [
            # Walls and the read model: an author's posts, newest first.
            {"fields": ["by.id", "-ts", "-_id"], "name": "by_ts"},
            # The incoming page: posts directed to a user.
            {"fields": ["to", "-ts", "-_id"], "name": "to_ts", "sparse": True},
            # The sweeper: posts stuck in a delivery state.
            {"fields": ["delivery.state", "delivery.queued"], "name": "delivery_state"},
            {"fields": ["delivery.state", "delivery.started"], "name": "delivery_started"},
            # The counts' sweeper: posts with a count token left behind.
            {"fields": ["counting"], "name": "counting", "sparse": True},
            # The moderation dashboard's "posts today / this week" counts.
            {"fields": ["-ts"], "name": "ts"},
            # Erasure (docs/accounts.md#erasure): the posts naming a person,
            # in their mentions or as the moderator of their removal.
            {"fields": ["mentions"], "name": "mentions", "sparse": True},
            {"fields": ["removed.by"], "name": "removed_by", "sparse": True},
            # A tag's page and a search, newest first, keyset on (ts, _id):
            # docs/discovery.md.
            {"fields": ["tags", "-ts", "-_id"], "name": "tags_ts", "sparse": True},
            {"fields": ["terms", "-ts", "-_id"], "name": "terms_ts", "sparse": True},
            # The client API's public timeline: public posts, newest first,
            # keyset on (ts, _id) (docs/api.md#timelines).
            {"fields": ["circles", "-ts", "-_id"], "name": "circles_ts"},
        ],
        # Seed 000: queries and updates use _id, so post is sharded on _id,
        # hashed: ObjectIds grow, and a ranged key would send every insert to
        # the last chunk. Walls and incoming pages (`by.id`, `to`) scatter.
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


def discussion_host() -> Collection:
    """The `post` collection, for the comment stores that keep a discussion
    in its post document (the `embedded` store's `comments` and
    `comment_tree`, the `buckets` store's `num_buckets`: *Storing Updates and Profiles*'s layouts).
    Those fields are the comments app's, written only by its stores; the
    feeds never read them (`CARD_FIELDS` leaves them out). Every other field
    of a post is the feeds' to write (feeds/services/)."""
    return Post._get_collection()


class PostRevision(me.Document):
    """An edited post's earlier version: what its text fields held until
    `until` (docs/discovery.md#edit-history). Written by the edit, before
    the post changes; read by whoever may see the post."""

    post = me.ObjectIdField(required=True)
    by = me.StringField(required=True)  # the post's author
    detail = me.DictField()  # the editable fields as they were
    # The people that version named: an erasure finds them here, whether or
    # not the post still names them (docs/accounts.md#erasure).
    mentions = me.ListField(me.StringField())
    since = me.DateTimeField()  # when that version was written (or last edited)
    until = me.DateTimeField(default=now)

    meta = {
        "collection": "post_revision",
        "indexes": [
            # The history page, newest first; a deleted post's go with it.
            {"fields": ["post", "-until", "-_id"], "name": "post_until"},
            # Erasure: an author's (their posts' go with the posts too).
            {"fields": ["by"], "name": "by"},
            # Erasure: the versions that named a person.
            {"fields": ["mentions"], "name": "mentions", "sparse": True},
        ],
        # A post's versions stay together, and hashed, as `post`'s `_id` is:
        # ObjectIds grow, and a ranged key would send every edit's version
        # to the last chunk.
        "shard_key": ("post",),
        "shard_hashed": "post",
        "auto_create_index": False,
    }


class PhotoFile(GridFile):
    """The `photos` GridFS bucket (feeds/services/photos.py)."""

    meta = grid_file_meta("photos.files")


class PhotoChunk(GridChunk):
    meta = grid_chunk_meta("photos.chunks")
