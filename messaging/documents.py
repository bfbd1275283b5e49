"""The collections of direct messages (docs/messages.md), *Storing Comments*'s
"Hybrid Schema Design" applied to a conversation:

- `conversation`: who is in it, each member's read marker, who has unread
  messages, the last message's preview, and the number of the bucket being
  filled (`num_buckets`). Sharded on a hashed `_id`: every read and write of
  one conversation names it.
- `conversation_key`: one small document per "exactly these people", whose
  `_id` is their sorted handles, pointing at their conversation. It is how a
  message to the same people continues the same conversation, race-safe: of
  two racing starts one key insert lands (E11000 for the other). A unique
  index on the conversation itself could not hold on a cluster sharded by
  its hashed `_id`; this one is unique by its own `_id`.
- `message_buckets`: the messages, oldest first, about MESSAGES_BUCKET_SIZE
  (and at most about MESSAGES_BUCKET_MAX_BYTES) a bucket, appended with the
  race-safe rollover the comment buckets use (socialsite/buckets.py).

`auto_create_index` is off as everywhere in the project: `manage.py
ensure_indexes` (and the test session) create the indexes.
"""

import mongoengine as me


class Member(me.EmbeddedDocument):
    h = me.StringField(required=True)  # the handle ("" once erased)
    name = me.StringField(default="")  # as it was when they joined
    joined = me.DateTimeField()
    left = me.DateTimeField()  # set when they left: the conversation is closed to them
    read = me.DateTimeField()  # their read marker: the newest message they have seen


class LastMessage(me.EmbeddedDocument):
    id = me.ObjectIdField()
    by = me.StringField()
    name = me.StringField()
    text = me.StringField()  # a preview, at most 140 characters
    ts = me.DateTimeField()
    kind = me.StringField()  # "left" for a member leaving, else a message


class Conversation(me.Document):
    members = me.EmbeddedDocumentListField(Member, default=list)  # everyone who was in it
    # Their handles, flat: what indexes and `$lookup`s read of `members`.
    everyone = me.ListField(me.StringField(), default=list)
    active = me.ListField(me.StringField(), default=list)  # who is in it now
    # Members with messages past their read marker.
    unread = me.ListField(me.StringField(), default=list)
    started_by = me.StringField()
    started = me.DateTimeField()
    ts = me.DateTimeField()  # the last message's time: the inbox's order
    count = me.IntField(default=0)  # messages (and "left" lines) in its buckets
    num_buckets = me.IntField(default=0)  # the bucket being filled
    last = me.EmbeddedDocumentField(LastMessage)

    meta = {
        "collection": "conversation",
        "indexes": [
            # The inbox: a member's conversations, the most recent first, keyset.
            {"fields": ["active", "-ts", "-_id"], "name": "active_ts"},
            # Erasure and export: every conversation a person was ever in, in
            # `_id` order (the export's).
            {"fields": ["everyone", "_id"], "name": "everyone"},
            # A recount of a person's unread conversations.
            {"fields": ["unread"], "name": "unread", "sparse": True},
        ],
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class ConversationKey(me.Document):
    id = me.StringField(primary_key=True)  # the sorted handles, comma-separated
    conversation = me.ObjectIdField(required=True)

    meta = {
        "collection": "conversation_key",
        "indexes": [
            # Erasure: the keys of a person's conversations go with their leaving.
            {"fields": ["conversation"], "name": "conversation"},
        ],
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class MessageBucket(me.Document):
    conversation = me.ObjectIdField(required=True)
    bucket = me.IntField(required=True)
    count = me.IntField(default=0)
    bytes = me.IntField(default=0)  # the messages' BSON size: a bucket is bounded in bytes too
    messages = me.ListField(me.DictField(), default=list)

    meta = {
        "collection": "message_buckets",
        "indexes": [
            # *Storing Comments*: the append's upsert and the pages. Unique, so
            # two racers upserting the same bucket cannot make two.
            {"fields": ["conversation", "bucket"], "unique": True, "name": "conversation_bucket"},
            # Erasure and export: the messages a person wrote.
            {"fields": ["messages.by"], "name": "messages_by"},
            # Erasure: the others' messages that mention a person, whose
            # handle becomes "[deleted account]" (docs/accounts.md#erasure).
            # Sparse: most buckets hold no mention at all.
            {"fields": ["messages.mentions"], "name": "messages_mentions", "sparse": True},
        ],
        "shard_key": ("conversation", "bucket"),
        "auto_create_index": False,
    }
