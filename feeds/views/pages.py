"""Feed, wall, incoming and post pages, and the post actions. Thin: parse,
call a service or selector, render."""

import copy
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseNotModified, JsonResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.module_loading import import_string
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from feeds.documents import PUBLIC
from feeds.forms import PostForm
from feeds.selectors import newposts
from feeds.selectors import pages as selectors
from feeds.selectors.cards import PostCard, cards
from feeds.services import photos, polls
from feeds.services import posts as services
from feeds.timelines.base import Cursor
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back, safe_next
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
    return PostForm(owner_circles=request.user.circles, initial={"circles": [PUBLIC], **initial})


@login_required
def feed(request):
    page = selectors.news_page(request.user, _cursor(request))
    context = {"page": page, "cards": cards(page.posts, request.user), "form": _composer(request)}
    # For "n new posts": where the list starts, and how often to ask.
    context.update(since=newposts.since_of(page.posts), poll_ms=settings.FEED_NEW_POLL_MS)
    return render(request, "feeds/feed.html", context)


@require_safe
def new_posts(request):
    """`GET /feed/new/?since=<cursor>`: how many posts the feed would show
    above the cursor, for the page's "n new posts" (DESIGN.md §9). JSON for a
    script, so no login redirect; never cached, since it changes by itself."""
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
    return render(
        request, "feeds/incoming.html", {"page": page, "cards": cards(page.posts, request.user)}
    )


def wall_context(request, person) -> dict:
    """The wall on `/u/<handle>/` (hooked in through PROFILE_PAGE_EXTENSIONS).

    Blocks win (DESIGN.md §4): a viewer who blocked the owner sees none of
    the wall, and nobody writes on a wall across a block, either way.
    """
    viewer = request.user
    before = _cursor(request)
    hidden = viewer.is_authenticated and person.handle in viewer.blocked
    page = selectors.FeedPage([], None) if hidden else selectors.wall_page(person, viewer, before)
    context = {
        "wall_template": "feeds/_wall.html",
        "wall_hidden": hidden,
        "page": page,
        "cards": cards(page.posts, viewer),
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


# The pages with a composer (URL names): a failed post renders its page again.
COMPOSER_PAGES = {"feeds:feed", "profiles:profile"}


def _composer_failed(request, form: PostForm, status: int):
    """The page the composer was on (its `next` field, same-site only: the
    feed or a wall), rendered again with the errors and what was typed."""
    origin = urlsplit(safe_next(request, "")).path
    try:
        match = resolve(origin)
    except Resolver404:
        match = None
    if match is not None and match.view_name in COMPOSER_PAGES:
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
def post_create(request):
    form = PostForm(request.POST, request.FILES, owner_circles=request.user.circles)
    try:
        ratelimit.hit("post", [f"user:{request.user.handle}"], settings.RATELIMIT_POST)
    except ratelimit.RateLimited as exc:
        form.is_valid()
        form.add_error(None, str(exc))
        return _composer_failed(request, form, 429)
    if form.is_valid():
        data = form.cleaned_data
        try:
            post = services.post_create(
                author=request.user,
                type=data["type"],
                detail=data["detail"],
                circles=data["circles"],
                to=data.get("to"),
                photo=data.get("photo"),
            )
        except services.PostError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _posted_message(post))
            fallback = reverse("profiles:profile", args=[post.to]) if post.to else "/feed/"
            return redirect_back(request, fallback)
    return _composer_failed(request, form, 400)


def _posted_message(post) -> str:
    """Where the post went: on the wall of someone who doesn't follow the author
    it is on their incoming page only (seed 000's wall filter), so say so."""
    if post.to is None or selectors.wall_shows(post.to, post.by.id):
        return "Posted."
    return (
        f"Posted to @{post.to}. They don't follow you, so it is on their incoming page "
        "rather than on their wall. It is on your own wall too."
    )


def visible_post_or_404(request, post_id):
    post = selectors.post_for_viewer(object_id_or_404(post_id), request.user)
    if post is None:
        raise Http404("No such post.")
    return post


def post_detail(request, post_id):
    post = visible_post_or_404(request, post_id)
    context = {"card": cards([post], request.user)[0]}
    # Other apps add to the page (the comment thread, from comments).
    for path in settings.POST_PAGE_EXTENSIONS:
        context.update(import_string(path)(request, post))
    return render(request, "feeds/post_detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def post_edit(request, post_id):
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
        changes = {f: str(request.POST.get(f, "")).strip() for f in fields}
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
def post_delete(request, post_id):
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
def poll_vote(request, post_id):
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
