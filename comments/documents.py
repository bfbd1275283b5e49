"""The collections of the comment stores (*Storing Comments*).

- `comments` (`documents` store): one document per comment, *Storing Comments*'s
  "One Document per Comment" in its threaded form: `slug` and `full_slug`
  materialized paths, `parent_id`, the author as `{id, name}`.
- `comment_buckets` (`buckets` store): *Storing Comments*'s "Hybrid Schema Design",
  about COMMENTS_BUCKET_SIZE comments per document.
- The `embedded` store keeps the discussion inside the `post` document
  (`feeds.documents.Post`), so it declares no collection of its own.
- `comment_log`: a line per comment of the two array stores, indexed by
  time and by author for the moderation pages (`CommentLogEntry`).
- `comment_budget`: the `embedded` store's running byte count per post.
- `comment_vote`: one person's up or down vote on one comment; the counts
  live on the comment in every store (comments/votes.py).

`auto_create_index` is off as everywhere in the project: `manage.py
ensure_indexes` (and the test session) create the indexes.
"""

import mongoengine as me

from comments.stores.base import DELETED_BY


class CommentAuthor(me.EmbeddedDocument):
    id = me.StringField(required=True)
    name = me.StringField(required=True)


class CommentDocument(me.Document):
    discussion_id = me.ObjectIdField(required=True)  # the post's _id
    parent_id = me.ObjectIdField()  # *Storing Comments*: the parent comment's _id
    slug = me.StringField(required=True)  # "34db/8bda"
    full_slug = me.StringField(required=True)  # "<posted>:34db/<posted>:8bda"
    depth = me.IntField(default=0)
    posted = me.DateTimeField(required=True)
    author = me.EmbeddedDocumentField(CommentAuthor, required=True)
    text = me.StringField(default="")
    # The handles the text mentions (erasure finds them on an index).
    mentions = me.ListField(me.StringField(), default=None)
    edited = me.DateTimeField()
    deleted_by = me.StringField(choices=DELETED_BY)
    # Votes (comments/votes.py): the counts, and the two ranks the `best`
    # and `top` orders sort on (comments/ranking.py).
    ups = me.IntField(default=0)
    downs = me.IntField(default=0)
    score = me.IntField(default=0)
    best = me.FloatField(default=0.0)
    replies = me.IntField(default=0)  # direct replies: what a ranked page says waits

    meta = {
        "collection": "comments",
        "indexes": [
            # Seed 004's (discussion_id, posted) for chronological pages, with
            # `_id` appended as the tie-breaker (same millisecond: the order of
            # arrival, as the embedded and bucket arrays have it). The keyset
            # (posted, _id) is then read in index order, and every query of
            # the seed's index is still served by its prefix.
            {"fields": ["discussion_id", "posted", "_id"], "name": "discussion_posted"},
            # Seed 004: threaded pages and sub-discussions (a full_slug range,
            # see slugs.subtree_range). Seed 004 warns of the 1024-byte index
            # key limit; MongoDB 4.2 lifted it, and a full slug at the deepest
            # stored reply (COMMENTS_MAX_STORED_DEPTH 40) is about 1.3 kB.
            {"fields": ["discussion_id", "full_slug"], "name": "discussion_full_slug"},
            # Seed 004: direct links by slug. Unique, so two siblings never
            # share a slug (a collision retries with a new random part).
            {"fields": ["discussion_id", "slug"], "unique": True, "name": "discussion_slug"},
            # Moderation: a user's recent comments; the dashboard's counts.
            {"fields": ["author.id", "-posted"], "name": "author_posted"},
            {"fields": ["posted"], "name": "posted"},
            # Erasure: the comments mentioning a person.
            {"fields": ["mentions"], "name": "mentions", "sparse": True},
            # The ranked orders: a discussion's top-level comments by rank,
            # the newest first among equals, read in index order (keyset).
            {"fields": ["discussion_id", "depth", "-best", "-_id"], "name": "discussion_best"},
            {"fields": ["discussion_id", "depth", "-score", "-_id"], "name": "discussion_top"},
        ],
        # Seed 004 (Sharding): the discussion plus the slug. (discussion_id,
        # slug) rather than full_slug because a unique index must be prefixed
        # by the shard key, and slug is what must be unique.
        "shard_key": ("discussion_id", "slug"),
        "auto_create_index": False,
    }


class CommentVote(me.Document):
    """One person's vote on one comment (comments/votes.py): the record the
    comment's counts are kept in step with, unique per (comment, voter) so
    that racing votes by one person land once."""

    discussion_id = me.ObjectIdField(required=True)
    slug = me.StringField(required=True)
    voter = me.StringField(required=True)  # the handle
    dir = me.IntField(required=True, choices=(1, -1))  # up or down
    ts = me.DateTimeField(required=True)
    # Set by the write that changes the vote, taken off once the comment's
    # counts follow: one older than FEED_PENDING_SECONDS belongs to a process
    # that died in between, and `settle_comment_votes` recounts its comment.
    pending = me.ObjectIdField()

    meta = {
        "collection": "comment_vote",
        "indexes": [
            # One vote per person per comment; also a page's "my votes" read
            # ($in on the page's slugs) and a discussion's recount.
            {
                "fields": ["discussion_id", "slug", "voter"],
                "unique": True,
                "name": "comment_voter",
            },
            # Erasure and export: a person's votes, newest first.
            {"fields": ["voter", "-ts"], "name": "voter_ts"},
            # The sweeper: votes whose counts may not have followed.
            {"fields": ["pending"], "name": "pending", "sparse": True},
        ],
        # The whole unique key, as for likes: "one vote each" holds across
        # shards, and a popular comment's votes split by voter. A comment's
        # votes still live in one range (its discussion and slug first).
        "shard_key": ("discussion_id", "slug", "voter"),
        "auto_create_index": False,
    }


class CommentBucket(me.Document):
    """About COMMENTS_BUCKET_SIZE comments of one discussion, oldest first.

    `bucket` numbers start at 0; the post's `num_buckets` is the bucket being
    filled. A bucket only ever comes into being by the upsert that pushes a
    comment into it, so no bucket is empty.
    """

    discussion_id = me.ObjectIdField(required=True)
    bucket = me.IntField(required=True)
    count = me.IntField(default=0)
    bytes = me.IntField(default=0)  # the comments' BSON size, kept by the append
    comments = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "comment_buckets",
        "indexes": [
            # Seed 004: the find-and-modify upsert and the paging query.
            # Unique, so two racers upserting the same bucket cannot make two.
            {"fields": ["discussion_id", "bucket"], "unique": True, "name": "discussion_bucket"},
            # Seed 004: direct links by slug.
            {"fields": ["discussion_id", "comments.slug"], "name": "discussion_comments_slug"},
        ],
        # Seed 004: a popular discussion splits between buckets.
        "shard_key": ("discussion_id", "bucket"),
        "auto_create_index": False,
    }


class CommentLogEntry(me.Document):
    """One small line per comment stored by the `embedded` and `buckets`
    stores, so the moderation pages find comments by time and by author with
    an index, as `comments` does for the `documents` store.

    Those stores keep comments inside arrays (of `post`, of `comment_buckets`):
    "comments since" and "a user's latest comments" would unwind every array
    in the collection. The line points at the comment (discussion, slug); the
    comment itself, edits and deletions included, is read from its store. It
    is written right after the comment, so a crash in between leaves a
    comment uncounted, never a count without a comment.
    """

    id = me.ObjectIdField(primary_key=True)  # the comment's own `_id`
    discussion_id = me.ObjectIdField(required=True)
    slug = me.StringField(required=True)
    posted = me.DateTimeField(required=True)
    author = me.StringField(required=True)  # the handle
    mentions = me.ListField(me.StringField(), default=None)  # the comment's, kept in step

    meta = {
        "collection": "comment_log",
        "indexes": [
            # The shard key's index; also drops a deleted post's lines.
            {"fields": ["discussion_id", "slug"], "name": "discussion_slug"},
            # The dashboard's "comments since" (a count on the index alone).
            {"fields": ["posted"], "name": "posted"},
            # A user's latest comments (moderation), newest first.
            {"fields": ["author", "-posted"], "name": "author_posted"},
            # Erasure: the comments mentioning a person.
            {"fields": ["mentions"], "name": "mentions", "sparse": True},
        ],
        # As `comments`: the discussion plus the slug.
        "shard_key": ("discussion_id", "slug"),
        "auto_create_index": False,
    }


class CommentBudget(me.Document):
    """How many bytes of comments one post holds under the `embedded` store
    (an upper bound), so a comment that would take the post past
    COMMENTS_EMBEDDED_MAX_BYTES is refused before the 16 MB limit fails it.
    See `comments.stores.budget`."""

    id = me.ObjectIdField(primary_key=True)  # the post's `_id`
    bytes = me.IntField(default=0)

    meta = {
        "collection": "comment_budget",
        # Read and written by `_id` alone, like `post`; hashed, as ObjectIds grow.
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }
