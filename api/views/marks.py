"""The marks people leave on statuses (docs.joinmastodon.org/methods/statuses):
favourites (likes), reblogs (reposts), bookmarks and pins, and who left
them, through the post page's services and limits (docs/api.md#statuses)."""

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.account import account
from api.entities.status import (
    status,
)
from api.http import ApiError, api_view
from api.params import Params
from api.views.common import ACCOUNTS_DEFAULT, ACCOUNTS_MAX, base_of
from api.views.sight import visible_post
from feeds.selectors import marks
from feeds.services import likes, pins, reposts
from feeds.services.bookmarks import bookmark_create, bookmark_delete
from profiles import selectors as people
from socialsite.ids import parse_handle

#: A page of accounts, as api/views/accounts.py pages them.


# --- marks --------------------------------------------------------------------

LIKE_LIMIT = ("like", "RATELIMIT_LIKE")
REPOST_LIMIT = ("repost", "RATELIMIT_REPOST")
BOOKMARK_LIMIT = ("bookmark", "RATELIMIT_BOOKMARK")
PIN_LIMIT = ("pin", "RATELIMIT_PIN")


def _marked(request: HttpRequest, post: dict, **changes: Any) -> dict:
    """The status after an action, with what the action answered."""
    shown = status(post, request.user, base_of(request))
    shown.update(changes)
    return shown


def _like(request: HttpRequest, status_id: str, *, on: bool) -> dict:
    post = visible_post(request, status_id)
    act = likes.like_create if on else likes.like_delete
    try:
        state = act(post_id=post["_id"], user=request.user)
    except likes.NoSuchPost as exc:
        raise Http404 from exc
    except likes.LikeError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    return _marked(request, post, favourited=state.liked, favourites_count=state.likes)


@api_view(["POST"], scope="write:favourites", user=True, limit=LIKE_LIMIT)
def favourite(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _like(request, status_id, on=True)


@api_view(["POST"], scope="write:favourites", user=True, limit=LIKE_LIMIT)
def unfavourite(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _like(request, status_id, on=False)


def _repost(request: HttpRequest, status_id: str, *, on: bool) -> dict:
    post = visible_post(request, status_id)
    act = reposts.repost_create if on else reposts.repost_delete
    try:
        state = act(post_id=post["_id"], user=request.user)
    except reposts.NoSuchPost as exc:
        raise Http404 from exc
    except reposts.RepostError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    changes = {"reblogged": state.reposted, "reblogs_count": state.reposts}
    made = marks.repost_by(post["_id"], request.user.handle) if on else None
    if made is None:
        return _marked(request, post, **changes)
    # Mastodon answers a reblog with the new status, the original inside,
    # as a timeline shows a repost (timelines/selectors/entries.py).
    reposted = {**post, "reposted_by": request.user.handle, "_at": (made["ts"], made["_id"])}
    shown = status(reposted, request.user, base_of(request))
    shown["reblog"].update(changes)
    # The new status is marked reblogged too, as Mastodon answers (it asks
    # whether the reader reblogged the status a reblog wraps), so a client
    # that reads the answer's own fields shows the boost as done.
    shown["reblogged"] = state.reposted
    return shown


@api_view(["POST"], scope="write:statuses", user=True, limit=REPOST_LIMIT)
def reblog(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _repost(request, status_id, on=True)


@api_view(["POST"], scope="write:statuses", user=True, limit=REPOST_LIMIT)
def unreblog(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _repost(request, status_id, on=False)


@api_view(["POST"], scope="write:bookmarks", user=True, limit=BOOKMARK_LIMIT)
def bookmark(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    bookmark_create(owner=request.user.handle, post_id=post["_id"])
    return _marked(request, post, bookmarked=True)


@api_view(["POST"], scope="write:bookmarks", user=True, limit=BOOKMARK_LIMIT)
def unbookmark(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    bookmark_delete(owner=request.user.handle, post_id=post["_id"])
    return _marked(request, post, bookmarked=False)


@api_view(["POST"], scope="write:accounts", user=True, limit=PIN_LIMIT)
def pin(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    if post["by"]["id"] != request.user.handle:
        raise Http404
    try:
        pins.post_pin(user=request.user, post=post)
    except pins.NotYours as exc:
        raise Http404 from exc
    except pins.PinError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    return _marked(request, post, pinned=True)


@api_view(["POST"], scope="write:accounts", user=True, limit=PIN_LIMIT)
def unpin(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    if post["by"]["id"] != request.user.handle:
        raise Http404
    pins.post_unpin(user=request.user, post_id=post["_id"])
    return _marked(request, post, pinned=False)


def _markers(request: HttpRequest, params: Params, status_id: str, kind: str) -> JsonResponse:
    """Who liked or reposted it, in handle order, paged with a Link header."""
    post = visible_post(request, status_id)
    window = paging.window(params, parse_handle, default=ACCOUNTS_DEFAULT, maximum=ACCOUNTS_MAX)
    before = window.min_id or window.since_id
    handles, more = marks.markers_page(
        kind,
        post["_id"],
        after=None if before else window.max_id,
        before=before,
        size=window.limit,
    )
    hidden = set(request.user.blocked or ()) if request.user.is_authenticated else set()
    base = base_of(request)
    items = [account(user, base) for user in people.accounts(handles) if user.handle not in hidden]
    return paging.paged(
        request,
        items,
        first_id=handles[0] if handles else None,
        last_id=handles[-1] if handles else None,
        more=more,
    )


@api_view(["GET"], scope="read:statuses", user=None)
def favourited_by(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    return _markers(request, params, status_id, "like")


@api_view(["GET"], scope="read:statuses", user=None)
def reblogged_by(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    return _markers(request, params, status_id, "repost")
