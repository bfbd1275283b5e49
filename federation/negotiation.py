"""ActivityPub documents at the pages' own URLs (docs/federation.md#ids).

A person's page, their followers and following, a post and a comment are
each one URL: a browser gets the page, a server asking with
`Accept: application/activity+json` (or ActivityStreams' JSON-LD profile)
gets the document. Every such response says `Vary: Accept`, so a cache
keeps the two apart.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers

from federation import views

ROUTES: dict[str, Callable[..., HttpResponse]] = {
    "profiles:profile": views.person,
    "profiles:followers": views.followers,
    "profiles:following": views.following,
    "feeds:post": views.note,
    "comments:permalink": views.comment_note,
}


def wants_activity(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/activity+json" in accept or (
        "application/ld+json" in accept and "activitystreams" in accept
    )


class ActivityPubMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = self._view(request)
        if view is not None and wants_activity(request):
            match = resolve(request.path_info)
            return view(request, **match.kwargs)
        response = self.get_response(request)
        if view is not None:
            patch_vary_headers(response, ["Accept"])
        return response

    def _view(self, request: HttpRequest) -> Callable[..., HttpResponse] | None:
        if request.method not in ("GET", "HEAD") or not settings.FEDERATION_ENABLED:
            return None
        try:
            match = resolve(request.path_info)
        except Resolver404:
            return None
        return ROUTES.get(match.view_name or "")
