"""Search (docs.joinmastodon.org/methods/search, accounts#search): people,
tags and posts through the `/search/` page's own selectors, with its
privacy (docs/api.md#search): nobody the reader blocked or who blocked them,
no muted author's posts, no circle post but the reader's own, nothing
removed, and the reader's "public" keyword filters applied.

Mastodon pages a search by `offset`; our selectors page by keyset, so an
offset reads the rows before it too, and is held to SEARCH_OFFSET_MAX.
"""

from django.http import HttpRequest

from api import paging
from api.entities.account import account
from api.entities.discovery import tag as tag_entity
from api.entities.status import parse_status_id
from api.entities.status import statuses as statuses_of
from api.http import ApiError, api_view
from api.params import Params
from api.views.common import base_of
from explore.selectors import discovery, trends
from federation import lookup as federated
from feeds import words
from feeds.selectors import pages as post_pages
from profiles import selectors as people
from socialsite.clock import aware
from socialsite.cursors import Cursor
from socialsite.ids import parse_handle

#: The longest query read (the site's search box takes 80 characters).
QUERY_MAX = 200
#: The furthest a search pages by `offset`.
SEARCH_OFFSET_MAX = 200
TYPES = ("accounts", "hashtags", "statuses")


def _offset(params: Params) -> int:
    raw = (params.get("offset") or "0").strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise ApiError(400, "Invalid offset")
    offset = int(raw)
    if offset > SEARCH_OFFSET_MAX:
        raise ApiError(400, f"offset is at most {SEARCH_OFFSET_MAX} here")
    return offset


def _query(params: Params) -> str:
    return " ".join((params.get("q") or "")[:QUERY_MAX].split())


def found_accounts(
    request: HttpRequest,
    query: str,
    *,
    limit: int,
    offset: int,
    following: bool,
    resolve: bool = False,
) -> list[dict]:
    """People whose handle or name starts with the query, as `/search/`
    finds them (blocks both ways left out); `following` keeps only those
    the reader follows among the rows read. `@name@domain` of another
    server is that person, looked up there when `resolve` (docs/federation.md)."""
    # "@ann@our-host" is ann.
    name, _, domain = query.lstrip("@").partition("@")
    if domain and domain.lower() not in (request.get_host().lower(), federated.domain()):
        if offset or not request.user.is_authenticated:
            return []
        person = federated.person(query, resolve=resolve, viewer=request.user)
        return [account(person, base_of(request))] if person else []
    if not name:
        return []
    page = people.search_people(name, None, viewer=request.user, size=offset + limit)
    handles = [person.handle for person in page.items[offset:]]
    if following and handles:
        if not request.user.is_authenticated:
            return []
        followed = people.followed_among(request.user.handle, handles)
        handles = [handle for handle in handles if handle in followed]
    base = base_of(request)
    return [account(user, base) for user in people.accounts(handles)]


def found_hashtags(request: HttpRequest, query: str, *, offset: int) -> list[dict]:
    """The tags the query names, as `/search/` offers them: its `#words`,
    or its first word (we keep no table of tags to match prefixes in)."""
    named = [w for w in query.split() if w.startswith("#")] or query.split()[:1]
    found = [t for t in dict.fromkeys(map(words.clean_tag, named)) if t][offset:]
    history = trends.tag_history(found)
    base = base_of(request)
    user = request.user
    return [
        tag_entity(
            name,
            base,
            history=history[name],
            following=name in user.followed_tags if user.is_authenticated else None,
        )
        for name in found
    ]


def _max_cursor(value: str | None) -> Cursor | None:
    if not value:
        return None
    parsed = parse_status_id(value)
    post = post_pages.post_by_id(parsed[0]) if parsed and parsed[1] is None else None
    if post is None:
        raise ApiError(400, "Invalid max_id")
    return Cursor(aware(post["ts"]), post["_id"])


def found_statuses(
    request: HttpRequest, params: Params, query: str, *, limit: int, offset: int
) -> list[dict]:
    """Posts holding every word of the query, as `/search/`'s posts half
    finds them; `account_id` only that person's, `max_id` older ones."""
    if params.get("min_id"):
        raise ApiError(422, "min_id is not supported in a search here: use max_id or offset")
    author = None
    if raw_author := params.get("account_id"):
        author = parse_handle(raw_author)
        if author is None:
            raise ApiError(400, "Invalid account_id")
    before = _max_cursor(params.get("max_id"))
    if not query:
        return []
    page = discovery.search_page(query, request.user, before, author=author, limit=offset + limit)
    return statuses_of(page.posts[offset : offset + limit], request.user, base_of(request))


@api_view(["GET"], scope="read:search", user=None)
def search(request: HttpRequest, params: Params) -> dict:
    """`GET /api/v2/search`: `q`, `type`, `limit` (20, at most 40),
    `offset`, `following`, `account_id`, `max_id`. `resolve` looks
    `@name@domain` up on that server (docs/federation.md)."""
    kind = params.get("type") or None
    if kind is not None and kind not in TYPES:
        raise ApiError(400, f"type is one of {', '.join(TYPES)}")
    query = _query(params)
    limit = paging.limit_of(params, default=20, maximum=40)
    offset = _offset(params)
    result: dict = {"accounts": [], "statuses": [], "hashtags": []}
    if kind in (None, "accounts"):
        result["accounts"] = found_accounts(
            request,
            query,
            limit=limit,
            offset=offset,
            following=params.boolean("following"),
            resolve=params.boolean("resolve"),
        )
    if kind in (None, "hashtags"):
        result["hashtags"] = found_hashtags(request, query, offset=offset)[:limit]
    if kind in (None, "statuses"):
        result["statuses"] = found_statuses(request, params, query, limit=limit, offset=offset)
    return result


@api_view(["GET"], scope="read:accounts", user=True)
def account_search(request: HttpRequest, params: Params) -> list:
    """`GET /api/v1/accounts/search`: `q`, `limit` (40, at most 80),
    `offset`, `following`."""
    return found_accounts(
        request,
        _query(params),
        limit=paging.limit_of(params, default=40, maximum=80),
        offset=_offset(params),
        following=params.boolean("following"),
        resolve=params.boolean("resolve"),
    )
