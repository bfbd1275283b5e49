"""`notification_buckets`: each person's notifications, in bounded buckets.

Seed 002's "bucket" timelines applied to notifications: one document per
recipient per bucket of about NOTIFICATIONS_BUCKET_SIZE items, so a page is
one indexed read of the newest bucket or two, and no document grows past the
16 MB limit. The bucket being filled has `slot` "open" (unique with the
owner); a full one is closed by setting `slot` to a fresh ObjectId, exactly as
the `size` timeline model does it (timelines/stores/size.py).

An item is a dict:
`{id, kind, actor, actors, actor_count, post, comment, ts}` where `actors`
(likes only: the newest NOTIFICATIONS_GROUP_ACTORS likers, newest last) and
`actor_count` (every liker the group has counted) make "Ann and 3 others
liked your post" one item; `post` is the post's ObjectId when the item is
about a post and `comment` the comment's slug path when it is about one.

Old buckets expire: a TTL index on `max_ts` deletes a bucket
BUCKET_TTL_SECONDS after its newest item (the open one too, if nothing new
came; the next item opens a fresh one), so a person's notifications do not
pile up for ever.
"""

import mongoengine as me

#: How long a bucket outlives its newest item (docs/storage-models.md, Notifications).
BUCKET_TTL_SECONDS = 180 * 24 * 60 * 60


class NotificationBucket(me.Document):
    owner = me.StringField(required=True)  # the recipient's handle
    slot = me.DynamicField(required=True)  # "open", or an ObjectId once closed
    size = me.IntField(default=0)
    min_ts = me.DateTimeField()
    max_ts = me.DateTimeField()
    items = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "notification_buckets",
        "indexes": [
            {"fields": ["owner", "slot"], "unique": True, "name": "owner_slot"},
            # The page: a person's buckets newest first, from a cursor on.
            {"fields": ["owner", "-min_ts"], "name": "owner_min_ts"},
            # The unread recount: the buckets holding anything newer than a time.
            {"fields": ["owner", "-max_ts"], "name": "owner_max_ts"},
            # Forgetting a deleted post's items (`notifications_forget_post`).
            {"fields": ["items.post"], "name": "items_post"},
            # Erasure: the buckets naming a person as the one who acted.
            {"fields": ["items.actor"], "name": "items_actor"},
            {"fields": ["items.actors"], "name": "items_actors", "sparse": True},
            {"fields": ["max_ts"], "expireAfterSeconds": BUCKET_TTL_SECONDS, "name": "max_ts_ttl"},
        ],
        # The owner, then the bucket: a page reads one owner's range, and a
        # celebrity's buckets split into many chunks (`{owner}` alone would be
        # one jumbo chunk). Every single-document write names both (the open
        # bucket is `slot: "open"`); closing one changes its `slot`, a
        # shard-key update that a retryable write naming the full key may make
        # (docs/performance.md, Real MongoDB semantics).
        "shard_key": ("owner", "slot"),
        "auto_create_index": False,
    }
