from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

from profiles import auth, services
from profiles.auth import AnonymousVisitor
from profiles.documents import User
from socialsite.clock import aware, now


class AuthenticationMiddleware:
    """Sets `request.user` (lazily: pages that never ask make no query).

    It also refreshes `last_seen`, at most once per LAST_SEEN_RESOLUTION, which
    the feeds use to tell active readers from inactive ones.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.user = SimpleLazyObject(lambda: self._load(request))
        return self.get_response(request)

    @staticmethod
    def _load(request: HttpRequest) -> User | AnonymousVisitor:
        user = auth.get_user(request)
        if user.is_authenticated:
            last_seen = aware(user.last_seen)
            if last_seen is None or (now() - last_seen).total_seconds() > (
                settings.LAST_SEEN_RESOLUTION
            ):
                services.user_touch(user=user)
            # The sessions page's "last used", as rarely as `last_seen`.
            touch = getattr(request.session, "touch", None)
            if touch is not None:
                touch(settings.LAST_SEEN_RESOLUTION)
        # Read once, the person itself from here on: each attribute read
        # through the lazy proxy costs a few calls, and a page's cards read
        # hundreds (docs/performance.md#growth).
        request.user = user
        return user
