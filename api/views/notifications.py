"""Notifications (docs/api.md#notifications): the notifications page's
selector, read with Mastodon's paging, answered as Notification entities.

What is listed is what the page lists (notifications/selectors.py): nothing
from someone the reader blocked or muted, nothing about a post they can no
longer see or that their keyword filters hide. Reading does not mark
anything read: Mastodon clients keep their place with markers, and the
page's "opened" is the page's (docs/api.md#notifications).
"""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from bson import ObjectId
from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.account import account
from api.entities.notification import MASTODON_TYPES, TYPES, notification
from api.entities.status import Authors, statuses
from api.http import api_view
from api.params import Params
from feeds.documents import CARD_FIELDS
from notifications import selectors, services
from notifications.selectors import Notification, NotificationPage
from profiles.documents import User
from socialsite.cursors import Cursor, older_than, sort_key
from socialsite.ids import parse_handle

DEFAULT, MAXIMUM = 40, 80
UNREAD_DEFAULT, UNREAD_MAXIMUM = 100, 1000
EARLIEST = ObjectId("0" * 24)


def base_of(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def _kinds(params: Params) -> set[str]:
    """Our kinds the request asks for: `types[]` (Mastodon's names; one it
    does not know is ignored, as Mastodon ignores it) less `exclude_types[]`."""
    asked = params.getlist("types")
    wanted = set(MASTODON_TYPES) if not asked else set(asked) & MASTODON_TYPES
    wanted -= set(params.getlist("exclude_types"))
    return {kind for kind, shown_as in TYPES.items() if shown_as in wanted}


def _keep(params: Params, since: Cursor | None, below: Cursor | None) -> Callable[[dict], bool]:
    kinds = _kinds(params)
    raw_actor = params.get("account_id")
    actor = parse_handle(raw_actor) if raw_actor else None
    if raw_actor and actor is None:
        raise Http404

    def keep(item: dict) -> bool:
        if item.get("kind") not in kinds:
            return False
        if (
            actor is not None
            and actor != item.get("actor")
            and actor not in item.get("actors", ())
        ):
            return False
        if since is not None and sort_key(item) <= (since.ts, since.id):
            return False
        return below is None or older_than(item, below)

    return keep


def serialized(request: HttpRequest, page: NotificationPage) -> list[dict]:
    return notifications_of(page, request.user, base_of(request))


def notifications_of(page: NotificationPage, viewer: User, base: str) -> list[dict]:
    """The page's items as Notifications, in a fixed number of round trips:
    the actors in one `$in`, the posts' Statuses as a timeline's (the
    streams send theirs so too, api/streaming/)."""
    about = {item.post_id for item in page.items if item.post_id is not None}
    posts = [page.posts[post_id] for post_id in sorted(about) if post_id in page.posts]
    shown = statuses(posts, viewer, base, context="notifications")
    by_id = {post["_id"]: data for post, data in zip(posts, shown, strict=True)}
    actors = Authors({item.actor for item in page.items if item.actor}, base)
    own = account(viewer, base)
    return [
        notification(
            item,
            actors.get(item.actor, item.actor_name) if item.actor else None,
            by_id.get(item.post_id) if item.post_id is not None else None,
            own,
        )
        for item in page.items
    ]


@api_view(["GET"], scope="read:notifications", user=True)
def notifications_list(request: HttpRequest, params: Params) -> Any:
    """`types[]`, `exclude_types[]`, `account_id`, and the paging
    (`max_id`, `since_id`, `min_id`, `limit`: 40 by default, at most 80)."""
    window = paging.window(params, Cursor.decode, default=DEFAULT, maximum=MAXIMUM)
    if window.min_id is not None:
        page = selectors.notification_page(
            request.user,
            None,
            after=window.min_id,
            size=window.limit,
            keep=_keep(params, None, window.max_id),
            post_fields=CARD_FIELDS,
        )
    else:
        page = selectors.notification_page(
            request.user,
            window.max_id,
            size=window.limit,
            keep=_keep(params, window.since_id, None),
            post_fields=CARD_FIELDS,
        )
    # Since a cursor, the page ends there: nothing below it is "next".
    more = page.next_cursor is not None and window.since_id is None
    response = JsonResponse(serialized(request, page), safe=False)
    link = paging.link_header(
        request,
        next_id=page.next_cursor if more else None,
        prev_id=page.first_cursor,
    )
    if link:
        response["Link"] = link
    return response


def _one(request: HttpRequest, raw_id: str) -> tuple[Cursor, NotificationPage]:
    """The notification `raw_id` as the page would list it, or a 404."""
    cursor = Cursor.decode(raw_id)
    if cursor is None:
        raise Http404
    page = selectors.notification_page(
        request.user,
        Cursor(cursor.ts + timedelta(milliseconds=1), EARLIEST),
        size=1,
        keep=lambda item: item.get("id") == cursor.id and item.get("kind") in TYPES,
        post_fields=CARD_FIELDS,
    )
    found: list[Notification] = [item for item in page.items if item.ts == cursor.ts]
    if not found:
        raise Http404
    page.items = found
    return cursor, page


def notification_item(viewer: User, item_id: ObjectId, base: str) -> dict | None:
    """The notification with this item id as the page would list it now,
    or None (gone, or hidden: a block, a mute, a filter, a post no longer
    seen): the page's own read of the newest buckets, for the streams."""
    page = selectors.notification_page(
        viewer,
        None,
        size=1,
        keep=lambda item: item.get("id") == item_id and item.get("kind") in TYPES,
        post_fields=CARD_FIELDS,
    )
    if not page.items:
        return None
    page.items = page.items[:1]
    return notifications_of(page, viewer, base)[0]


@api_view(["GET"], scope="read:notifications", user=True)
def notification_detail(request: HttpRequest, params: Params, notification_id: str) -> Any:
    _cursor, page = _one(request, notification_id)
    return serialized(request, page)[0]


@api_view(["POST"], scope="write:notifications", user=True)
def notification_dismiss(request: HttpRequest, params: Params, notification_id: str) -> Any:
    """Forgets one; what the page does not list is not found (a 404)."""
    cursor, _page = _one(request, notification_id)
    if not services.notification_dismiss(
        owner=request.user.handle, item_id=cursor.id, ts=cursor.ts
    ):
        raise Http404
    return {}


@api_view(["POST"], scope="write:notifications", user=True)
def notifications_clear(request: HttpRequest, params: Params) -> Any:
    services.notifications_clear(owner=request.user.handle)
    return {}


@api_view(["GET"], scope="read:notifications", user=True)
def unread_count(request: HttpRequest, params: Params) -> Any:
    """The header's number (docs/storage-models.md#notifications: the unread count
    kept on the person's document the token's read already loaded): no
    further round trip. `limit` caps it, as Mastodon's does (100, at most 1000)."""
    cap = paging.limit_of(params, default=UNREAD_DEFAULT, maximum=UNREAD_MAXIMUM)
    return {"count": min(max(0, request.user.notifications_unread or 0), cap)}
