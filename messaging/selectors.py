"""Reads of conversations (docs/messages.md): the inbox, a conversation's
pages, and what moderation and the export need.

A conversation page is one aggregate, one round trip: the conversation
(only if the reader is in it), its members' standing by a `$lookup` of
`user` (suspended, and whether they blocked the reader), and the two buckets
the page can reach by a `$lookup` of `message_buckets`. A page holds at
most MESSAGES_PAGE_SIZE messages and a full bucket at least as many (it is
full by count, or by bytes at MESSAGES_BUCKET_MAX_BYTES, which a bucket of
the longest messages passes only past that many), so two buckets always
suffice. A message's place is (bucket, index): appends never move it, so
keyset cursors on it neither skip nor repeat whatever arrives meanwhile.
"""

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from bson import ObjectId
from django.conf import settings

from messaging.documents import Conversation, MessageBucket
from profiles import selectors as people
from socialsite.clock import aware
from socialsite.cursors import Cursor

if TYPE_CHECKING:
    from profiles.documents import User

#: What a message shows instead of its words.
REMOVED = "[removed by a moderator]"
SUSPENDED = "[removed: the account is suspended]"
ERASED = "[deleted]"


class BadCursor(ValueError):
    """A page cursor this module did not make (a 404 for the views)."""


@dataclass
class Message:
    id: str
    by: str  # "" once its author's account was erased
    name: str
    text: str
    ts: datetime
    place: tuple[int, int]  # (bucket, index): its position, for cursors
    kind: str = ""  # "left": a member left
    removed: bool = False  # a moderator removed it
    suspended: bool = False  # its author is suspended
    mine: bool = False

    @property
    def erased(self) -> bool:
        return not self.by

    @property
    def shown_text(self) -> str:
        if self.removed:
            return REMOVED
        if self.erased:
            return ERASED
        if self.suspended:
            return SUSPENDED
        return self.text


@dataclass
class ConversationPage:
    id: str
    members: list[dict]  # the others, in it now: {h, name}
    gone: list[dict]  # who left (or whose account was erased)
    messages: list[Message]  # oldest first
    older: str | None = None  # `?before=`: the page before (rel="prev")
    newer: str | None = None  # `?after=`: the page after (rel="next")
    unread: bool = False  # the reader had not read it
    newest: datetime | None = None  # the newest message on the page, for the read marker
    latest: bool = True  # the page ends with the conversation's newest message
    seat: int | None = None  # the reader's entry in `members` (services._seat)
    hidden: int = 0  # messages across a block, left out
    title: str = ""
    # `?after=` of what comes after the page's last message (those across a
    # block included): an open newest page reads on from here (live updates).
    end: str | None = None


@dataclass
class InboxRow:
    id: str
    others: list[dict]  # {h, name} of the other members in it now
    last: dict
    ts: datetime
    unread: bool
    hidden_preview: bool = False  # its last message is across a block

    @property
    def title(self) -> str:
        return ", ".join(o["name"] or "[deleted account]" for o in self.others) or "Only you"


@dataclass
class InboxPage:
    rows: list[InboxRow] = field(default_factory=list)
    next_cursor: str | None = None


# --- cursors --------------------------------------------------------------------

_PLACE = re.compile(r"([0-9]{1,9})\.([0-9]{1,9})")


def encode_place(place: tuple[int, int]) -> str:
    raw = f"m|{place[0]}.{place[1]}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_place(cursor: object) -> tuple[int, int]:
    if not isinstance(cursor, str) or not 0 < len(cursor) <= 40:
        raise BadCursor("malformed cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise BadCursor("malformed cursor") from exc
    kind, _, value = raw.partition("|")
    found = _PLACE.fullmatch(value)
    if kind != "m" or found is None:
        raise BadCursor("malformed cursor")
    return int(found.group(1)), int(found.group(2))


# --- a conversation ---------------------------------------------------------------


#: The most bytes one message takes in a bucket: 5,000 characters of 4 bytes
#: each in UTF-8, and its other fields.
LARGEST_MESSAGE = 5000 * 4 + 300


def buckets_a_page_reaches() -> int:
    """How many buckets a page may span: one partly read, then enough full
    ones for a page. A bucket is full at MESSAGES_BUCKET_SIZE messages, or
    earlier at MESSAGES_BUCKET_MAX_BYTES, which even the longest messages
    reach only past `max_bytes // LARGEST_MESSAGE` of them (2 by default)."""
    fewest = min(
        settings.MESSAGES_BUCKET_SIZE,
        max(1, settings.MESSAGES_BUCKET_MAX_BYTES // LARGEST_MESSAGE),
    )
    return 1 + -(-settings.MESSAGES_PAGE_SIZE // fewest)


def _buckets_lookup(before: tuple[int, int] | None, after: tuple[int, int] | None) -> dict:
    """The buckets a page reaches: at or below `before`'s bucket, newest
    first (the first page: the last ones), or from `after`'s bucket up."""
    if after is not None:
        match, order = {"bucket": {"$gte": after[0]}}, 1
    elif before is not None:
        match, order = {"bucket": {"$lte": before[0]}}, -1
    else:
        match, order = {}, -1
    pipeline: list[dict] = [{"$sort": {"bucket": order}}, {"$limit": buckets_a_page_reaches()}]
    if match:
        pipeline.insert(0, {"$match": match})
    return {
        "$lookup": {
            "from": MessageBucket._get_collection_name(),
            "localField": "_id",
            "foreignField": "conversation",
            "pipeline": pipeline,
            "as": "buckets",
        }
    }


def conversation_page(
    conversation_id: ObjectId,
    reader: "User",
    *,
    before: str | None = None,
    after: str | None = None,
) -> ConversationPage | None:
    """A page of the conversation for one of its members, oldest message
    first; None when there is no such conversation or the reader is not in
    it. Raises BadCursor for a cursor this module did not make."""
    older_than = decode_place(before) if before is not None else None
    newer_than = decode_place(after) if after is not None and before is None else None
    rows = list(
        Conversation._get_collection().aggregate(
            [
                {"$match": {"_id": conversation_id, "active": reader.handle}},
                # Everyone who wrote in it, those who left included.
                people.people_lookup("everyone", reader.handle, "people"),
                _buckets_lookup(older_than, newer_than),
            ]
        )
    )
    if not rows:
        return None
    row = rows[0]
    standing = {p["_id"]: p for p in row.get("people") or ()}
    apart = set(reader.blocked or ()) | {h for h, p in standing.items() if p.get("blocks_viewer")}
    suspended = {h for h, p in standing.items() if p.get("status") == "suspended"}
    placed = []
    for bucket in row.get("buckets") or ():
        for index, stored in enumerate(bucket.get("messages") or ()):
            placed.append(((bucket["bucket"], index), stored))
    placed.sort(key=lambda pair: pair[0])
    limit = settings.MESSAGES_PAGE_SIZE
    if newer_than is not None:
        window = [pair for pair in placed if pair[0] > newer_than][: limit + 1]
        more_newer, more_older = len(window) > limit, True
        window = window[:limit]
    else:
        if older_than is not None:
            placed = [pair for pair in placed if pair[0] < older_than]
        window = placed[-(limit + 1) :]
        more_older = len(window) > limit
        window = window[-limit:] if more_older else window
        more_newer = older_than is not None
    messages, hidden = [], 0
    for place, stored in window:
        if stored.get("by") in apart:
            hidden += 1  # across a block, in either direction: neither sees the other
            continue
        messages.append(_message(place, stored, reader.handle, suspended))
    active = set(row.get("active") or ())
    others = [
        {"h": m["h"], "name": m.get("name") or m["h"]}
        for m in row.get("members") or ()
        if m.get("h") in active and m["h"] != reader.handle
    ]
    gone = [
        {"h": m.get("h") or "", "name": m.get("name") or "[deleted account]"}
        for m in row.get("members") or ()
        if m.get("left") or not m.get("h")
    ]
    page = ConversationPage(
        id=str(conversation_id),
        members=others,
        gone=gone,
        messages=messages,
        older=encode_place(window[0][0]) if window and more_older else None,
        newer=encode_place(window[-1][0]) if window and more_newer else None,
        unread=reader.handle in (row.get("unread") or ()),
        newest=aware(window[-1][1]["ts"]) if window else None,
        latest=not more_newer,
        hidden=hidden,
        end=encode_place(window[-1][0]) if window else after if newer_than else None,
        title=", ".join(o["name"] for o in others) or "Only you",
        seat=next(
            (
                i
                for i, m in enumerate(row.get("members") or ())
                if m.get("h") == reader.handle and not m.get("left")
            ),
            None,
        ),
    )
    return page


def _message(place: tuple[int, int], stored: dict, reader: str, suspended: set[str]) -> Message:
    by = stored.get("by") or ""
    return Message(
        id=str(stored["_id"]),
        by=by,
        name=stored.get("name") or "",
        text=stored.get("text") or "",
        ts=aware(stored["ts"]),
        place=place,
        kind=stored.get("kind") or "",
        removed=bool(stored.get("removed_by")),
        suspended=by in suspended,
        mine=by == reader,
    )


# --- the inbox --------------------------------------------------------------------


def inbox_page(
    reader: "User",
    before: Cursor | None = None,
    *,
    limit: int | None = None,
    after: Cursor | None = None,
    nearest: bool = False,
) -> InboxPage:
    """The reader's conversations, the most recent first, keyset on (ts, _id):
    one aggregate that also asks whether the last message's author blocked
    the reader (its preview is then hidden, as the message is). `limit`,
    and `after` (only those newer than it: the newest of them, or with
    `nearest` those just above it): the client API's paging
    (docs/api.md#conversations)."""
    limit = limit or settings.MESSAGES_INBOX_PAGE_SIZE
    # `count`: a conversation whose start died before its first message
    # (or lost the race for its key) holds nothing to list.
    match: dict = {"active": reader.handle, "count": {"$gt": 0}}
    if before is not None:
        match["$or"] = [
            {"ts": {"$lt": before.ts}},
            {"ts": before.ts, "_id": {"$lt": before.id}},
        ]
    if after is not None:
        newer = [{"ts": {"$gt": after.ts}}, {"ts": after.ts, "_id": {"$gt": after.id}}]
        if "$or" in match:
            match["$and"] = [{"$or": match.pop("$or")}, {"$or": newer}]
        else:
            match["$or"] = newer
    rows = list(
        Conversation._get_collection().aggregate(
            [
                {"$match": match},
                {"$sort": {"ts": 1, "_id": 1} if nearest else {"ts": -1, "_id": -1}},
                {"$limit": limit + 1},
                people.blocker_lookup("last.by", reader.handle, "last_blocker"),
            ]
        )
    )
    if nearest:  # the ones just above `after`, shown the most recent first
        rows = rows[:limit][::-1]
    more = len(rows) > limit
    page = InboxPage()
    for row in rows[:limit]:
        active = set(row.get("active") or ())
        others = [
            {"h": m["h"], "name": m.get("name") or m["h"]}
            for m in row.get("members") or ()
            if m.get("h") in active and m["h"] != reader.handle
        ]
        last = dict(row.get("last") or {})
        page.rows.append(
            InboxRow(
                id=str(row["_id"]),
                others=others,
                last=last,
                ts=aware(row["ts"]),
                unread=reader.handle in (row.get("unread") or ()),
                hidden_preview=bool(row.get("last_blocker"))
                or last.get("by") in set(reader.blocked or ()),
            )
        )
    if more and page.rows:
        tail = rows[limit - 1]
        page.next_cursor = Cursor(aware(tail["ts"]), tail["_id"]).encode()
    return page


def last_messages(rows: list[InboxRow]) -> dict[str, Message]:
    """The whole last message of each conversation of an inbox page (a row
    holds its preview only), by message id: one read of their buckets on
    the `(conversation, bucket)` index, each bucket answering only the
    message asked for. Those across a block are not asked for."""
    wanted = {
        row.last["id"]: ObjectId(row.id)
        for row in rows
        if row.last.get("id") is not None and not row.hidden_preview
    }
    if not wanted:
        return {}
    found = MessageBucket._get_collection().find(
        {
            "conversation": {"$in": sorted(set(wanted.values()))},
            "messages._id": {"$in": list(wanted)},
        },
        {"bucket": 1, "messages": {"$elemMatch": {"_id": {"$in": list(wanted)}}}},
    )
    out: dict[str, Message] = {}
    for bucket in found:
        for stored in bucket.get("messages") or ():
            # Its index is unknown here and unused: the page's cursors never
            # come from an inbox row.
            out[str(stored["_id"])] = _message((bucket["bucket"], 0), stored, "", set())
    return out


def unread_truth(reader: "User", page: InboxPage) -> int | None:
    """The reader's unread conversations, as the inbox's first page shows
    them, when that disagrees with their count (None when it agrees, as far
    as the page can tell). A page that holds every conversation is the truth
    at no cost; otherwise the count is checked, by one count on the `unread`
    index, only when the page shows more unread than it says, or it says
    some while the page shows none of them."""
    stored = reader.messages_unread or 0
    shown = sum(row.unread for row in page.rows)
    if page.next_cursor is None:
        truth = shown
    elif shown > stored or (stored and not shown):
        truth = unread_count(reader.handle)
    else:
        return None
    return truth if truth != stored else None


def unread_count(handle: str) -> int:
    """A recount of the person's unread conversations, on the `unread` index."""
    return Conversation._get_collection().count_documents({"unread": handle, "active": handle})


# --- moderation and the export ----------------------------------------------------------


def message_of(conversation_id: ObjectId, message_id: ObjectId) -> dict | None:
    """One message by id, with its conversation's members: what a report
    and a moderator see of it (nothing else of the conversation). One read
    of the bucket holding it, on the (conversation, bucket) shard key's
    index by `messages._id`."""
    row = MessageBucket._get_collection().find_one(
        {"conversation": conversation_id, "messages._id": message_id},
        {"bucket": 1, "messages": {"$elemMatch": {"_id": message_id}}},
    )
    found = (row or {}).get("messages") or []
    if not found:
        return None
    return {**found[0], "bucket": row["bucket"]}


def member_of(conversation_id: ObjectId, handle: str) -> bool:
    row = Conversation._get_collection().find_one(
        {"_id": conversation_id, "active": handle}, {"_id": 1}
    )
    return row is not None


def messages_export(handle: str) -> Iterator[dict]:
    """Every message the person wrote, by conversation, for their export
    (docs/accounts.md#export): the others appear by handle only."""
    conversations = (
        Conversation._get_collection().find({"everyone": handle}, {"members.h": 1}).sort("_id", 1)
    )
    for conversation in conversations:
        others = sorted(m["h"] for m in conversation.get("members") or () if m.get("h") != handle)
        buckets = (
            MessageBucket._get_collection()
            .find({"conversation": conversation["_id"], "messages.by": handle}, {"messages": 1})
            .sort("bucket", 1)
        )
        for bucket in buckets:
            for message in bucket.get("messages") or ():
                if message.get("by") == handle and message.get("kind") != "left":
                    yield {
                        "conversation": conversation["_id"],
                        "with": others,
                        "ts": message["ts"],
                        "text": message.get("text") or "",
                    }
