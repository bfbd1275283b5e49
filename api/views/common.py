"""What the API's views share (docs/api.md#conventions): the site's origin
for absolute URLs, an account id's person, a status id as a keyset cursor,
and the size of a page of accounts."""

from django.http import Http404, HttpRequest

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
