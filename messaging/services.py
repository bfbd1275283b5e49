"""Every write to conversations and their messages (docs/messages.md).

Who may do what is decided here: a conversation holds 2 to 21 people; a
message to exactly the people of an open conversation continues it; a new
one asks each recipient's `messages_from` (everyone, the people they follow,
nobody); blocks stop messages both ways; only active members write, read or
leave, and anyone else is told the conversation does not exist (a 404).

Each message is appended to the conversation's buckets (socialsite/buckets.py,
the race-safe rollover of the comment buckets), then the conversation takes
its preview and marks the others unread. The unread count in the header is
the number of conversations a person has unread, kept on their document
through profiles/services/standing.py: the `$addToSet` on `unread` returns
who was unread before, so only the people this message made unread are
counted, once each however many messages race.
"""

from collections.abc import Iterable
from datetime import datetime

from bson import ObjectId
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from feeds.mentions import handles_in
from messaging.documents import Conversation, ConversationKey, MessageBucket
from profiles import selectors as people
from profiles.documents import User
from profiles.services import standing
from socialsite import events
from socialsite.buckets import Buckets
from socialsite.clock import now

#: Others one conversation may hold besides its author (2 to 21 people).
MAX_RECIPIENTS = 20
MAX_TEXT = 5000
PREVIEW = 140


class MessageRefused(Exception):
    """A message or conversation we refuse, with a message for the sender."""


class NotInConversation(LookupError):
    """No such conversation, or the person is not (or no longer) in it: a 404."""


def _conversations() -> Collection:
    return Conversation._get_collection()


def _keys() -> Collection:
    return ConversationKey._get_collection()


def _buckets() -> Collection:
    return MessageBucket._get_collection()


BUCKETS = Buckets(
    buckets=_buckets,
    parents=_conversations,
    owner="conversation",
    items="messages",
    counter="num_buckets",
    size=lambda: settings.MESSAGES_BUCKET_SIZE,
    max_bytes=lambda: settings.MESSAGES_BUCKET_MAX_BYTES,
)


def key_of(handles: Iterable[str]) -> str:
    """The "exactly these people" key: their sorted handles."""
    return ",".join(sorted(set(handles)))


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def mentioned(text: str) -> list[str]:
    """The handles a message mentions, stored with it (only when there are
    any: a bucket is bounded in bytes) so that an erasure finds the messages
    naming someone on the `messages.mentions` index (docs/messages.md,
    "Moderation, export and erasure"). Every handle written, as comments
    store them: a message is not linked, so nobody is looked up."""
    return sorted(handles_in(text))


def _clean_text(text: object) -> str:
    text = str(text or "").strip()
    if not text:
        raise MessageRefused("Write a message.")
    if len(text) > MAX_TEXT:
        raise MessageRefused(f"A message is at most {MAX_TEXT:,} characters.")
    return text


# --- starting -----------------------------------------------------------------


def conversation_start(*, sender: User, to: list[str], text: str) -> ObjectId:
    """Send `text` to the people `to` (1 to 20 handles): into their open
    conversation with the sender if there is one with exactly them, else a
    new one. Returns the conversation's id."""
    return conversation_write(sender=sender, to=to, text=text)[0]


def conversation_write(*, sender: User, to: list[str], text: str) -> tuple[ObjectId, dict]:
    """`conversation_start`, answering the conversation's id and the message
    written (the client API shows it: docs/api.md#conversations)."""
    text = _clean_text(text)
    others = sorted({h for h in to if h and h != sender.handle})
    if not others:
        raise MessageRefused("Choose who to write to.")
    if len(others) > MAX_RECIPIENTS:
        raise MessageRefused(f"A conversation holds at most {MAX_RECIPIENTS + 1} people.")
    found = {
        row["_id"]: row
        for row in people.users_read(
            others, {"name": 1, "status": 1, "blocked": 1, "messages_from": 1}
        )
    }
    for handle in others:
        if handle not in found or found[handle].get("status") != "active":
            raise MessageRefused(f"There is no one called @{handle} to write to.")
    for handle in others:
        if handle in (sender.blocked or ()):
            raise MessageRefused(f"You blocked @{handle}: unblock them to write to them.")
        if sender.handle in (found[handle].get("blocked") or ()):
            raise MessageRefused(f"You can't write to @{handle}.")
    key = key_of([sender.handle, *others])
    existing = _keys().find_one({"_id": key})
    if existing is not None:
        conversation_id = existing["conversation"]
    else:
        _may_start(sender, others, found)
        conversation_id = _open(sender, others, found, key)
    message = message_send(conversation_id=conversation_id, sender=sender, text=text)
    return conversation_id, message


def _may_start(sender: User, others: list[str], found: dict) -> None:
    """Each recipient's `messages_from`, asked of a new conversation only."""
    closed = [h for h in others if found[h].get("messages_from") == "nobody"]
    if closed:
        raise MessageRefused(f"@{closed[0]} doesn't take new messages.")
    picky = [h for h in others if found[h].get("messages_from") == "following"]
    if picky:
        following_back = people.followers_among(sender.handle, picky)
        for handle in picky:
            if handle not in following_back:
                raise MessageRefused(f"@{handle} takes new messages only from people they follow.")


def _open(sender: User, others: list[str], found: dict, key: str) -> ObjectId:
    """A new conversation, then its key; a racer who made the same key first
    wins, and ours goes (it holds no message yet)."""
    moment = now()
    members = [
        {"h": sender.handle, "name": sender.name, "joined": moment, "read": moment},
        *({"h": h, "name": found[h].get("name") or h, "joined": moment} for h in others),
    ]
    conversation_id = ObjectId()
    _conversations().insert_one(
        {
            "_id": conversation_id,
            "members": members,
            "everyone": [sender.handle, *others],
            "active": [sender.handle, *others],
            "unread": [],
            "started_by": sender.handle,
            "started": moment,
            "ts": moment,
            "count": 0,
            "num_buckets": 0,
        }
    )
    try:
        _keys().insert_one({"_id": key, "conversation": conversation_id})
    except DuplicateKeyError:
        _conversations().delete_one({"_id": conversation_id})
        won = _keys().find_one({"_id": key})
        if won is None:  # the winner left again meanwhile: try once more
            return _open(sender, others, found, key)
        return won["conversation"]
    return conversation_id


# --- writing into one -----------------------------------------------------------


def _member_of(conversation_id: ObjectId, handle: str, fields: dict) -> dict:
    row = _conversations().find_one({"_id": conversation_id, "active": handle}, fields)
    if row is None:
        raise NotInConversation(conversation_id)
    return row


def message_send(*, conversation_id: ObjectId, sender: User, text: str) -> dict:
    """Append a message to a conversation the sender is in; returns it."""
    text = _clean_text(text)
    # Membership and the bucket being filled, in one read.
    row = _member_of(conversation_id, sender.handle, {"active": 1, "num_buckets": 1})
    others = [h for h in row["active"] if h != sender.handle]
    if not others:
        # Everyone else left: a message here would reach no one.
        raise MessageRefused("Everyone else has left this conversation: start a new one.")
    mine = set(sender.blocked or ())
    blockers = people.blockers_among(sender.handle, others)
    apart = (mine | blockers) & set(others)
    if apart == set(others):
        # Nobody left to read it: a one-to-one across a block, both ways.
        raise MessageRefused("You can't write in this conversation.")
    message = {"_id": ObjectId(), "by": sender.handle, "name": sender.name, "text": text}
    message["ts"] = now()
    named = mentioned(text)
    if named:
        message["mentions"] = named
    tell = [h for h in others if h not in apart]
    _append(conversation_id, message, tell=tell, bucket=row.get("num_buckets") or 0)
    return message


def _append(
    conversation_id: ObjectId, message: dict, *, tell: list[str], bucket: int | None = None
) -> None:
    """The message into the buckets (`bucket`: the number being filled, as
    just read, which spares the append its own read), then the
    conversation's preview, time and unread members; the header counts of
    those it made unread."""
    BUCKETS.append(conversation_id, message, number=bucket)
    preview = {
        "id": message["_id"],
        "by": message["by"],
        "name": message.get("name", ""),
        "text": _preview(message.get("text", "")),
        "ts": message["ts"],
        "kind": message.get("kind"),
    }
    changes = {
        "$inc": {"count": 1},
        "$max": {"ts": message["ts"]},
        "$addToSet": {"unread": {"$each": tell}},
    }
    # The preview only moves forward: a racer's newer message already there
    # stays (then the second write, without the preview, is the one).
    before = _conversations().find_one_and_update(
        {"_id": conversation_id, "$or": [{"last": None}, {"last.ts": {"$lte": message["ts"]}}]},
        {**changes, "$set": {"last": preview}},
        projection={"unread": 1},
        return_document=ReturnDocument.BEFORE,
    )
    if before is None:
        before = _conversations().find_one_and_update(
            {"_id": conversation_id},
            changes,
            projection={"unread": 1},
            return_document=ReturnDocument.BEFORE,
        )
    newly = sorted(set(tell) - set((before or {}).get("unread") or ()))
    standing.messages_unread_add(handles=newly, delta=1)
    events.message_sent.send(
        sender=Conversation,
        conversation_id=conversation_id,
        message_id=message["_id"],
        sender_handle=message["by"],
        told=list(tell),
    )


def _seat(members: list[dict], handle: str) -> int | None:
    """The index of `handle`'s entry in `members`, while they are in it. A
    conversation's `members` only ever changes in place (nobody is removed
    or inserted), so an index read once names the same entry in the write;
    the write's filter checks it still does."""
    for index, member in enumerate(members):
        if member.get("h") == handle and not member.get("left"):
            return index
    return None


def conversation_read(
    *, conversation_id: ObjectId, reader: User, newest: datetime | None, seat: int | None
) -> bool:
    """Move the reader's marker to `newest` (the newest message their page
    showed) and take the conversation off their unread ones, unless a
    message newer than the page arrived meanwhile. `seat`: their entry in
    `members`, as the page read it. True when it was unread."""
    if newest is None or seat is None:
        return False
    before = _conversations().find_one_and_update(
        {
            "_id": conversation_id,
            "ts": {"$lte": newest},
            f"members.{seat}.h": reader.handle,
            f"members.{seat}.left": None,
        },
        {"$pull": {"unread": reader.handle}, "$set": {f"members.{seat}.read": newest}},
        projection={"unread": 1},
        return_document=ReturnDocument.BEFORE,
    )
    if before is not None and reader.handle in (before.get("unread") or ()):
        standing.messages_unread_add(handles=[reader.handle], delta=-1)
        return True
    return False


def conversation_leave(*, conversation_id: ObjectId, member: User) -> None:
    """Leave: the conversation is closed to them from now on (a 404), the
    others see a line saying so, and "exactly these people" no longer names
    it, so writing to them again starts afresh. The last one out deletes it."""
    moment = now()
    row = _member_of(conversation_id, member.handle, {"members.h": 1, "members.left": 1})
    seat = _seat(row.get("members") or [], member.handle)
    if seat is None:
        raise NotInConversation(conversation_id)
    before = _conversations().find_one_and_update(
        {
            "_id": conversation_id,
            "active": member.handle,
            f"members.{seat}.h": member.handle,
            f"members.{seat}.left": None,
        },
        {
            "$pull": {"active": member.handle, "unread": member.handle},
            "$set": {f"members.{seat}.left": moment},
        },
        projection={"active": 1, "unread": 1},
        return_document=ReturnDocument.BEFORE,
    )
    if before is None:  # left meanwhile (a second click racing the first)
        raise NotInConversation(conversation_id)
    if member.handle in (before.get("unread") or ()):
        standing.messages_unread_add(handles=[member.handle], delta=-1)
    _keys().delete_one({"_id": key_of(before["active"]), "conversation": conversation_id})
    others = [h for h in before["active"] if h != member.handle]
    if not others:
        # The last one out: nobody can read it any more, so it goes whole.
        _buckets().delete_many({"conversation": conversation_id})
        _conversations().delete_one({"_id": conversation_id, "active": []})
        return
    line = {"_id": ObjectId(), "by": member.handle, "name": member.name, "kind": "left"}
    line["ts"] = moment
    _append(conversation_id, line, tell=[])


def unread_recount(*, reader: User, unread: int) -> None:
    """Put the reader's unread count right when it drifted (a process died
    between a conversation's write and the count's): `unread` is the truth
    the inbox found (selectors.unread_truth). Written only if the count's
    version is still the one the session read, so a message or a read that
    landed meanwhile wins; one whose conversation was counted and whose
    `$inc` comes after the write leaves the count one too high until the
    next opening, never too low."""
    version = getattr(reader, "messages_version", 0) or 0
    if standing.messages_unread_set(handle=reader.handle, unread=unread, version=version):
        reader.messages_unread = unread
