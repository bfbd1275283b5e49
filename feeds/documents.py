"""Posts (the system of record) and the timeline documents of each storage model.

`post` is *Storing Updates and Profiles*'s `social.post`: minimal author info in `by`, audience in
`circles`, type-specific data isolated in `detail`. Timelines (`wall`,
`news`) are dependent collections: they can always be rebuilt from `post`
and the graph (`manage.py rebuild_feeds`).
"""

import mongoengine as me

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
    # last edited): pages link them with no lookup (feeds/services/mentions.py).
    mentions = me.ListField(me.StringField(), default=None)
    # Its hashtags and searchable words, folded, written with its text
    # (feeds/services/words.py): a tag page and a search are one indexed
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
        ],
        # Seed 000: queries and updates use _id, so post is sharded on _id,
        # hashed: ObjectIds grow, and a ranged key would send every insert to
        # the last chunk. Walls and incoming pages (`by.id`, `to`) scatter.
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


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

    Delivered like a post (`delivery`, feeds/delivery/fanout.py `deliver_repost`): its
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


class PulledAuthor(me.Document):
    """An author whose public posts are pulled into their followers' news
    pages when read instead of pushed into every follower's timeline: the
    fan-out article's celebrity problem (docs/performance.md#celebrities-are-pulled).

    One small document per author past FEED_PULL_THRESHOLD followers, written
    by the delivery that first sees the count past it, and never taken back:
    an author who drops below the threshold again stays pulled, so that no
    post falls between the two ways. `since`: pushing stops FEED_PULL_GRACE_SECONDS
    after it, once every process's list of pulled authors holds the author."""

    handle = me.StringField(primary_key=True)
    since = me.DateTimeField(default=now)

    meta = {
        "collection": "pulled_author",
        # Read whole by each process every FEED_PULL_GRACE_SECONDS: a few
        # documents, unsharded on the primary shard (no shard key).
        "indexes": [],
        "auto_create_index": False,
    }


class PhotoFile(GridFile):
    """The `photos` GridFS bucket (feeds/services/photos.py)."""

    meta = grid_file_meta("photos.files")


class PhotoChunk(GridChunk):
    meta = grid_chunk_meta("photos.chunks")


# --- timeline storage, one collection per model --------------------------------
# Every model stores entries {id, ts, by, circles[, post]} where `post` is the
# embedded copy when FEED_EMBED is on. Seed 000 names the collections `wall`
# and `news`; here `kind` is a field, so each model keeps one collection and
# one shard key (the owner, as *Storing Updates and Profiles*'s Sharding section gives it).


class CacheTimeline(me.Document):
    """`cache`: one document per user and kind, a capped array (newest first)."""

    owner = me.StringField(required=True)
    kind = me.StringField(choices=("wall", "news"), required=True)
    entries = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "timeline_cache",
        "indexes": [
            {"fields": ["owner", "kind"], "unique": True, "name": "owner_kind"},
            {"fields": ["entries.id"], "name": "entries_id"},
        ],
        "shard_key": ("owner",),
        "auto_create_index": False,
    }


class MonthTimeline(me.Document):
    """`month`: one document per user, kind and month, as *Storing Updates and Profiles* has it, in
    parts of at most FEED_MONTH_CAP entries (`part` 0, 1, ...; the 16 MB limit)."""

    owner = me.StringField(required=True)
    kind = me.StringField(choices=("wall", "news"), required=True)
    month = me.StringField(required=True)  # "YYYYMM"
    part = me.IntField(default=0)
    entries = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "timeline_month",
        "indexes": [
            {
                "fields": ["owner", "kind", "-month", "-part"],
                "unique": True,
                "name": "owner_kind_month_part",
            },
            {"fields": ["entries.id"], "name": "entries_id"},
        ],
        "shard_key": ("owner",),
        "auto_create_index": False,
    }


class SizeTimeline(me.Document):
    """`size`: buckets of FEED_BUCKET_SIZE entries.

    The bucket being filled has `slot` "open"; a full bucket is closed by
    setting `slot` to the id of the post whose delivery found it full (unique
    per owner and kind). `min_ts`/`max_ts` let a page read only the buckets
    that can hold its entries.
    """

    owner = me.StringField(required=True)
    kind = me.StringField(choices=("wall", "news"), required=True)
    slot = me.DynamicField(required=True)
    size = me.IntField(default=0)
    min_ts = me.DateTimeField()
    max_ts = me.DateTimeField()
    entries = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "timeline_size",
        "indexes": [
            {"fields": ["owner", "kind", "slot"], "unique": True, "name": "owner_kind_slot"},
            {"fields": ["owner", "kind", "-max_ts"], "name": "owner_kind_max_ts"},
            {"fields": ["entries.id"], "name": "entries_id"},
        ],
        "shard_key": ("owner",),
        "auto_create_index": False,
    }


def discussion_host():
    """The `post` collection, for the comment stores that keep a discussion
    in its post document (the `embedded` store's `comments` and
    `comment_tree`, the `buckets` store's `num_buckets`: *Storing Updates and Profiles*'s layouts).
    Those fields are the comments app's, written only by its stores; the
    feeds never read them (`CARD_FIELDS` leaves them out). Every other field
    of a post is the feeds' to write (feeds/services/)."""
    return Post._get_collection()


class TagUse(me.Document):
    """One author's use of one tag in one hour, in a public post: the trends'
    counting (feeds/services/trends.py). One document per (tag, hour,
    author), so counting distinct authors is counting documents, and one
    person posting a tag a hundred times is one use an hour. Expired
    TREND_DAYS after its hour."""

    id = me.StringField(primary_key=True)  # "<tag>|<YYYYmmddHH>|<author>"
    tag = me.StringField(required=True)
    hour = me.DateTimeField(required=True)
    author = me.StringField(required=True)
    expires = me.DateTimeField(required=True)

    meta = {
        "collection": "tag_use",
        "indexes": [
            # The trends page: the uses of the last days.
            {"fields": ["hour", "tag"], "name": "hour_tag"},
            {"fields": ["expires"], "expireAfterSeconds": 0, "name": "expires_ttl"},
            # Erasure: a person's uses.
            {"fields": ["author"], "name": "author"},
        ],
        # Written by `_id` alone (an upsert that may race: E11000 is the
        # same use); hashed, as one busy tag would fill one ranged chunk.
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class HiddenTag(me.Document):
    """A tag a moderator took out of the trends (its page and posts stay).
    Few: read whole by the trends page."""

    tag = me.StringField(primary_key=True)
    since = me.DateTimeField(default=now)

    meta = {"collection": "hidden_tag", "indexes": [], "auto_create_index": False}


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


class PostRevision(me.Document):
    """An edited post's earlier version: what its text fields held until
    `until` (docs/discovery.md#edit-history). Written by the edit, before
    the post changes; read by whoever may see the post."""

    post = me.ObjectIdField(required=True)
    by = me.StringField(required=True)  # the post's author
    detail = me.DictField()  # the editable fields as they were
    since = me.DateTimeField()  # when that version was written (or last edited)
    until = me.DateTimeField(default=now)

    meta = {
        "collection": "post_revision",
        "indexes": [
            # The history page, newest first; a deleted post's go with it.
            {"fields": ["post", "-until", "-_id"], "name": "post_until"},
            # Erasure: an author's (their posts' go with the posts too).
            {"fields": ["by"], "name": "by"},
        ],
        "shard_key": ("post",),
        "auto_create_index": False,
    }
