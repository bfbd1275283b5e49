"""Tags and trends (docs.joinmastodon.org/methods/tags, followed_tags,
trends): a tag's Tag, following it through the tag page's own services,
the reader's followed tags, and the explore page's trends
(docs/api.md#tags-and-trends)."""

from django.conf import settings
from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api.entities.discovery import tag as tag_entity
from api.entities.status import statuses as statuses_of
from api.http import ApiError, api_view
from api.params import Params
from api.views.common import base_of
from explore.selectors import popular, trends
from feeds import words
from profiles.services import tags as tag_services
from profiles.services.users import GraphError
from socialsite.clock import now

FOLLOW_LIMIT = ("follow", "RATELIMIT_FOLLOW")
#: Mastodon's page of followed tags: 100 by default, at most 200.
FOLLOWED_DEFAULT, FOLLOWED_MAX = 100, 200
#: Mastodon's page of trends: 10 by default (tags and statuses 20 at most).
TRENDS_DEFAULT, TRENDS_MAX = 10, 20


def _folded(name: str) -> str:
    folded = words.clean_tag(name)
    if folded is None:
        raise Http404
    return folded


def _following(request: HttpRequest, folded: str) -> bool | None:
    user = request.user
    return folded in user.followed_tags if user.is_authenticated else None


def _one(request: HttpRequest, folded: str) -> dict:
    history = trends.tag_history([folded])[folded]
    return tag_entity(
        folded, base_of(request), history=history, following=_following(request, folded)
    )


@api_view(["GET"], scope="read:statuses", user=None)
def tag(request: HttpRequest, params: Params, name: str) -> dict:
    """Any tag a post could carry has a page here, so any valid name
    answers (its history empty where nobody used it this week)."""
    return _one(request, _folded(name))


@api_view(["POST"], scope="write:follows", user=True, limit=FOLLOW_LIMIT)
def tag_follow(request: HttpRequest, params: Params, name: str) -> dict:
    folded = _folded(name)
    try:
        tag_services.tag_follow_create(user=request.user, tag=folded)
    except GraphError as exc:
        raise ApiError(422, str(exc)) from exc
    return _one(request, folded)


@api_view(["POST"], scope="write:follows", user=True, limit=FOLLOW_LIMIT)
def tag_unfollow(request: HttpRequest, params: Params, name: str) -> dict:
    folded = _folded(name)
    tag_services.tag_follow_delete(user=request.user, tag=folded)
    return _one(request, folded)


@api_view(["GET"], scope="read:follows", user=True)
def followed_tags(request: HttpRequest, params: Params) -> JsonResponse:
    """The reader's followed tags in name order (the list is on their
    document, read with the token): `max_id` pages on, `min_id` and
    `since_id` back; an id is the tag's name."""
    window = paging.window(params, words.clean_tag, default=FOLLOWED_DEFAULT, maximum=FOLLOWED_MAX)
    ordered = sorted(set(request.user.followed_tags))
    before = window.min_id or window.since_id
    if before:
        chosen = [t for t in ordered if t < before][-window.limit :]
        more = bool(chosen)
    else:
        after = [t for t in ordered if window.max_id is None or t > window.max_id]
        chosen, more = after[: window.limit], len(after) > window.limit
    history = trends.tag_history(chosen)
    base = base_of(request)
    items = [tag_entity(t, base, history=history[t], following=True) for t in chosen]
    return paging.paged(
        request,
        items,
        first_id=chosen[0] if chosen else None,
        last_id=chosen[-1] if chosen else None,
        more=more,
    )


def _offset(params: Params) -> int:
    raw = (params.get("offset") or "0").strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise ApiError(400, "Invalid offset")
    return int(raw)


@api_view(["GET"], scope=None, user=None)
def trending_tags(request: HttpRequest, params: Params) -> list:
    """The explore page's trending tags for this reader (their blocked and
    muted authors taken out), `offset` and `limit` over TREND_LIMIT."""
    limit = paging.limit_of(params, default=TRENDS_DEFAULT, maximum=TRENDS_MAX)
    offset = _offset(params)
    if offset >= settings.TREND_LIMIT:
        return []
    shown = trends.trending(request.user, limit=settings.TREND_LIMIT)[offset : offset + limit]
    names = [trend.tag for trend in shown]
    history = trends.tag_history(names)
    base = base_of(request)
    return [
        tag_entity(name, base, history=history[name], following=_following(request, name))
        for name in names
    ]


@api_view(["GET"], scope=None, user=None)
def trending_statuses(request: HttpRequest, params: Params) -> list:
    """The explore page's popular posts, as this reader may see them."""
    limit = paging.limit_of(params, default=20, maximum=40)
    offset = _offset(params)
    at = now()
    # The explore page's ranking, without its people to follow.
    posts = popular.popular_posts(request.user, popular.recent_window(at), at=at)
    posts = posts[offset : offset + limit]
    return statuses_of(posts, request.user, base_of(request))


@api_view(["GET"], scope=None, user=None)
def trending_links(request: HttpRequest, params: Params) -> list:
    """We rank no links: an empty list, as the contract asks."""
    _offset(params)
    return []
