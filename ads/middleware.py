"""Sends the anonymous ad viewer's cookie (ads/serving/viewer.py) when one was minted."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from ads.serving import viewer


class AdViewerCookieMiddleware:
    """Set `ad_viewer` on the response of a request that chose ads for a
    viewer who had no cookie: random, HttpOnly (no script reads it),
    SameSite=Lax (first-party: not sent on other sites' requests), Secure
    when the request is, for one year. Pages that serve no ad set nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        token = viewer.new_cookie_token(request)
        if token is not None:
            response.set_cookie(
                viewer.COOKIE_NAME,
                token,
                max_age=viewer.COOKIE_MAX_AGE,
                path="/",
                secure=request.is_secure(),
                httponly=True,
                samesite="Lax",
            )
        return response
