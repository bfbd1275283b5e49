"""Like and unlike (DESIGN.md §9). Thin: parse, check sight, call the service.

A plain form post answers 302 back to `next` (same-site only), so the button
works without JavaScript; static/js/site.js sends the same form with
`Accept: application/json` and gets `{"liked": bool, "likes": n}` to update
the button in place.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds import likes
from feeds.views import post_detail, visible_post_or_404
from socialsite import ratelimit
from socialsite.http import redirect_back, safe_next


def _wants_json(request) -> bool:
    # A browser's form post prefers text/html; the script asks for JSON only.
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _refused(request, post_id: str, message: str, status: int):
    if _wants_json(request):
        return JsonResponse({"error": message}, status=status)
    messages.error(request, message)
    if status == 429:
        # As a refused vote does: the post's page with the reason.
        response = post_detail(request, post_id)
        response.status_code = 429
        return response
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


def _act(request, post_id: str, action):
    # The post page's rule (DESIGN.md §4): unknown, removed or hidden is 404.
    post = visible_post_or_404(request, post_id)
    if not request.user.is_authenticated:
        # Back to where the button was once signed in (this URL answers GET with 405).
        back = safe_next(request, reverse("feeds:post", args=[post_id]))
        return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': back})}")
    try:
        ratelimit.hit("like", [f"user:{request.user.handle}"], settings.RATELIMIT_LIKE)
    except ratelimit.RateLimited as exc:
        response = _refused(request, post_id, str(exc), 429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    try:
        state = action(post_id=post["_id"], user=request.user)
    except likes.NoSuchPost as exc:  # deleted since the read
        raise Http404("No such post.") from exc
    except likes.LikeError as exc:  # across a block, or removed (a moderator sees it)
        return _refused(request, post_id, str(exc), 403)
    if _wants_json(request):
        return JsonResponse({"liked": state.liked, "likes": state.likes})
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


@require_POST
def like(request, post_id):
    return _act(request, post_id, likes.like_create)


@require_POST
def unlike(request, post_id):
    return _act(request, post_id, likes.like_delete)
