"""Lists (docs.joinmastodon.org/methods/lists): the reader's circles
(docs/api.md#lists). Created, renamed and deleted, and their members placed
and taken out, through the services the circles page calls
(profiles/services/circles.py), counted against its limit
(`RATELIMIT_CIRCLES`); a list's id is kept by api/circles.py."""

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from django.http import Http404, HttpRequest, JsonResponse

from api import circles as list_ids
from api import paging
from api import scopes as scope_names
from api.entities.list import list_entity
from api.http import OUT_OF_SCOPE, ApiError, api_view, rate_limited
from api.params import Params
from api.views.common import ACCOUNTS_DEFAULT, ACCOUNTS_MAX, handles_page, person_or_404
from feeds.selectors.visibility import circles_placed_in
from profiles import selectors as people
from profiles import services
from profiles.documents import User
from socialsite.ids import parse_handle

CIRCLES_LIMIT = ("circles", "RATELIMIT_CIRCLES")
#: At most this many accounts placed or taken out in one request.
MEMBERS_MAX = 80


def _need(request: HttpRequest, scope: str) -> None:
    """The scope of this method, for a view whose methods need different ones."""
    if not scope_names.covers(request.grant.scopes, scope):
        raise ApiError(403, OUT_OF_SCOPE)


def _circle(owner: User, list_id: str) -> str:
    """The owner's circle with this list id: 404 for anyone else's, a
    deleted one's or a malformed id, as Mastodon answers."""
    circle = list_ids.circle_of(owner, list_id)
    if circle is None:
        raise Http404
    return circle


def _written(headers: dict[str, str], body: object) -> JsonResponse:
    """A write's answer, with the circles page's limit's headers."""
    response = JsonResponse(body, safe=False)
    for name, value in headers.items():
        response[name] = value
    return response


def _graph(act: Callable[[], object]) -> None:
    try:
        act()
    except services.GraphError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc


@api_view(["GET", "POST"], scope=None, user=True)
def lists(request: HttpRequest, params: Params) -> object:
    """GET: every circle of the reader, in their order. POST `title`: a new
    circle (`replies_policy` and `exclusive` are taken and ignored: a
    circle has neither)."""
    owner = request.user
    if request.method == "GET":
        _need(request, "read:lists")
        return [list_entity(lid, name) for name, lid in list_ids.list_ids(owner).items()]
    _need(request, "write:lists")
    headers = rate_limited(request, *CIRCLES_LIMIT)
    name = ""

    def create() -> None:
        nonlocal name
        name = services.circle_create(owner=owner, name=params.get("title") or "")

    _graph(create)
    return _written(headers, list_entity(list_ids.list_ids(owner)[name], name))


@api_view(["GET", "PUT", "DELETE"], scope=None, user=True)
def detail(request: HttpRequest, params: Params, list_id: str) -> object:
    """GET the list; PUT `title` renames the circle (its id stays); DELETE
    deletes it (its members stay followed, as on the page)."""
    owner = request.user
    if request.method == "GET":
        _need(request, "read:lists")
        return list_entity(list_id, _circle(owner, list_id))
    _need(request, "write:lists")
    circle = _circle(owner, list_id)
    headers = rate_limited(request, *CIRCLES_LIMIT)
    if request.method == "DELETE":
        _graph(lambda: services.circle_delete(owner=owner, name=circle))
        list_ids.list_id_forget(owner=owner.handle, circle=circle)
        return _written(headers, {})
    title = params.get("title")
    new = circle if title is None else title
    renamed = circle

    def rename() -> None:
        nonlocal renamed
        # The rename announces `circle_renamed`; api/receivers.py moves the id.
        renamed = services.circle_rename(owner=owner, old=circle, new=new)

    _graph(rename)
    return _written(headers, list_entity(list_id, renamed))


def _handles(params: Params) -> list[str]:
    handles = [h for value in params.getlist("account_ids") if (h := parse_handle(value))]
    if not handles:
        raise ApiError(422, "Validation failed: account_ids is empty")
    return list(dict.fromkeys(handles))[:MEMBERS_MAX]


@api_view(["GET", "POST", "DELETE"], scope=None, user=True)
def accounts(request: HttpRequest, params: Params, list_id: str) -> object:
    """GET the circle's members in handle order (paged as lists of
    accounts; `limit=0` all of them, as Mastodon). POST `account_ids[]`
    places people the reader follows in it (anyone else: 422, as the page
    refuses and as Mastodon requires); DELETE takes them out (the follow
    stays)."""
    owner = request.user
    if request.method == "GET":
        _need(request, "read:lists")
        circle = _circle(owner, list_id)
        return _members_page(request, params, circle)
    _need(request, "write:lists")
    circle = _circle(owner, list_id)
    handles = _handles(params)
    headers = rate_limited(request, *CIRCLES_LIMIT)
    if request.method == "POST":
        # All of them or none: anyone the reader does not follow refuses the
        # request before a member is placed (one read of the edges).
        followed = people.followed_among(owner.handle, handles)
        if stranger := next((h for h in handles if h not in followed), None):
            raise ApiError(
                422, f"Validation failed: Follow @{stranger} first to add them to a circle."
            )
    for handle in handles:
        if request.method == "POST":
            _graph(partial(services.circle_add_member, owner=owner, name=circle, member=handle))
        else:
            services.circle_remove_member(owner=owner, name=circle, member=handle)
    return _written(headers, {})


def _members_page(request: HttpRequest, params: Params, circle: str) -> JsonResponse:
    """Members in handle order from the `(_f, _g, _t)` index's one read;
    `max_id` pages on, `min_id`/`since_id` back."""
    everyone = sorted(people.circle_member_handles(request.user.handle, circle))
    window = paging.window(params, parse_handle, default=ACCOUNTS_DEFAULT, maximum=ACCOUNTS_MAX)
    if (params.get("limit") or "").strip() == "0":
        # Mastodon's `limit=0`: every member at once (a circle is a page's worth).
        window = replace(window, limit=max(1, len(everyone)))
    return handles_page(request, window, everyone)


@api_view(["GET"], scope="read:lists", user=True)
def account_lists(request: HttpRequest, params: Params, handle: str) -> list:
    """The reader's circles that hold this account (none when the reader
    does not follow them): one read of the reader's edge to them."""
    person = person_or_404(handle)
    placed = circles_placed_in(person.handle, [request.user.handle]).get(request.user.handle, [])
    ids = list_ids.list_ids(request.user)
    return [list_entity(ids[name], name) for name in ids if name in placed]
