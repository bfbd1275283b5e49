"""Accounts (docs.joinmastodon.org/methods/accounts): who a person is, how
the reader stands to them, and the follow, block and mute actions, through
the same selectors and services as the profile pages (docs/api.md#accounts)."""

from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.account import account
from api.entities.relationship import relationship
from api.entities.status import statuses as statuses_of
from api.http import ApiError, api_view
from api.params import Params
from api.views.common import (
    ACCOUNTS_DEFAULT,
    ACCOUNTS_MAX,
    base_of,
    handles_page,
    person_or_404,
    status_cursor,
)
from federation import lookup as federated
from profiles import selectors as people
from profiles import services
from profiles.documents import User
from profiles.forms import ProfileForm
from socialsite.ids import parse_handle
from timelines.selectors.pages import position, wall_page

#: At most this many ids in one `relationships` question.
RELATIONSHIPS_MAX = 80


def relationships_of(viewer: User, handles: list[str]) -> list[dict]:
    """The Relationship of each active one of `handles`, in order: four
    indexed reads whatever their number (who is active, the edges both
    ways, who blocked the viewer)."""
    known = people.active_among(handles)
    ordered = [handle for handle in dict.fromkeys(handles) if handle in known]
    if not ordered:
        return []
    following = people.followed_among(viewer.handle, ordered)
    followed_by = people.followers_among(viewer.handle, ordered)
    blocked_by = people.blockers_among(viewer.handle, ordered)
    requested = federated.follows_requested(viewer.handle, ordered)
    return [
        relationship(
            handle,
            following=handle in following,
            followed_by=handle in followed_by,
            blocking=handle in viewer.blocked,
            blocked_by=handle in blocked_by,
            muting=handle in viewer.muted,
            requested=handle in requested,
        )
        for handle in ordered
    ]


@api_view(["GET"], scope=("read:accounts", "profile"), user=True)
def verify_credentials(request: HttpRequest, params: Params) -> dict:
    return account(request.user, base_of(request), source=True)


@api_view(
    ["PATCH"],
    scope="write:accounts",
    user=True,
    limit=("profile_edit", "RATELIMIT_PROFILE_EDIT"),
)
def update_credentials(request: HttpRequest, params: Params) -> dict:
    """`display_name` and `note` (the bio), checked by the profile page's
    own form; what is not sent stays as it is."""
    user = request.user
    profile = user.profile
    data = {
        "name": user.name,
        "bio": profile.bio,
        "location": profile.location,
        "interests": ", ".join(profile.interests),
        "website": profile.website,
    }
    if (name := params.get("display_name")) is not None:
        data["name"] = name
    if (note := params.get("note")) is not None:
        data["bio"] = note
    form = ProfileForm(data)
    if not form.is_valid():
        first = next(iter(form.errors.values()))[0]
        raise ApiError(422, f"Validation failed: {first}")
    cleaned = {key: value for key, value in form.cleaned_data.items() if key != "messages_from"}
    services.profile_update(user=user, **cleaned)
    return account(user, base_of(request), source=True)


@api_view(["GET"], scope="read:accounts", user=None)
def detail(request: HttpRequest, params: Params, handle: str) -> dict:
    return account(person_or_404(handle), base_of(request))


@api_view(["GET"], scope="read:accounts", user=None)
def lookup(request: HttpRequest, params: Params) -> dict:
    """`acct` is a handle, with or without `@`, or `handle@our-host`."""
    acct = (params.get("acct") or "").strip().lstrip("@")
    name, _, domain = acct.partition("@")
    if domain and domain.lower() != request.get_host().lower():
        raise Http404
    return account(person_or_404(name), base_of(request))


@api_view(["GET"], scope="read:follows", user=True)
def relationships(request: HttpRequest, params: Params) -> list:
    handles = [h for value in params.getlist("id") if (h := parse_handle(value))]
    return relationships_of(request.user, handles[:RELATIONSHIPS_MAX])


def _graph_action(request: HttpRequest, handle: str, act: Callable[[User, User], Any]) -> dict:
    person = person_or_404(handle)
    try:
        act(request.user, person)
    except services.GraphError as exc:
        raise ApiError(422, str(exc)) from exc
    except services.UnknownUser as exc:
        raise Http404 from exc
    return relationships_of(request.user, [person.handle])[0]


FOLLOW_LIMIT = ("follow", "RATELIMIT_FOLLOW")
MUTE_LIMIT = ("mute", "RATELIMIT_MUTE")


@api_view(["POST"], scope="write:follows", user=True, limit=FOLLOW_LIMIT)
def follow(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request,
        handle,
        lambda me, them: services.follow_create(
            follower=me, followee=them.handle, circles=[], target=them
        ),
    )


@api_view(["POST"], scope="write:follows", user=True, limit=FOLLOW_LIMIT)
def unfollow(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request,
        handle,
        lambda me, them: services.follow_delete(follower=me.handle, followee=them.handle),
    )


@api_view(["POST"], scope="write:blocks", user=True, limit=FOLLOW_LIMIT)
def block(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request, handle, lambda me, them: services.block_create(blocker=me, blocked=them.handle)
    )


@api_view(["POST"], scope="write:blocks", user=True, limit=FOLLOW_LIMIT)
def unblock(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request, handle, lambda me, them: services.block_delete(blocker=me, blocked=them.handle)
    )


@api_view(["POST"], scope="write:mutes", user=True, limit=MUTE_LIMIT)
def mute(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request, handle, lambda me, them: services.mute_create(user=me, handle=them.handle)
    )


@api_view(["POST"], scope="write:mutes", user=True, limit=MUTE_LIMIT)
def unmute(request: HttpRequest, params: Params, handle: str) -> dict:
    return _graph_action(
        request, handle, lambda me, them: services.mute_delete(user=me, handle=them.handle)
    )


def _people_list(request: HttpRequest, params: Params, handle: str, which: str) -> JsonResponse:
    """A person's followers or followings, in handle order (the `(_f, _t)`
    index's): `max_id` pages on, `min_id`/`since_id` back."""
    person = person_or_404(handle)
    window = paging.window(params, parse_handle, default=ACCOUNTS_DEFAULT, maximum=ACCOUNTS_MAX)
    read = people.followers_page if which == "followers" else people.following_page
    before = window.min_id or window.since_id
    page = read(
        person.handle,
        None if before else window.max_id,
        before=before,
        size=window.limit,
        fields=people.ACCOUNT_FIELDS,
    )
    base = base_of(request)
    items = [account(user, base) for user in page.items]
    return paging.paged(
        request,
        items,
        first_id=page.items[0].handle if page.items else None,
        last_id=page.next_cursor,
        more=page.next_cursor is not None,
    )


@api_view(["GET"], scope="read:accounts", user=None)
def followers(request: HttpRequest, params: Params, handle: str) -> JsonResponse:
    return _people_list(request, params, handle, "followers")


@api_view(["GET"], scope="read:accounts", user=None)
def following(request: HttpRequest, params: Params, handle: str) -> JsonResponse:
    return _people_list(request, params, handle, "following")


def _own_list(request: HttpRequest, params: Params, handles: list[str]) -> JsonResponse:
    """A page of the reader's own block or mute list (on their document,
    loaded with the token): no read but the page's accounts."""
    window = paging.window(params, parse_handle, default=ACCOUNTS_DEFAULT, maximum=ACCOUNTS_MAX)
    return handles_page(request, window, handles)


@api_view(["GET"], scope="read:blocks", user=True)
def blocks(request: HttpRequest, params: Params) -> JsonResponse:
    return _own_list(request, params, list(request.user.blocked))


@api_view(["GET"], scope="read:mutes", user=True)
def mutes(request: HttpRequest, params: Params) -> JsonResponse:
    return _own_list(request, params, list(request.user.muted))


# --- A person's statuses (docs/api.md#statuses) ----------------------------


@api_view(["GET"], scope="read:statuses", user=None)
def statuses(request: HttpRequest, params: Params, handle: str) -> JsonResponse:
    """The person's wall as the reader sees it (timelines' `wall_page`):
    `max_id` pages back, `min_id`/`since_id` keep the newest page's statuses
    above it; `pinned`, `only_media`, `exclude_reblogs` (`exclude_replies`
    changes nothing: a reply is a comment, never on a wall)."""
    person = person_or_404(handle)
    viewer = request.user
    window = paging.window(params, status_cursor, default=20, maximum=40)
    if viewer.is_authenticated and viewer.handle in (person.blocked or ()):
        return paging.paged(request, [], first_id=None, last_id=None, more=False)
    before = None if (window.min_id or window.since_id) else window.max_id
    page = wall_page(person, viewer, before)
    if params.boolean("pinned"):
        shown = page.pinned if before is None else []
        more = False
    else:
        shown = page.posts
        above = window.min_id or window.since_id
        if above is not None:
            shown = [post for post in shown if position(post) > above]
        if params.boolean("only_media"):
            shown = [post for post in shown if post.get("type") == "photo"]
        if params.boolean("exclude_reblogs"):
            shown = [post for post in shown if not post.get("reposted_by")]
        more = page.next_cursor is not None or len(shown) > window.limit
        shown = shown[: window.limit]
    # A wall is "public" to the reader's keyword filters, as on the page.
    items = statuses_of(shown, viewer, base_of(request), context="public", known=[person])
    return paging.paged(
        request,
        items,
        first_id=items[0]["id"] if items else None,
        last_id=items[-1]["id"] if items else None,
        more=more and not params.boolean("pinned"),
    )
