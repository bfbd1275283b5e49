"""The timeline documents of each stored model, and the authors pulled
instead of pushed (docs/performance.md#celebrities-are-pulled)."""

import mongoengine as me

from socialsite.clock import now


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
