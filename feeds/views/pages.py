"""The post page, its history and a photo post's files, and what every page
of posts uses: the cursor parameter and the composer. Thin: parse, call a
selector, render. Writing a post: feeds/views/posts.py; the news, wall and
incoming pages: timelines/views.py."""

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import render
from django.urls import reverse

from feeds.documents import PUBLIC
from feeds.forms import PostForm
from feeds.selectors import pages as selectors
from feeds.selectors import posts as feed_posts
from feeds.selectors.cards import cards
from feeds.selectors.visibility import placed_in_from_edges
from feeds.services import photos
from profiles import auth
from profiles.documents import User
from socialsite import drafts, extensions
from socialsite.cursors import Cursor
from socialsite.ids import object_id_or_404


def cursor_param(request: HttpRequest) -> Cursor | None:
    raw = request.GET.get("before")
    if raw is None:
        return None
    cursor = Cursor.decode(raw)
    if cursor is None:
        raise Http404("Bad page cursor.")
    return cursor


def composer(request: HttpRequest, **initial: Any) -> PostForm:
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


def visible_post_and_author(request: HttpRequest, post_id: str) -> tuple[dict, User | None]:
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


def visible_post_or_404(request: HttpRequest, post_id: str) -> dict:
    return visible_post_and_author(request, post_id)[0]


def post_detail(request: HttpRequest, post_id: str) -> HttpResponse:
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


def post_history(request: HttpRequest, post_id: str) -> HttpResponse:
    """`/posts/<id>/history/`: the post as it is and as it was, for whoever
    may see it (docs/discovery.md#edit-history)."""
    post = visible_post_or_404(request, post_id)
    card = cards([post], request.user)[0]
    revisions = feed_posts.revisions_of(post["_id"])
    return render(request, "feeds/post_history.html", {"card": card, "revisions": revisions})


def photo(request: HttpRequest, post_id: str, size: str) -> HttpResponse:
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
