"""What the trends count, and the tags moderators keep out of them
(docs/discovery.md#trends)."""

import mongoengine as me

from socialsite.clock import now


class TagUse(me.Document):
    """One author's use of one tag in one hour, in a public post: the trends'
    counting (explore/services.py). One document per (tag, hour,
    author), so counting distinct authors is counting documents, and one
    person posting a tag a hundred times is one use an hour. `posts` lists
    the posts making the use (at most POSTS_PER_USE): taking back the last
    one deletes it (docs/discovery.md#trends). Expired TREND_DAYS after its
    hour."""

    id = me.StringField(primary_key=True)  # "<tag>|<YYYYmmddHH>|<author>"
    tag = me.StringField(required=True)
    hour = me.DateTimeField(required=True)
    author = me.StringField(required=True)
    expires = me.DateTimeField(required=True)
    # The author's public posts of that hour carrying the tag; written by
    # `$addToSet` and `$pull` only (explore/services.py).
    posts = me.ListField(me.ObjectIdField())

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
        # same use; a take-back's pull and delete); hashed, as one busy tag
        # would fill one ranged chunk.
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


class TrendList(me.Document):
    """The trending tags for everyone, ranked by the periodic job
    (explore/sweeps.py) from `tag_use` and served whole by `/explore/`: one
    read a page, however many uses the week holds (docs/discovery.md#trends).
    Each trend keeps the authors of its last 24 hours (up to
    TREND_AUTHORS_KEPT), so a reader's blocks and mutes are taken out of the
    tags shown without counting again. One document."""

    id = me.StringField(primary_key=True)  # "everyone"
    computed = me.DateTimeField(required=True)
    # [{tag, authors, expected, score, today: [handles]}], best first.
    trends = me.ListField(me.DictField())

    # Unsharded: one document (docs/operations.md#sharding).
    meta = {
        "collection": "trend_list",
        "indexes": [
            # Erasure: a cached list naming the person goes (it is ranked again).
            {"fields": ["trends.today"], "name": "today"},
        ],
        "auto_create_index": False,
    }
