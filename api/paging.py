"""Mastodon's paging over our keyset cursors (docs/api.md#paging).

A list endpoint takes `max_id` (older than / after), `since_id` (newer
than, newest first), `min_id` (just newer than, the page right above) and
`limit`, and answers a `Link` header built as Mastodon builds it:
`<...?max_id=LAST>; rel="next", <...?min_id=FIRST>; rel="prev"`, the
request's other query parameters kept. Ids are what the list is ordered
by: a post's ObjectId in hex (time-ordered, socialsite/cursors.py), a
handle for lists of people (their `(_f, _t)` index order). Clients treat
them as opaque and follow the links.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, JsonResponse

from api.http import ApiError
from api.params import Params

CURSORS = ("max_id", "since_id", "min_id")


@dataclass(frozen=True)
class Window[Id]:
    max_id: Id | None
    since_id: Id | None
    min_id: Id | None
    limit: int


def window[Id](
    params: Params, parse: Callable[[str], Id | None], *, default: int = 20, maximum: int = 40
) -> Window[Id]:
    """The page asked for. `limit` is clamped into 1..maximum as Mastodon
    clamps it (junk is the default); a cursor that is not an id of this
    list is a 400."""
    parsed: dict[str, Id | None] = {}
    for name in CURSORS:
        value = params.get(name)
        if value is None or value == "":
            parsed[name] = None
            continue
        cursor = parse(value)
        if cursor is None:
            raise ApiError(400, f"Invalid {name}")
        parsed[name] = cursor
    return Window(
        max_id=parsed["max_id"],
        since_id=parsed["since_id"],
        min_id=parsed["min_id"],
        limit=limit_of(params, default=default, maximum=maximum),
    )


def limit_of(params: Params, *, default: int, maximum: int) -> int:
    raw = (params.get("limit") or "").strip()
    if not raw.isascii() or not raw.lstrip("-").isdigit() or len(raw) > 6:
        return default
    return max(1, min(abs(int(raw)), maximum))


def link_header(request: HttpRequest, *, next_id: str | None, prev_id: str | None) -> str:
    """`Link` with `rel="next"` (when more follow) and `rel="prev"` (when
    the page has items), each the request's URL with its cursors replaced."""
    kept = [
        (name, value)
        for name, values in request.GET.lists()
        if name not in CURSORS
        for value in values
    ]
    base = request.build_absolute_uri(request.path)
    links = []
    if next_id is not None:
        links.append(f'<{base}?{urlencode([*kept, ("max_id", next_id)])}>; rel="next"')
    if prev_id is not None:
        links.append(f'<{base}?{urlencode([*kept, ("min_id", prev_id)])}>; rel="prev"')
    return ", ".join(links)


def paged(
    request: HttpRequest,
    items: list[Any],
    *,
    first_id: str | None,
    last_id: str | None,
    more: bool,
) -> JsonResponse:
    """A page of entities with its Link header: next when `more` follow
    after `last_id`, prev when the page is not empty."""
    response = JsonResponse(items, safe=False)
    link = link_header(
        request, next_id=last_id if more and items else None, prev_id=first_id if items else None
    )
    if link:
        response["Link"] = link
    return response
