"""Conversations (docs/api.md#conversations): our messages as Mastodon's
direct conversations, read and written by the messages pages' selectors
and services (messaging/). Anyone not in a conversation gets a 404 from
every route of it, as on the pages.
"""

from typing import Any

from bson import ObjectId
from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.conversation import conversation, message_status
from api.entities.status import Authors
from api.http import api_view
from api.params import Params
from messaging import selectors, services
from messaging.selectors import ConversationPage
from profiles.documents import User
from socialsite.cursors import Cursor
from socialsite.ids import parse_object_id

DEFAULT, MAXIMUM = 20, 40


def base_of(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


@api_view(["GET"], scope="read:statuses", user=True)
def conversations_list(request: HttpRequest, params: Params) -> Any:
    """The inbox, the most recent first: `max_id`, `since_id`, `min_id`
    (cursors of the inbox's order, which the Link header carries) and
    `limit` (20 by default, at most 40)."""
    window = paging.window(params, Cursor.decode, default=DEFAULT, maximum=MAXIMUM)
    page = selectors.inbox_page(
        request.user,
        window.max_id,
        limit=window.limit,
        after=window.min_id or window.since_id,
        nearest=window.min_id is not None,
    )
    lasts = selectors.last_messages(page.rows)
    authors = Authors(
        {o["h"] for row in page.rows for o in row.others} | {m.by for m in lasts.values() if m.by},
        base_of(request),
    )
    items = []
    for row in page.rows:
        others = [o["h"] for o in row.others]
        message = lasts.get(str(row.last.get("id")))
        last = None
        if message is not None and message.kind != "left":
            members = [request.user.handle, *others]
            last = message_status(message, row.id, members, authors)
        items.append(conversation(row.id, row.unread, others, last, authors))
    cursors = [Cursor(row.ts, ObjectId(row.id)).encode() for row in page.rows]
    response = JsonResponse(items, safe=False)
    link = paging.link_header(
        request,
        next_id=page.next_cursor if window.min_id is None and window.since_id is None else None,
        prev_id=cursors[0] if cursors else None,
    )
    if link:
        response["Link"] = link
    return response


def _conversation_id(raw: str) -> Any:
    found = parse_object_id(raw)
    if found is None:
        raise Http404
    return found


@api_view(["POST"], scope="write:conversations", user=True)
def conversation_read(request: HttpRequest, params: Params, conversation_id: str) -> Any:
    """Marks it read, as opening its newest page does; answers it."""
    oid = _conversation_id(conversation_id)
    page = selectors.conversation_page(oid, request.user)
    if page is None:
        raise Http404
    if page.unread:
        services.conversation_read(
            conversation_id=oid, reader=request.user, newest=page.newest, seat=page.seat
        )
    return conversation_of(page, request.user, base_of(request), unread=False)


def conversation_of(page: ConversationPage, reader: User, base: str, *, unread: bool) -> dict:
    """A conversation's newest page as a Conversation: its last message
    shown to the reader (none across a block), its other members now."""
    others = [m["h"] for m in page.members]
    shown = [m for m in page.messages if m.kind != "left"]
    authors = Authors({*others, *(m.by for m in shown if m.by)}, base)
    last = message_status(shown[-1], page.id, [reader.handle, *others], authors) if shown else None
    return conversation(page.id, unread, others, last, authors)


def conversation_now(conversation_id: ObjectId, reader: User, base: str) -> dict | None:
    """The conversation as it stands for one of its members, unread or not
    (the direct stream, api/streaming/); None when they are not in it."""
    page = selectors.conversation_page(conversation_id, reader)
    if page is None:
        return None
    return conversation_of(page, reader, base, unread=page.unread)


@api_view(["DELETE"], scope="write:conversations", user=True)
def conversation_delete(request: HttpRequest, params: Params, conversation_id: str) -> Any:
    """Leaves it, as the page's Leave button does: the others see that, and
    it is gone from the reader's list (a 404 to them from then on)."""
    oid = _conversation_id(conversation_id)
    try:
        services.conversation_leave(conversation_id=oid, member=request.user)
    except services.NotInConversation as exc:
        raise Http404 from exc
    return {}
