"""`notification_buckets`: each person's notifications, in bounded buckets.

Seed 002's "bucket" timelines applied to notifications: one document per
recipient per bucket of about NOTIFICATIONS_BUCKET_SIZE items, so a page is
one indexed read of the newest bucket or two, and no document grows past the
16 MB limit. The bucket being filled has `slot` "open" (unique with the
owner); a full one is closed by setting `slot` to a fresh ObjectId, exactly as
the `size` timeline model does it (feeds/timelines/size.py).

An item is a dict:
`{id, kind, actor, actors, actor_count, post, comment, ts}` where `actors`
(likes only: the newest NOTIFICATIONS_GROUP_ACTORS likers, newest last) and
`actor_count` (every liker the group has counted) make "Ann and 3 others
liked your post" one item; `post` is the post's ObjectId when the item is
about a post and `comment` the comment's slug path when it is about one.
"""

import mongoengine as me


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
        ],
        # Every read and write names one owner: their buckets live together.
        "shard_key": ("owner",),
        "auto_create_index": False,
    }
