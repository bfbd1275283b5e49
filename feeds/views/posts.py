"""Posting, editing, deleting and voting. Thin: parse, call a service,
answer with the page (feeds/views/pages.py) or a redirect back."""

import copy
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.views.decorators.http import require_http_methods, require_POST

from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.forms import PostForm
from feeds.selectors import pages as selectors
from feeds.selectors.cards import PostCard
from feeds.services import polls
from feeds.services import posts as services
from feeds.views.pages import post_detail, visible_post_or_404
from profiles.selectors import people
from socialsite import extensions, once, ratelimit
from socialsite.http import login_required, redirect_back, safe_next
from socialsite.ids import object_id_or_404
from socialsite.text import strip_controls


def _composer_failed(request: HttpRequest, form: PostForm, status: int) -> HttpResponseBase:
    """The page the composer was on (its `next` field, same-site only: the
    feed or a wall), rendered again with the errors and what was typed.
    That page's own view answers, and behind `login_required` a view's answer
    is any HttpResponseBase."""
    origin = urlsplit(safe_next(request, "")).path
    try:
        match = resolve(origin)
    except Resolver404:
        match = None
    if match is not None and match.view_name in extensions.composer_pages():
        # The same request, seen as a visit to the origin: its links, `next`
        # fields and navigation are that page's.
        page = copy.copy(request)
        page.path = page.path_info = origin
        page.resolver_match = match
        page.composer_form = form
        try:
            response = match.func(page, *match.args, **match.kwargs)
        except Http404:  # e.g. that wall's owner is gone meanwhile
            response = None
        if response is not None and response.status_code == 200:
            response.status_code = status
            return response
    return render(request, "feeds/compose.html", {"form": form}, status=status)


@login_required
@require_POST
def post_create(request: HttpRequest) -> HttpResponseBase:
    form = PostForm(request.POST, request.FILES, owner_circles=request.user.circles)
    try:
        ratelimit.hit("post", [f"user:{request.user.handle}"], settings.RATELIMIT_POST)
    except ratelimit.RateLimited as exc:
        form.is_valid()
        form.add_error(None, str(exc))
        return _composer_failed(request, form, 429)
    if form.is_valid():
        data = form.cleaned_data
        key = request.POST.get("once")
        try:
            post = services.post_create(
                author=request.user,
                type=data["type"],
                detail=data["detail"],
                circles=data["circles"],
                to=data.get("to"),
                photo=data.get("photo"),
                post_id=once.claim(scope="post", owner=request.user.handle, key=key)
                if once.usable(key)
                else None,
            )
        except services.AlreadyPosted:
            # The composer's key again: Back and Post, or a double tap.
            messages.info(request, "That was posted already.")
            return redirect_back(request, "/feed/")
        except services.PostError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _posted_message(post))
            named = [c for c in data["circles"] if c not in (PUBLIC, ALL_CIRCLES)]
            if named and (empty := people.empty_circles(request.user.handle, named)):
                messages.warning(
                    request,
                    f"Nobody is in {', '.join(empty)} yet: only you can see this post "
                    "until you add people to the circle.",
                )
            fallback = reverse("profiles:profile", args=[post.to]) if post.to else "/feed/"
            return redirect_back(request, fallback)
    return _composer_failed(request, form, 400)


def _posted_message(post: Post) -> str:
    """Where the post went: on the wall of someone who doesn't follow the author
    it is on their incoming page only (*Storing Updates and Profiles*'s wall filter), so say so."""
    if post.to is None or selectors.wall_shows(post.to, post.by.id):
        return "Posted."
    return (
        f"Posted to @{post.to}. They don't follow you, so it is on their incoming page "
        "rather than on their wall. It is on your own wall too."
    )


@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request: HttpRequest, post_id: str) -> HttpResponse:
    post = visible_post_or_404(request, post_id)
    card = PostCard(post, request.user)
    # Only the author, and never while a moderator has it removed (frozen).
    if not card.is_own or card.removed:
        raise Http404("No such post.")
    fields = services.EDITABLE[card.type]
    if not fields:
        # A poll: a changed question or options would change what people
        # voted for. The page says so; a POST changes nothing (400).
        return render(
            request,
            "feeds/post_edit.html",
            {"card": card, "fields": fields, "values": {}, "errors": {}},
            status=400 if request.method == "POST" else 200,
        )
    errors = {}
    if request.method == "POST":
        try:
            ratelimit.hit(
                "post_edit", [f"user:{request.user.handle}"], settings.RATELIMIT_POST_EDIT
            )
        except ratelimit.RateLimited as exc:
            messages.error(request, str(exc))
            values = {f: request.POST.get(f, "") for f in fields}
            return render(
                request,
                "feeds/post_edit.html",
                {"card": card, "fields": fields, "values": values, "errors": {}},
                status=429,
            )
        # Without control characters, as the post form stores text (socialsite/text.py).
        changes = {f: strip_controls(str(request.POST.get(f, ""))).strip() for f in fields}
        limits = {"text": 2000, "title": 200}
        errors = {
            f: f"At most {limits[f]} characters." for f, v in changes.items() if len(v) > limits[f]
        }
        if card.type == "status" and not changes.get("text"):
            errors["text"] = "A status needs some text."
        if not errors:
            try:
                services.post_edit(post_id=post["_id"], actor=request.user, changes=changes)
            except services.NotFound as exc:  # removed or deleted since the read
                raise Http404("No such post.") from exc
            messages.success(request, "Post updated.")
            return redirect("feeds:post", post_id=card.id)
    values = {f: request.POST.get(f, card.detail.get(f, "")) for f in fields}
    return render(
        request,
        "feeds/post_edit.html",
        {"card": card, "fields": fields, "values": values, "errors": errors},
        status=400 if errors else 200,
    )


@login_required
@require_POST
def post_delete(request: HttpRequest, post_id: str) -> HttpResponse:
    try:
        services.post_delete(post_id=object_id_or_404(post_id), actor=request.user)
    except services.NotFound as exc:
        raise Http404("No such post.") from exc
    messages.success(request, "Post deleted.")
    target = redirect_back(request, "/feed/")
    if target.url.startswith(f"/posts/{post_id}/"):
        return redirect("/feed/")
    return target


@login_required
@require_POST
def poll_vote(request: HttpRequest, post_id: str) -> HttpResponse:
    post = visible_post_or_404(request, post_id)
    try:
        ratelimit.hit("vote", [f"user:{request.user.handle}"], settings.RATELIMIT_VOTE)
    except ratelimit.RateLimited as exc:
        # As post_create does: 429, the page re-rendered with the reason.
        messages.error(request, str(exc))
        response = post_detail(request, post_id)
        response.status_code = 429
        return response
    try:
        option = int(request.POST.get("option", ""))
        services.poll_vote(post_id=post["_id"], voter=request.user, option=option)
    except polls.PollError as exc:  # a ValueError too: caught first
        messages.error(request, str(exc))
    except ValueError:
        messages.error(request, "Pick one of the poll's options.")
    else:
        messages.success(request, "Vote counted.")
    return redirect_back(request, reverse("feeds:post", args=[post_id]))
