"""Repost and undo (DESIGN.md §9). Thin: parse, check sight, call the service.

As the like button: a plain form post answers 302 back to `next` (same-site
only) with a message; a request that asks for JSON gets
`{"reposted": bool, "reposts": n}` or `{"error": ...}`.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds import reposts
from feeds.documents import PostRepost
from feeds.views import post_detail, visible_post_or_404
from socialsite import ratelimit
from socialsite.http import redirect_back, safe_next
from socialsite.ids import object_id_or_404

DONE = {True: "Reposted to your followers.", False: "Repost undone."}
ALREADY = {True: "You reposted this already.", False: "You had not reposted this."}


def _wants_json(request) -> bool:
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _refused(request, post_id: str, message: str, status: int):
    """The reason, with nothing changed: JSON, or a message on the page the
    button was on (a rate limit: the post's page, answered 429)."""
    if _wants_json(request):
        return JsonResponse({"error": message}, status=status)
    messages.error(request, message)
    if status == 429:
        response = post_detail(request, post_id)
        response.status_code = 429
        return response
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


def _reposted(post_id, user) -> bool:
    if not user.is_authenticated:
        return False
    found = PostRepost._get_collection().find_one({"post": post_id, "by": user.handle}, {"_id": 1})
    return found is not None


def _act(request, post_id: str, action, *, undo: bool):
    oid = object_id_or_404(post_id)
    # The post page's rule (DESIGN.md §4): unknown, removed or hidden is 404;
    # but one's own repost can always be undone, whatever became of the post.
    if not (undo and _reposted(oid, request.user)):
        visible_post_or_404(request, post_id)
    if not request.user.is_authenticated:
        back = safe_next(request, reverse("feeds:post", args=[post_id]))
        return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': back})}")
    try:
        ratelimit.hit("repost", [f"user:{request.user.handle}"], settings.RATELIMIT_REPOST)
    except ratelimit.RateLimited as exc:
        response = _refused(request, post_id, str(exc), 429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    try:
        state = action(post_id=oid, user=request.user)
    except reposts.NoSuchPost as exc:  # deleted or removed since the read
        raise Http404("No such post.") from exc
    except reposts.RepostError as exc:  # own, limited audience, across a block
        return _refused(request, post_id, str(exc), 403)
    if _wants_json(request):
        return JsonResponse({"reposted": state.reposted, "reposts": state.reposts})
    messages.success(request, DONE[state.reposted] if state.changed else ALREADY[state.reposted])
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


@require_POST
def repost(request, post_id):
    return _act(request, post_id, reposts.repost_create, undo=False)


@require_POST
def unrepost(request, post_id):
    return _act(request, post_id, reposts.repost_delete, undo=True)
