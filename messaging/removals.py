"""Writes that take words out of conversations on someone else's behalf
(docs/messages.md#moderation-export-and-erasure): a moderator's removal of a
message and its restore, and the erasure of an account. The conversations'
own writes (start, send, read, leave) are in messaging/services.py.
"""

from bson import ObjectId

from messaging.services import _buckets, _conversations, _keys, _preview

# --- moderation -------------------------------------------------------------------


def message_remove(*, conversation_id: ObjectId, message_id: ObjectId, bucket: int) -> bool:
    """A moderator's removal: "[removed by a moderator]" in its place (the
    audit log keeps the words for a restore). False when removed already."""
    # `by` not blank: an erasure landing since the moderator's read leaves
    # nothing to remove (its words are gone already).
    done = _buckets().update_one(
        {
            "conversation": conversation_id,
            "bucket": bucket,
            "messages": {"$elemMatch": {"_id": message_id, "removed_by": None, "by": {"$ne": ""}}},
        },
        {"$set": {"messages.$.removed_by": "moderator", "messages.$.text": ""}},
    )
    if done.modified_count != 1:
        return False
    # The inbox's preview of it goes too.
    _conversations().update_one(
        {"_id": conversation_id, "last.id": message_id}, {"$set": {"last.text": ""}}
    )
    return True


def message_restore(
    *, conversation_id: ObjectId, message_id: ObjectId, bucket: int, text: str
) -> bool:
    done = _buckets().update_one(
        {
            "conversation": conversation_id,
            "bucket": bucket,
            "messages": {
                "$elemMatch": {"_id": message_id, "removed_by": "moderator", "by": {"$ne": ""}}
            },
        },
        {"$set": {"messages.$.text": text}, "$unset": {"messages.$.removed_by": ""}},
    )
    if done.modified_count != 1:
        return False
    _conversations().update_one(
        {"_id": conversation_id, "last.id": message_id}, {"$set": {"last.text": _preview(text)}}
    )
    return True


# --- erasure ------------------------------------------------------------------------


def messages_erase(handle: str, limit: int) -> int:
    """Erasure (docs/accounts.md#erasure), up to `limit` of the person's
    conversations at a time: their messages become "[deleted account]"
    placeholders in the others' conversations, they leave each one (its key
    goes: it names them), and a conversation nobody is left in goes whole.
    Returns how many conversations were done."""
    rows = list(
        _conversations()
        .find({"everyone": handle}, {"active": 1, "unread": 1, "members": 1})
        .limit(limit)
    )
    for row in rows:
        conversation_id = row["_id"]
        _keys().delete_many({"conversation": conversation_id})
        remaining = [h for h in row.get("active") or () if h != handle]
        if not remaining:
            _buckets().delete_many({"conversation": conversation_id})
            _conversations().delete_one({"_id": conversation_id})
            continue
        for bucket in _buckets().find(
            {"conversation": conversation_id, "messages.by": handle}, {"bucket": 1, "messages": 1}
        ):
            for message in bucket.get("messages") or ():
                if message.get("by") != handle:
                    continue
                _buckets().update_one(
                    {
                        "conversation": conversation_id,
                        "bucket": bucket["bucket"],
                        "messages._id": message["_id"],
                    },
                    {"$set": {"messages.$.by": "", "messages.$.name": "", "messages.$.text": ""}},
                )
        seats = [i for i, m in enumerate(row.get("members") or ()) if m.get("h") == handle]
        _conversations().update_one(
            {"_id": conversation_id},
            {
                "$pull": {"active": handle, "unread": handle, "everyone": handle},
                "$set": {
                    **{f"members.{i}.h": "" for i in seats},
                    **{f"members.{i}.name": "" for i in seats},
                },
            },
        )
        _conversations().update_one(
            {"_id": conversation_id, "last.by": handle},
            {"$set": {"last.by": "", "last.name": "", "last.text": ""}},
        )
        _conversations().update_one(
            {"_id": conversation_id, "started_by": handle}, {"$set": {"started_by": ""}}
        )
    return len(rows)
