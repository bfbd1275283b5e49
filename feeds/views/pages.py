"""Feed, wall, incoming and post pages, and a photo post's files. Thin:
parse, call a selector, render. Writing a post: feeds/views/posts.py."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from feeds.documents import PUBLIC
from feeds.forms import PostForm
from feeds.selectors import newposts, suggestions
from feeds.selectors import pages as selectors
from feeds.selectors import posts as feed_posts
from feeds.selectors.cards import cards
from feeds.selectors.visibility import placed_in_from_edges
from feeds.services import photos
from profiles import auth
from profiles.documents import User
from socialsite import drafts, extensions
from socialsite.cursors import Cursor
from socialsite.http import login_required
from socialsite.ids import object_id_or_404


def _cursor(request) -> Cursor | None:
    raw = request.GET.get("before")
    if raw is None:
        return None
    cursor = Cursor.decode(raw)
    if cursor is None:
        raise Http404("Bad page cursor.")
    return cursor


def _composer(request, **initial) -> PostForm:
    """A blank composer, or the one a failed post left (`post_create` renders
    the page it came from again, with its errors and what was typed)."""
    failed = getattr(request, "composer_form", None)
    if failed is not None:
        return failed
    kept = drafts.take(request, reverse("feeds:create"))
    if kept:
        # Written before the session ended (socialsite/drafts.py): the words
        # are back in the composer, to post now.
        data = {name: values if name == "circles" else values[-1] for name, values in kept.items()}
        initial = {**initial, **data}
        messages.info(
            request, "You were logged out while you wrote: your post is below, not sent yet."
        )
    return PostForm(owner_circles=request.user.circles, initial={"circles": [PUBLIC], **initial})


@login_required
def feed(request):
    page = selectors.news_page(request.user, _cursor(request))
    context = {
        "page": page,
        "cards": cards(page.posts, request.user, bookmark_state=True, context="home"),
        "form": _composer(request),
    }
    # For "n new posts": where the list starts, and how often to ask.
    context.update(since=newposts.since_of(page.posts), poll_ms=settings.FEED_NEW_POLL_MS)
    if "before" not in request.GET and not page.posts:
        # A new account's feed, or one with nothing in it: people to follow.
        context["suggestions"] = suggestions.people_to_follow(request.user)
    return render(request, "feeds/feed.html", context)


@require_safe
def new_posts(request):
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
def incoming(request):
    page = selectors.incoming_page(request.user, _cursor(request))
    page_cards = cards(page.posts, request.user, bookmark_state=True, context="home")
    return render(request, "feeds/incoming.html", {"page": page, "cards": page_cards})


def wall_context(request, person) -> dict:
    """The wall on `/u/<handle>/` (added to the profile page in feeds/apps.py,
    through socialsite/extensions.py).

    Blocks win (docs/privacy.md): a viewer who blocked the owner sees none of
    the wall, and nobody writes on a wall across a block, either way.
    """
    viewer = request.user
    before = _cursor(request)
    hidden = viewer.is_authenticated and person.handle in viewer.blocked
    page = selectors.FeedPage([], None) if hidden else selectors.wall_page(person, viewer, before)
    # The first page's pinned posts come first, marked (docs/discovery.md#pins).
    page_cards = cards(page.pinned + page.posts, viewer, bookmark_state=True, context="public")
    for card in page_cards[: len(page.pinned)]:
        card.pinned = True
    context = {
        "wall_template": "feeds/_wall.html",
        "wall_hidden": hidden,
        "page": page,
        "cards": page_cards,
        # The wall's public posts as Atom (feeds/views/atom.py), unless it is hidden.
        "atom_url": None if hidden else reverse("feeds:atom", args=[person.handle]),
    }
    blocked = hidden or (viewer.is_authenticated and viewer.handle in person.blocked)
    if getattr(request, "composer_form", None) is not None or (
        viewer.is_authenticated and not blocked
    ):
        own = viewer.handle == person.handle
        context["form"] = _composer(request, **({} if own else {"to": person.handle}))
    return context


def visible_post_and_author(request, post_id) -> tuple[dict, User | None]:
    """The post the viewer may see (else a 404), and its author's document.

    Read in two round trips with the session: the post first, then the
    session's own read brings the author's document and the follow edges
    between them and the viewer along (socialsite/sessions.py), so neither a
    circle post's graph check nor a like's or a follow's block check costs
    another read. The author is None when the session was loaded already
    (or there is none, for an anonymous visitor), and for an inactive author."""
    post = selectors.post_by_id(object_id_or_404(post_id))
    if post is None:
        raise Http404("No such post.")
    author = post["by"]["id"]
    ask = getattr(request.session, "also_read_users", None)
    riding = bool(ask is not None and ask([author]))
    placed_in = None
    viewer = request.user  # the session's read, with the author along if asked
    if riding and viewer.is_authenticated:
        edges = auth.page_edges(request, author) or []
        placed_in = placed_in_from_edges(viewer.handle, author, edges)
    shown = selectors.shown_to(post, viewer, placed_in=placed_in)
    if shown is None:
        raise Http404("No such post.")
    return shown, auth.page_user(request, author) if riding else None


def visible_post_or_404(request, post_id):
    return visible_post_and_author(request, post_id)[0]


def post_detail(request, post_id):
    post = visible_post_or_404(request, post_id)
    card = cards([post], request.user, repost_state=True, bookmark_state=True, context="thread")[0]
    context: dict[str, object] = {"card": card}
    if card.filtered is not None and card.filtered.action == "hide":
        # The viewer's "thread" filter hides it: the page says so instead of
        # showing it (docs/privacy.md#keyword-filters).
        context["hidden_by"] = card.filtered
    # Other apps add to the page (the comment thread, from comments).
    context.update(extensions.page_context("post", request, post))
    return render(request, "feeds/post_detail.html", context)


def post_history(request, post_id):
    """`/posts/<id>/history/`: the post as it is and as it was, for whoever
    may see it (docs/discovery.md#edit-history)."""
    post = visible_post_or_404(request, post_id)
    card = cards([post], request.user)[0]
    revisions = feed_posts.revisions_of(post["_id"])
    return render(request, "feeds/post_history.html", {"card": card, "revisions": revisions})


def photo(request, post_id, size):
    post = visible_post_or_404(request, post_id)
    if post["type"] != "photo":
        raise Http404("No photo here.")
    file_id = post["detail"].get("thumb" if size == "thumb" else "photo")
    etag = f'"{file_id}"'
    if request.headers.get("If-None-Match") == etag:
        return HttpResponseNotModified()
    stored = photos.open_file(file_id)
    if stored is None:
        raise Http404("No photo here.")
    response = HttpResponse(stored.read(), content_type=post["detail"].get("content_type"))
    # Private: the photo's visibility depends on who asks. Immutable: a file id
    # never changes content.
    response["Cache-Control"] = "private, max-age=86400, immutable"
    response["ETag"] = etag
    response["X-Content-Type-Options"] = "nosniff"
    return response
