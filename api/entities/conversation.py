"""The Conversation entity (docs.joinmastodon.org/entities/Conversation)
and a message shown as a Status with `visibility: "direct"`
(docs/api.md#conversations).

A message's status id is the message's own ObjectId in hex (time-ordered,
as a status id must be); a conversation's id is the conversation's.
"""

from html import escape
from typing import Any

from api.entities.dates import iso
from api.entities.status import Authors, mention
from messaging.selectors import Message


def message_html(text: str) -> str:
    """A message as its conversation shows it: escaped, its lines kept, and
    nothing linked (docs/messages.md: a message's @handles are not links)."""
    if not text.strip():
        return ""
    return "<p>" + escape(text).replace("\n", "<br>") + "</p>"


def message_status(
    message: Message, conversation_id: str, others: list[str], authors: Authors
) -> dict[str, Any]:
    """`others`: the handles of the conversation's members other than the
    author, in it now: a direct status mentions whom it reaches."""
    base = authors.base
    url = f"{base}/messages/{conversation_id}/"
    author = authors.get(message.by or "deleted", message.name or "[deleted account]")
    return {
        "id": message.id,
        "uri": url,
        "url": url,
        "created_at": iso(message.ts),
        "account": author,
        "content": message_html(message.shown_text),
        "visibility": "direct",
        "sensitive": False,
        "spoiler_text": "",
        "media_attachments": [],
        "application": None,
        "mentions": [mention(h, base) for h in others if h and h != message.by],
        "tags": [],
        "emojis": [],
        "reblogs_count": 0,
        "favourites_count": 0,
        "replies_count": 0,
        "in_reply_to_id": None,
        "in_reply_to_account_id": None,
        "reblog": None,
        "poll": None,
        "card": None,
        "language": None,
        "text": None,
        "edited_at": None,
        "favourited": False,
        "reblogged": False,
        "muted": False,
        "bookmarked": False,
        "pinned": False,
        "filtered": [],
    }


def conversation(
    conversation_id: str, unread: bool, others: list[str], last: dict | None, authors: Authors
) -> dict[str, Any]:
    """`others`: the other members in it now (handles); `last`: the last
    message's Status, or None (across a block it is not shown)."""
    return {
        "id": conversation_id,
        "unread": unread,
        "accounts": [authors.get(h) for h in others if h],
        "last_status": last,
    }
