"""The news feed, the incoming page, the wall on a profile page and the
news feed's "n new posts". Thin: parse, call a selector, render."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from feeds.selectors import suggestions
from feeds.selectors.cards import cards
from feeds.selectors.pages import FeedPage
from feeds.views.pages import composer, cursor_param
from profiles.documents import User
from socialsite.cursors import Cursor
from socialsite.http import login_required
from timelines.selectors import newposts
from timelines.selectors import pages as selectors


@login_required
def feed(request: HttpRequest) -> HttpResponse:
    page = selectors.news_page(request.user, cursor_param(request))
    context = {
        "page": page,
        "cards": cards(page.posts, request.user, bookmark_state=True, context="home"),
        "form": composer(request),
    }
    # For "n new posts": where the list starts, and how often to ask.
    context.update(since=newposts.since_of(page.posts), poll_ms=settings.FEED_NEW_POLL_MS)
    if "before" not in request.GET and not page.posts:
        # A new account's feed, or one with nothing in it: people to follow.
        context["suggestions"] = suggestions.people_to_follow(request.user)
    return render(request, "timelines/feed.html", context)


@require_safe
def new_posts(request: HttpRequest) -> HttpResponse:
    """`GET /feed/new/?since=<cursor>`: how many posts the feed would show
    above the cursor, for the page's "n new posts" (docs/features.md#interactions). JSON for a
    script, so no login redirect; never cached, since it changes by itself."""
    body: dict[str, object]
    if not request.user.is_authenticated:
        body, status = {"error": "Sign in to see your feed."}, 403
    elif (since := Cursor.decode(request.GET.get("since"))) is None:
        body, status = {"error": "`since` must be a cursor from the feed page."}, 400
    else:
        found = newposts.new_posts(request.user, since)
        body, status = {"count": found.count, "more": found.more}, 200
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    return response


@login_required
def incoming(request: HttpRequest) -> HttpResponse:
    page = selectors.incoming_page(request.user, cursor_param(request))
    page_cards = cards(page.posts, request.user, bookmark_state=True, context="home")
    return render(request, "timelines/incoming.html", {"page": page, "cards": page_cards})


def wall_context(request: HttpRequest, person: User) -> dict:
    """The wall on `/u/<handle>/` (added to the profile page in timelines/apps.py,
    through socialsite/extensions.py).

    Blocks win (docs/privacy.md): a viewer who blocked the owner sees none of
    the wall, and nobody writes on a wall across a block, either way.
    """
    viewer = request.user
    before = cursor_param(request)
    hidden = viewer.is_authenticated and person.handle in viewer.blocked
    page = FeedPage([], None) if hidden else selectors.wall_page(person, viewer, before)
    # The first page's pinned posts come first, marked (docs/discovery.md#pins).
    page_cards = cards(page.pinned + page.posts, viewer, bookmark_state=True, context="public")
    for card in page_cards[: len(page.pinned)]:
        card.pinned = True
    context = {
        "wall_template": "timelines/_wall.html",
        "wall_hidden": hidden,
        "page": page,
        "cards": page_cards,
        # The wall's public posts as Atom (feeds/views/atom.py), unless it is hidden.
        "atom_url": None if hidden else reverse("feeds:atom", args=[person.handle]),
    }
    blocked = hidden or (viewer.is_authenticated and viewer.handle in person.blocked)
    # A person of another server has no wall here to write on (docs/federation.md).
    if getattr(request, "composer_form", None) is not None or (
        viewer.is_authenticated and not blocked and not person.domain
    ):
        own = viewer.handle == person.handle
        context["form"] = composer(request, **({} if own else {"to": person.handle}))
    return context
