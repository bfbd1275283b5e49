"""Reports, the moderation queue and the audit log.

None of them declares a shard key: they stay small next to posts and
timelines, and the queue and audit log are read in one global order, which a
sharded collection could only answer by asking every shard.
"""

import mongoengine as me

from socialsite.clock import now

TARGET_TYPES = ("post", "comment", "user", "message")
# What the audit log can name besides: a tag hidden from the trends, and a
# whole server given a rule (federation/moderation.py).
AUDIT_TARGET_TYPES = (*TARGET_TYPES, "tag", "domain")
REASONS = ("spam", "harassment", "illegal", "other")
STATUSES = ("open", "resolved", "dismissed")


class Report(me.Document):
    """One person's report of one item; reporting again updates it."""

    target_type = me.StringField(choices=TARGET_TYPES, required=True)
    # post id, "<post id>/<slug>", handle, or "<conversation id>/<message id>"
    target_id = me.StringField(required=True)
    reporter = me.StringField(required=True)
    reason = me.StringField(choices=REASONS, required=True)
    note = me.StringField(max_length=500, default="")
    status = me.StringField(choices=STATUSES, default="open")
    created = me.DateTimeField(default=now)
    updated = me.DateTimeField(default=now)

    meta = {
        "collection": "report",
        "indexes": [
            {
                "fields": ["target_type", "target_id", "reporter"],
                "unique": True,
                "name": "target_reporter",
            },
            {"fields": ["target_type", "target_id", "status"], "name": "target_status"},
            {"fields": ["reporter", "-created"], "name": "reporter_created"},
        ],
        "auto_create_index": False,
    }


class ReportedItem(me.Document):
    """The queue: one document per reported item, with its reporter count.

    Kept beside the reports so that "most reporters first" with filters is one
    indexed query, not an aggregation over every report.
    """

    key = me.StringField(primary_key=True)  # "<type>:<target id>"
    target_type = me.StringField(choices=TARGET_TYPES, required=True)
    target_id = me.StringField(required=True)
    status = me.StringField(choices=STATUSES, default="open")
    reporters = me.IntField(default=0)
    reasons = me.ListField(me.StringField(choices=REASONS), default=list)
    # What the item looked like when first reported: author, excerpt, link.
    author = me.StringField(default="")
    excerpt = me.StringField(default="")
    # The handles the excerpt mentions: erasure finds them on an index.
    mentions = me.ListField(me.StringField(), default=None)
    link = me.StringField(default="")
    first_reported = me.DateTimeField(default=now)
    last_reported = me.DateTimeField(default=now)
    resolved_by = me.StringField()
    resolved_at = me.DateTimeField()

    meta = {
        "collection": "report_item",
        "indexes": [
            # The queue's order, `_id` last as the keyset's tie-break, after each
            # filter's equality (renamed from queue*: the keys changed).
            {"fields": ["status", "-reporters", "-last_reported", "-_id"], "name": "queue_page"},
            {
                "fields": ["status", "target_type", "-reporters", "-last_reported", "-_id"],
                "name": "queue_type_page",
            },
            {
                "fields": ["status", "reasons", "-reporters", "-last_reported", "-_id"],
                "name": "queue_reason_page",
            },
            {"fields": ["author", "-last_reported"], "name": "author"},
            # Erasure: the items a moderator settled (few, and only theirs).
            {"fields": ["resolved_by"], "name": "resolved_by", "sparse": True},
            {"fields": ["mentions"], "name": "mentions", "sparse": True},
        ],
        "auto_create_index": False,
    }


class AuditEntry(me.Document):
    """An append-only record of a moderator action. Nothing updates or deletes
    these: the services only insert, and no page or command edits them."""

    ts = me.DateTimeField(default=now, required=True)
    moderator = me.StringField(required=True)
    action = me.StringField(required=True)
    target_type = me.StringField(choices=AUDIT_TARGET_TYPES, required=True)
    target_id = me.StringField(required=True)
    reason = me.StringField(default="")
    details = me.DictField()

    meta = {
        "collection": "audit_log",
        "indexes": [
            {"fields": ["-ts", "-_id"], "name": "ts"},
            # Each filter of the log, then its (ts, _id) keyset order (renamed
            # from *_ts: the keys changed).
            {"fields": ["moderator", "-ts", "-_id"], "name": "moderator_ts_id"},
            {"fields": ["action", "-ts", "-_id"], "name": "action_ts_id"},
            {"fields": ["target_type", "target_id", "-ts", "-_id"], "name": "target_ts_id"},
            {"fields": ["target_type", "-ts", "-_id"], "name": "target_type_ts_id"},
        ],
        "auto_create_index": False,
    }
