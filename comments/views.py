"""The thread under a post, the comment permalink page, and comment actions."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from comments import selectors, services, votes
from comments.forms import CommentForm
from comments.stores import InvalidCursor, UnknownParent, cursors
from comments.stores.base import ORDERS
from comments.stores.slugs import is_slug
from feeds import mentions
from feeds.selectors.cards import cards
from feeds.views.pages import visible_post_or_404
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back

ORDER_LABELS = {
    "threaded": "Threaded",
    "best": "Best",
    "top": "Top",
    "newest": "Newest",
    "oldest": "Oldest",
}
#: The short names links elsewhere use (docs/features.md#routes).
ORDER_ALIASES = {"new": "newest", "old": "oldest"}


def _order(request: HttpRequest) -> str | None:
    """The order asked for, or None for the store's default."""
    order = request.GET.get("order")
    order = ORDER_ALIASES.get(order, order) if isinstance(order, str) else None
    return order if order in ORDERS else None


def _cursors(request: HttpRequest) -> dict[str, Any]:
    after, before = request.GET.get("after"), request.GET.get("before")
    for value in (after, before):
        # A threaded cursor carries a full slug, ~43 characters per level of
        # depth: the store's own bound, not a shorter one, or the page after
        # a deep reply would be a 404.
        if value is not None and (not isinstance(value, str) or len(value) > cursors.MAX_LENGTH):
            raise Http404("Bad page cursor.")
    return {"after": after, "before": before}


def thread_context(request: HttpRequest, post: dict[str, Any]) -> dict[str, Any]:
    """The thread on `/posts/<id>/` (added to the post page in comments/apps.py,
    through socialsite/extensions.py)."""
    if post.get("removed") and not request.user.is_moderator:
        return {}  # the placeholder stands alone; moderators still reach the comments
    try:
        thread = selectors.thread(
            post["_id"], order=_order(request), viewer=request.user, **_cursors(request)
        )
    except InvalidCursor as exc:
        raise Http404("Bad page cursor.") from exc
    # The thread's @mentions join the card's in the page's one lookup.
    mentions.prefetch(c.text for c in thread.page.comments)
    return {
        "thread_template": "comments/_thread.html",
        "thread": thread,
        # Only what this store can give: no "Threaded" under `buckets`, no
        # "Best" without the documents store's ranking index.
        "comment_orders": [(o, ORDER_LABELS[o]) for o in ORDER_LABELS if o in selectors.orders()],
        "comment_form": CommentForm(),
        "max_depth": settings.COMMENTS_MAX_DEPTH,
    }


@login_required
@require_POST
def comment_create(request: HttpRequest, post_id: str) -> HttpResponse:
    post = visible_post_or_404(request, post_id)
    form = CommentForm(request.POST)
    fallback = reverse("feeds:post", args=[post_id])
    try:
        ratelimit.hit("comment", [f"user:{request.user.handle}"], settings.RATELIMIT_COMMENT)
    except ratelimit.RateLimited as exc:
        form.is_valid()
        form.add_error(None, str(exc))
        return _form_page(request, post, form, status=429)
    if not form.is_valid():
        return _form_page(request, post, form, status=400)
    try:
        comment = services.comment_create(
            post=post,
            author=request.user,
            text=form.cleaned_data["text"],
            parent_slug=form.cleaned_data["parent"],
        )
    except UnknownParent:
        form.add_error("parent", "That comment does not exist.")
        return _form_page(request, post, form, status=400)
    except services.CommentLimitReached as exc:
        # Not forbidden: the thread's state leaves no room for it (409).
        form.add_error(None, str(exc))
        return _form_page(request, post, form, status=409)
    except services.CommentRefused as exc:
        form.add_error(None, str(exc))
        return _form_page(request, post, form, status=403)
    messages.success(request, "Comment posted.")
    return _to_comment(redirect_back(request, fallback).url, comment.slug)


def anchor(slug: str) -> str:
    """The `id` of a comment's article (`#c-<slug without slashes>`)."""
    return "c-" + slug.replace("/", "")


def _to_comment(url: str, slug: str) -> HttpResponseRedirect:
    """Redirect to `url`, scrolled to the comment."""
    return redirect(f"{url.partition('#')[0]}#{anchor(slug)}")


def _form_page(
    request: HttpRequest, post: dict[str, Any], form: CommentForm, status: int
) -> HttpResponse:
    """A comment that could not be posted: the post and the form with its errors."""
    return render(
        request,
        "comments/comment_form.html",
        {"card": cards([post], request.user)[0], "form": form},
        status=status,
    )


def permalink(request: HttpRequest, post_id: str, slug: str) -> HttpResponse:
    post = visible_post_or_404(request, post_id)
    if not is_slug(slug):
        raise Http404("No such comment.")
    if post.get("removed") and not request.user.is_moderator:
        raise Http404("No such comment.")
    try:
        found = selectors.permalink(post["_id"], slug, viewer=request.user, **_cursors(request))
    except InvalidCursor as exc:
        raise Http404("Bad page cursor.") from exc
    if found is None:
        raise Http404("No such comment.")
    mentions.prefetch(c.text for c in [*found.ancestors, found.comment, *found.page.comments])
    card = cards([post], request.user)[0]
    # The page shows the discussion itself: the card's preview of the last
    # comments would only repeat it.
    card.comments_shown = []
    return render(
        request,
        "comments/permalink.html",
        {
            "card": card,
            "found": found,
            "linked": found.comment.slug,
            "comment_form": CommentForm(),
            "max_depth": settings.COMMENTS_MAX_DEPTH,
        },
    )


def _act(
    request: HttpRequest, post_id: str, slug: str, action: Callable[[dict[str, Any]], str]
) -> HttpResponse:
    post = visible_post_or_404(request, post_id)
    if not is_slug(slug):
        raise Http404("No such comment.")
    back = redirect_back(request, reverse("feeds:post", args=[post_id]))
    try:
        message = action(post)
    except services.CommentRefused as exc:
        messages.error(request, str(exc))
        return back
    messages.success(request, message)
    return _to_comment(back.url, slug)


@login_required
@require_POST
def comment_edit(request: HttpRequest, post_id: str, slug: str) -> HttpResponse:
    form = CommentForm(request.POST)

    def act(post: dict[str, Any]) -> str:
        try:
            ratelimit.hit(
                "comment_edit", [f"user:{request.user.handle}"], settings.RATELIMIT_COMMENT_EDIT
            )
        except ratelimit.RateLimited as exc:
            raise services.CommentRefused(str(exc)) from exc
        if not form.is_valid():
            raise services.CommentRefused(" ".join(form.errors.get("text", ["Invalid comment."])))
        services.comment_edit(
            post_id=post["_id"], slug=slug, actor=request.user, text=form.cleaned_data["text"]
        )
        return "Comment updated."

    return _act(request, post_id, slug, act)


@login_required
@require_POST
def comment_vote(request: HttpRequest, post_id: str, slug: str) -> HttpResponse:
    """`dir` = up, down or none (take it back); one vote per person."""
    direction = request.POST.get("dir")

    def act(post: dict[str, Any]) -> str:
        if not votes.is_direction(direction):
            raise services.CommentRefused("Vote up, down or none.")
        try:
            ratelimit.hit(
                "comment_vote", [f"user:{request.user.handle}"], settings.RATELIMIT_COMMENT_VOTE
            )
        except ratelimit.RateLimited as exc:
            raise services.CommentRefused(str(exc)) from exc
        try:
            votes.comment_vote(post=post, slug=slug, voter=request.user, direction=direction)
        except votes.UnknownComment as exc:
            # Not a refusal: there is nothing at this address (as on its
            # permalink page), and the vote wrote nothing.
            raise Http404("No such comment.") from exc
        return VOTED[direction]

    return _act(request, post_id, slug, act)


VOTED = {"up": "Voted up.", "down": "Voted down.", "none": "Vote taken back."}


@login_required
@require_POST
def comment_delete(request: HttpRequest, post_id: str, slug: str) -> HttpResponse:
    def act(post: dict[str, Any]) -> str:
        by = services.comment_delete(post_id=post["_id"], slug=slug, actor=request.user)
        return "Comment removed from your post." if by == "post_author" else "Comment deleted."

    return _act(request, post_id, slug, act)
