"""Finding posts beyond the people one follows (docs/discovery.md): a tag's
page (`/tags/<tag>/`) and following it, the posts half of `/search/`,
`/explore/` (trending tags, popular posts, people to follow) and the
signed-out landing page. Thin: parse, call a selector, render."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from explore.selectors import discovery, popular, trends
from feeds import words
from feeds.selectors.cards import cards
from feeds.views.pages import cursor_param
from profiles.services import tags
from profiles.services.users import GraphError
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back


def tag_page(request: HttpRequest, tag: str) -> HttpResponse:
    folded = words.clean_tag(tag)
    if folded is None:
        raise Http404("That is not a tag.")
    page = discovery.tag_page(folded, request.user, cursor_param(request))
    page_cards = cards(page.posts, request.user, context="public")
    context = {"tag": folded, "page": page, "cards": page_cards}
    if request.user.is_authenticated:
        context["following"] = folded in request.user.followed_tags
    return render(request, "explore/tag.html", context)


def search_context(request: HttpRequest, query: str) -> dict[str, Any]:
    """The posts that match a search (hooked into `/search/` through
    explore/apps.py, socialsite/extensions.py): below the people, keyset on `?before=`."""
    if not query:
        return {}
    page = discovery.search_page(query, request.user, cursor_param(request))
    # "#coffee" (or "coffee" alone) names a tag too: its page is one tap away.
    named = [w for w in query.split() if w.startswith("#")] or query.split()[:1]
    tags = [tag for tag in dict.fromkeys(map(words.clean_tag, named)) if tag]
    return {
        "search_tags": tags,
        "posts_template": "explore/_post_results.html",
        "post_page": page,
        "post_cards": cards(page.posts, request.user, context="public"),
    }


def _tag_action(request: HttpRequest, tag: str, act: Callable[[str], str]) -> HttpResponse:
    """Follow or unfollow a tag: rate-limited as follows are, and back to the
    page the button was on."""
    folded = words.clean_tag(tag)
    if folded is None:
        raise Http404("That is not a tag.")
    fallback = reverse("explore:tag", args=[folded])
    try:
        ratelimit.hit("follow", [f"user:{request.user.handle}"], settings.RATELIMIT_FOLLOW)
    except ratelimit.RateLimited as exc:
        messages.error(request, str(exc))  # shown on the tag's page, answered 429
        response = tag_page(request, folded)
        response.status_code, response["Retry-After"] = 429, str(exc.retry_after)
        return response
    try:
        messages.success(request, act(folded))
    except GraphError as exc:
        messages.error(request, str(exc))
    return redirect_back(request, fallback)


@login_required
@require_POST
def tag_follow(request: HttpRequest, tag: str) -> HttpResponse:
    def act(folded: str) -> str:
        tags.tag_follow_create(user=request.user, tag=folded)
        return f"You follow #{folded}: its public posts join your news feed."

    return _tag_action(request, tag, act)


@login_required
@require_POST
def tag_unfollow(request: HttpRequest, tag: str) -> HttpResponse:
    def act(folded: str) -> str:
        tags.tag_follow_delete(user=request.user, tag=folded)
        return f"You no longer follow #{folded}."

    return _tag_action(request, tag, act)


def explore(request: HttpRequest) -> HttpResponse:
    """`/explore/`: the trending tags for this reader, the popular posts and
    people to follow (docs/discovery.md#explore), and, for moderators, the
    tags hidden from everyone's trends."""
    found = popular.explore(request.user)
    context: dict[str, object] = {
        "trends": trends.trending(request.user),
        "cards": cards(found.posts, request.user, context="public"),
        "people": found.people,
    }
    if request.user.is_authenticated and request.user.is_moderator:
        context["hidden_tags"] = trends.hidden_tags()
    return render(request, "explore/explore.html", context)


def home(request: HttpRequest) -> HttpResponse:
    """`/`: for a visitor, the landing page with a few recent public posts
    and the people who wrote them (docs/discovery.md#the-landing-page); a
    signed-in reader goes to their news feed."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    found = popular.landing()
    context = {"cards": cards(found.posts, request.user, context="public"), "people": found.people}
    return render(request, "home.html", context)
