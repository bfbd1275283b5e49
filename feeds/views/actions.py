"""What the like and repost buttons share (docs/features.md#interactions): the sign-in redirect,
the rate limit and the refusal, answered as JSON to the script or as a
message on the page the button was on."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

from feeds.views.pages import post_detail
from socialsite import ratelimit
from socialsite.http import redirect_back, safe_next


def wants_json(request: HttpRequest) -> bool:
    # A browser's form post prefers text/html; the script asks for JSON only.
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def refused(request: HttpRequest, post_id: str, message: str, status: int) -> HttpResponse:
    """The reason, with nothing changed: JSON, or a message on the page the
    button was on (a rate limit: the post's page, answered 429, as a refused
    vote does)."""
    if wants_json(request):
        return JsonResponse({"error": message}, status=status)
    messages.error(request, message)
    if status == 429:
        response = post_detail(request, post_id)
        response.status_code = 429
        return response
    return redirect_back(request, reverse("feeds:post", args=[post_id]))


def signed_in_and_within_limit(
    request: HttpRequest, post_id: str, *, scope: str, rule: str
) -> HttpResponse | None:
    """None when the button may act; otherwise the answer: the sign-in page
    (back to the post once signed in: the button's URL answers GET with 405)
    or the rate limit's refusal with Retry-After."""
    if not request.user.is_authenticated:
        back = safe_next(request, reverse("feeds:post", args=[post_id]))
        return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': back})}")
    try:
        ratelimit.hit(scope, [f"user:{request.user.handle}"], rule)
    except ratelimit.RateLimited as exc:
        response = refused(request, post_id, str(exc), 429)
        response["Retry-After"] = str(exc.retry_after)
        return response
    return None


def done(request: HttpRequest, post_id: str, state: dict[str, bool | int]) -> HttpResponse:
    """The JSON state to the script, or back to the button's page."""
    if wants_json(request):
        return JsonResponse(state)
    return redirect_back(request, reverse("feeds:post", args=[post_id]))
