"""Writes that take words out of conversations on someone else's behalf
(docs/messages.md#moderation-export-and-erasure): a moderator's removal of a
message and its restore, and the erasure of an account. The conversations'
own writes (start, send, read, leave) are in messaging/services.py.
"""

from bson import ObjectId

from feeds.mentions import unmention
from messaging.services import _buckets, _conversations, _keys, _preview
from socialsite import owners

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
    """Erasure (docs/accounts.md#erasure), about `limit` writes at a time
    (one per bucket, so a long conversation takes several batches): their
    messages become "[deleted account]" placeholders in the others'
    conversations, they leave each one (its key goes: it names them) once all
    of its buckets are done, and a conversation nobody is left in goes whole.
    Returns the writes made (0: nothing named them)."""
    rows = list(
        _conversations()
        .find({"everyone": handle}, {"active": 1, "unread": 1, "members": 1})
        .limit(limit)
    )
    work = 0
    for row in rows:
        if work >= limit:
            break
        conversation_id = row["_id"]
        remaining = [h for h in row.get("active") or () if h != handle]
        if remaining:
            budget = limit - work
            blanked = _own_messages_blank(
                conversation_id=conversation_id, handle=handle, limit=budget
            )
            work += blanked
            if blanked >= budget:
                # More of their buckets may be left: the next batch finds this
                # conversation again (they are still in `everyone`) and goes on.
                break
        _keys().delete_many({"conversation": conversation_id})
        work += 1
        if not remaining:
            _buckets().delete_many({"conversation": conversation_id})
            _conversations().delete_one({"_id": conversation_id})
            continue
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
    return work


def _own_messages_blank(*, conversation_id: ObjectId, handle: str, limit: int) -> int:
    """The person's messages in one conversation become placeholders: one
    update per bucket, naming each message by its index, at most `limit`
    buckets (returns how many). A bucket's messages are only ever appended,
    never moved or removed, so an index read here names the same message in
    the write; the filter checks it still does. A blanked bucket no longer
    matches `messages.by`, so the next call starts where this one stopped.
    The handles they mentioned go with their words."""
    done = 0
    for bucket in (
        _buckets()
        .find(
            {"conversation": conversation_id, "messages.by": handle},
            {"bucket": 1, "messages._id": 1, "messages.by": 1},
        )
        .limit(limit)
    ):
        mine = [
            (index, message["_id"])
            for index, message in enumerate(bucket.get("messages") or ())
            if message.get("by") == handle
        ]
        if not mine:
            continue
        blank = {
            f"messages.{index}.{field}": ""
            for index, _ in mine
            for field in ("by", "name", "text")
        }
        _buckets().update_one(
            {
                "conversation": conversation_id,
                "bucket": bucket["bucket"],
                **{f"messages.{index}._id": message_id for index, message_id in mine},
            },
            {"$set": blank, "$unset": {f"messages.{index}.mentions": "" for index, _ in mine}},
        )
        done += 1
        owners.lease_keep()
    return done


def messages_unmention(handle: str, limit: int) -> int:
    """Erasure's second step for messages (docs/accounts.md#erasure), up to
    `limit` buckets at a time: every other message that mentions the person,
    in any conversation (theirs or not), keeps its words with the handle
    written "[deleted account]", as posts and comments do
    (feeds.mentions.unmention); the inbox preview of such a message
    too. Found on the `messages.mentions` index, one update per bucket, and
    the handle leaves `mentions` in it, so what is done no longer matches and
    a second run changes nothing. Returns how many buckets were read."""
    rows = list(
        _buckets()
        .find(
            {"messages.mentions": handle},
            {
                "conversation": 1,
                "bucket": 1,
                "messages._id": 1,
                "messages.text": 1,
                "messages.mentions": 1,
            },
        )
        .limit(limit)
    )
    if not rows:
        return 0
    # Each conversation's newest message, in one read: the preview to rewrite
    # when it is one of these.
    newest = {
        row["_id"]: (row.get("last") or {}).get("id")
        for row in _conversations().find(
            {"_id": {"$in": list({bucket["conversation"] for bucket in rows})}},
            {"last.id": 1},
        )
    }
    for bucket in rows:
        named = [
            (index, message)
            for index, message in enumerate(bucket.get("messages") or ())
            if handle in (message.get("mentions") or ())
        ]
        if not named:
            continue
        conversation_id = bucket["conversation"]
        for _, message in named:
            if message["_id"] != newest.get(conversation_id):
                continue
            # The preview first: a crash before the bucket's write leaves the
            # bucket to match again, and this write (its filter holding the
            # old preview) is then a no-op. A preview that changed meanwhile
            # (a newer message, a moderator's removal) is left as it is.
            text = message.get("text") or ""
            _conversations().update_one(
                {"_id": conversation_id, "last.id": message["_id"], "last.text": _preview(text)},
                {"$set": {"last.text": _preview(unmention(text, handle))}},
            )
        # Each message's text in the filter: a moderator's removal or another
        # erasure landing since the read must not get these words back. Then
        # the bucket still matches, and the next batch reads it again.
        _buckets().update_one(
            {
                "conversation": conversation_id,
                "bucket": bucket["bucket"],
                **{
                    f"messages.{index}.{field}": message.get(field)
                    for index, message in named
                    for field in ("_id", "text")
                },
            },
            {
                "$set": {
                    **{
                        f"messages.{index}.text": unmention(message.get("text") or "", handle)
                        for index, message in named
                    },
                    **{
                        f"messages.{index}.mentions": [
                            h for h in message.get("mentions") or () if h != handle
                        ]
                        for index, message in named
                    },
                }
            },
        )
    return len(rows)
