"""What the API's views share (docs/api.md#conventions): the site's origin
for absolute URLs, an account id's person, a status id as a keyset cursor,
and the size of a page of accounts."""

from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.account import account
from feeds.selectors import marks
from feeds.selectors import pages as post_pages
from profiles import selectors as people
from profiles.documents import User
from socialsite.clock import aware
from socialsite.cursors import Cursor
from socialsite.ids import parse_handle, parse_object_id

#: Mastodon's page of accounts: 40 by default, at most 80.
ACCOUNTS_DEFAULT, ACCOUNTS_MAX = 40, 80


def base_of(request: HttpRequest) -> str:
    """The site's origin ("https://example.org"), for the entities' URLs."""
    return request.build_absolute_uri("/").rstrip("/")


def person_or_404(value: object) -> User:
    """The active person with this handle (an account's `id`), as the
    profile page finds them: unknown, suspended or being erased is a 404."""
    handle = parse_handle(value)
    person = people.user_active(handle) if handle else None
    if person is None:
        raise Http404
    return person


def status_cursor(value: str) -> Cursor | None:
    """A status id as a timeline's keyset cursor: the time of the post (or
    repost) it names, one point read; None for an id of nothing."""
    oid = parse_object_id(value)
    if oid is None:
        return None
    post = post_pages.post_by_id(oid)
    if post is not None:
        return Cursor(aware(post["ts"]), oid)
    repost = marks.repost_time(oid)
    return Cursor(aware(repost["ts"]), oid) if repost is not None else None


def handles_page(
    request: HttpRequest, window: paging.Window[str], handles: list[str]
) -> JsonResponse:
    """A page of accounts out of handles held in one read (a block list, a
    circle's members), in handle order: `max_id` pages on, `min_id` and
    `since_id` back; the page's people in one read, with the Link header."""
    ordered = sorted(handles)
    before = window.min_id or window.since_id
    if before:
        chosen = [h for h in ordered if h < before][-window.limit :]
        more = bool(chosen)
    else:
        after = [h for h in ordered if window.max_id is None or h > window.max_id]
        chosen, more = after[: window.limit], len(after) > window.limit
    base = base_of(request)
    items = [account(user, base) for user in people.accounts(chosen)]
    return paging.paged(
        request,
        items,
        first_id=chosen[0] if chosen else None,
        last_id=chosen[-1] if chosen else None,
        more=more,
    )
