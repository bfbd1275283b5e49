"""Feed, wall, incoming and post pages, and the post actions. Thin: parse,
call a service or selector, render."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.module_loading import import_string
from django.views.decorators.http import require_http_methods, require_POST

from feeds import photos, polls, selectors, services
from feeds.cards import PostCard, cards
from feeds.documents import PUBLIC
from feeds.forms import PostForm
from feeds.timelines.base import Cursor
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back
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
    return PostForm(owner_circles=request.user.circles, initial={"circles": [PUBLIC], **initial})


@login_required
def feed(request):
    page = selectors.news_page(request.user, _cursor(request))
    return render(
        request,
        "feeds/feed.html",
        {"page": page, "cards": cards(page.posts, request.user), "form": _composer(request)},
    )


@login_required
def incoming(request):
    page = selectors.incoming_page(request.user, _cursor(request))
    return render(
        request, "feeds/incoming.html", {"page": page, "cards": cards(page.posts, request.user)}
    )


def wall_context(request, person) -> dict:
    """The wall on `/u/<handle>/` (hooked in through PROFILE_PAGE_EXTENSIONS)."""
    page = selectors.wall_page(person, request.user, _cursor(request))
    context = {
        "wall_template": "feeds/_wall.html",
        "page": page,
        "cards": cards(page.posts, request.user),
    }
    viewer = request.user
    if viewer.is_authenticated and viewer.handle not in person.blocked:
        own = viewer.handle == person.handle
        context["form"] = _composer(request, **({} if own else {"to": person.handle}))
    return context


@login_required
@require_POST
def post_create(request):
    form = PostForm(request.POST, request.FILES, owner_circles=request.user.circles)
    try:
        ratelimit.hit("post", [f"user:{request.user.handle}"], settings.RATELIMIT_POST)
    except ratelimit.RateLimited as exc:
        form.is_valid()
        form.add_error(None, str(exc))
        return render(request, "feeds/compose.html", {"form": form}, status=429)
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
            messages.success(request, "Posted.")
            fallback = reverse("profiles:profile", args=[post.to]) if post.to else "/feed/"
            return redirect_back(request, fallback)
    return render(request, "feeds/compose.html", {"form": form}, status=400)


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
    if not card.is_own:
        raise Http404("No such post.")
    fields = services.EDITABLE[card.type]
    errors = {}
    if request.method == "POST":
        changes = {f: str(request.POST.get(f, "")).strip() for f in fields}
        limits = {"text": 2000, "title": 200}
        errors = {
            f: f"At most {limits[f]} characters." for f, v in changes.items() if len(v) > limits[f]
        }
        if card.type == "status" and not changes.get("text"):
            errors["text"] = "A status needs some text."
        if not errors:
            services.post_edit(post_id=post["_id"], actor=request.user, changes=changes)
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
        option = int(request.POST.get("option", ""))
        services.poll_vote(post_id=post["_id"], voter=request.user, option=option)
    except (ValueError, polls.PollError):
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
