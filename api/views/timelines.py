"""Timelines (docs.joinmastodon.org/methods/timelines), bookmarks and
favourites (methods/bookmarks, methods/favourites): the pages' own
selectors, serialized by the Status entity (docs/api.md#timelines).

Paging maps Mastodon's cursors onto the selectors' keyset `before`
(a `(ts, id)` position in the timeline):

- `max_id`: the page older than that status, one read of the page.
- `since_id`: the newest `limit` statuses newer than it; `min_id`: the
  `limit` statuses just above it (the page adjacent to it). A selector
  reads newest first only, so both walk down from the top (or from
  `max_id`) in pages of `WALK_PAGE` until they reach the id, at most
  `WALK_STATUSES` statuses (a client further behind than that is given
  the oldest of them, as Mastodon's home feed keeps 800).

Either way the keyset holds: statuses arriving meanwhile land above the
first page, so walking down with `rel="next"` and up with `rel="prev"`
neither skips nor repeats one.
"""

from collections.abc import Callable

from django.http import Http404, HttpRequest, JsonResponse

from api import circles as list_ids
from api import paging
from api.entities.status import statuses as statuses_of
from api.http import api_view
from api.params import Params
from api.views.common import base_of
from api.views.common import status_cursor as post_cursor
from explore.selectors import discovery
from feeds import words
from feeds.selectors.bookmarks import bookmarks_page
from feeds.selectors.liked import liked_page
from feeds.selectors.pages import FeedPage
from socialsite.cursors import Cursor
from socialsite.ids import parse_object_id
from timelines.selectors.pages import circle_page, news_page, position

#: Mastodon's page of statuses: 20 by default, at most 40.
STATUSES_DEFAULT, STATUSES_MAX = 20, 40
#: The pages a `since_id`/`min_id` walk reads, and how far it goes.
WALK_PAGE, WALK_STATUSES = 40, 800

Read = Callable[[Cursor | None, int], FeedPage]


def status_cursor(value: str) -> Cursor | None:
    """A status id as a timeline position: the post's (or repost's) time,
    one point read. A deleted status's id still pages, from the time its
    ObjectId holds; anything else is no id of a timeline (400)."""
    found = post_cursor(value)
    if found is not None:
        return found
    oid = parse_object_id(value)
    return Cursor(oid.generation_time, oid) if oid is not None else None


def _walk(read: Read, start: Cursor | None, floor: Cursor) -> tuple[list[dict], bool]:
    """The statuses above `floor` (below `start`), newest first, and
    whether any older than the last of them are left."""
    collected: list[dict] = []
    cursor = start
    while len(collected) < WALK_STATUSES:
        page = read(cursor, WALK_PAGE)
        for post in page.posts:
            if position(post) <= floor:
                return collected, True
            collected.append(post)
        if page.next_cursor is None:
            return collected, False
        cursor = Cursor.decode(page.next_cursor)
    return collected, True


def timeline(
    request: HttpRequest,
    params: Params,
    read: Read,
    context: str | None,
    *,
    parse: Callable[[str], Cursor | None] = status_cursor,
    link_id: Callable[[dict, dict], str] | None = None,
) -> JsonResponse:
    """One page of a list read by `read(before, limit)`, with Mastodon's
    paging and Link header. `context`: the keyword filters' (the page's):
    what a "hide" filter matches the selector dropped; a "warn" filter's
    match is in the status's `filtered`, as the page folds it. `parse`
    reads a cursor, `link_id(post, status)` writes one (a status's id by
    default)."""
    window = paging.window(params, parse, default=STATUSES_DEFAULT, maximum=STATUSES_MAX)
    floor = window.min_id or window.since_id
    if floor is None:
        page = read(window.max_id, window.limit)
        posts, more = page.posts, page.next_cursor is not None
    else:
        above, older = _walk(read, window.max_id, floor)
        # `min_id`: the page right above it, still newest first.
        posts = above[-window.limit :] if window.min_id is not None else above[: window.limit]
        more = older or len(above) > len(posts)
    items = statuses_of(
        posts, request.user, base_of(request), context=context, known=_reader(request)
    )
    ids = link_id or (lambda post, status: status["id"])
    return paging.paged(
        request,
        items,
        first_id=ids(posts[0], items[0]) if items else None,
        last_id=ids(posts[-1], items[-1]) if items else None,
        more=more,
    )


@api_view(["GET"], scope="read:statuses", user=True)
def home(request: HttpRequest, params: Params) -> JsonResponse:
    """The news feed (timelines' `news_page`): delivered posts, pulled
    authors' and followed tags' merged, visibility, blocks, mutes and home
    filters decided when read."""
    viewer = request.user
    return timeline(
        request, params, lambda before, limit: news_page(viewer, before, limit), "home"
    )


def _reader(request: HttpRequest) -> list:
    """The reader, read with the token: their own statuses ask no account read."""
    return [request.user] if request.user.is_authenticated else []


def _empty(request: HttpRequest) -> JsonResponse:
    return paging.paged(request, [], first_id=None, last_id=None, more=False)


@api_view(["GET"], scope="read:statuses", user=False)
def public(request: HttpRequest, params: Params) -> JsonResponse:
    """Every public post (an app's token too): the tag page's rules
    without a tag. Everyone here is local: `remote=true` is empty."""
    if params.boolean("remote"):
        return _empty(request)
    viewer, only_media = request.user, params.boolean("only_media")
    return timeline(
        request,
        params,
        lambda before, limit: discovery.public_page(viewer, before, limit, only_media=only_media),
        "public",
    )


@api_view(["GET"], scope="read:statuses", user=False)
def tag(request: HttpRequest, params: Params, hashtag: str) -> JsonResponse:
    """The tag page's posts (`any[]`, `all[]` and `none[]` are ignored:
    the page shows one tag). `remote=true` is empty; `only_media` keeps the
    photos of each page."""
    folded = words.clean_tag(hashtag)
    if folded is None:
        raise Http404
    if params.boolean("remote"):
        return _empty(request)
    viewer, only_media = request.user, params.boolean("only_media")

    def read(before: Cursor | None, limit: int) -> FeedPage:
        page = discovery.tag_page(folded, viewer, before, limit)
        if only_media:
            page.posts = [post for post in page.posts if post.get("type") == "photo"]
        return page

    return timeline(request, params, read, "public")


@api_view(["GET"], scope=("read:lists", "read:statuses"), user=True)
def list_timeline(request: HttpRequest, params: Params, list_id: str) -> JsonResponse:
    """Posts by the members of one of the reader's circles, as the reader
    may see them (timelines' `circle_page`)."""
    viewer = request.user
    circle = list_ids.circle_of(viewer, list_id)
    if circle is None:
        raise Http404
    return timeline(
        request, params, lambda before, limit: circle_page(viewer, circle, before, limit), "home"
    )


# --- Bookmarks and favourites -----------------------------------------------


def _mark_cursor(post: dict, status: dict) -> str:
    """A mark's cursor: its (ts, _id), the post's place in the list."""
    return position(post).encode()


def _marked_list(request: HttpRequest, params: Params, read: Read) -> JsonResponse:
    """The reader's bookmarks or likes, newest marked first, paged as a
    timeline. Their ids in the Link header are opaque cursors (the mark's
    time and id), as Mastodon's are the marks' own ids, not status ids."""
    return timeline(request, params, read, None, parse=Cursor.decode, link_id=_mark_cursor)


@api_view(["GET"], scope="read:bookmarks", user=True)
def bookmarks(request: HttpRequest, params: Params) -> JsonResponse:
    """The bookmarks page's list (feeds' `bookmarks_page`)."""
    viewer = request.user
    return _marked_list(request, params, lambda before, n: bookmarks_page(viewer, before, n))


@api_view(["GET"], scope="read:favourites", user=True)
def favourites(request: HttpRequest, params: Params) -> JsonResponse:
    """The reader's likes, newest first (feeds' `liked_page`)."""
    viewer = request.user
    return _marked_list(request, params, lambda before, n: liked_page(viewer, before, n))
