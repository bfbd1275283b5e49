"""The convention every API view follows (docs/api.md#conventions).

`@api_view(["GET"], scope="read:accounts", user=True)` on a view
`view(request, params, *args)`:

- the bearer token is read with its person in one round trip; none where
  one is needed, or an unknown or revoked one: 401. A token without the
  scope: 403. An app's own token where a person is needed: 422, as
  Mastodon answers.
- `request.user` is the token's person (an anonymous visitor without
  one), so services and selectors work as on pages; the session is
  neither read nor written (no Set-Cookie), and no CSRF token is asked:
  a cookie never authenticates an API request, so there is nothing to forge.
- the view gets `Params` (query, form and JSON body alike) and returns
  plain data (a dict or a list), serialized as JSON, or a response.
- `ApiError` (and Django's Http404) become JSON errors; `limit=` counts
  the request against a page's rate limit, keyed by the person, and adds
  the X-RateLimit-* headers.
"""

from collections.abc import Callable
from datetime import UTC, datetime
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.http import Http404, HttpRequest, HttpResponseBase, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from api import scopes as scope_names
from api import selectors, services
from api.entities.error import error as entities_error
from api.params import BadParams, Params
from profiles import services as profile_services
from profiles.auth import AnonymousVisitor
from socialsite import ratelimit
from socialsite.clock import aware, now

INVALID_TOKEN = "The access token is invalid"
OUT_OF_SCOPE = "This action is outside the authorized scopes"
NEEDS_USER = "This method requires an authenticated user"
NOT_FOUND = "Record not found"

#: Marks an API view for api/middleware.py (its methods, checked there).
API_METHODS = "api_methods"
#: What an API view asks of a token: (the scopes any of which will do, or
#: None; whether it needs a person, any token, or none), as `api_view` was
#: given them: tests/api/test_every_endpoint.py holds every route to it.
API_ACCESS = "api_access"


def app_endpoint(*methods: str) -> Callable[[Callable], Callable]:
    """Marks a view an app calls outside `api_view` (the OAuth token and
    revoke endpoints): a method it does not take is a JSON 405 naming
    `methods` (api/middleware.py), not the page's redirect of a GET to the
    page it belongs to (socialsite/methods.py)."""

    def mark(view: Callable) -> Callable:
        setattr(view, API_METHODS, frozenset(methods))
        return view

    return mark


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JsonResponse:
    response = JsonResponse(entities_error(message), status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


class NoSession(SessionBase):
    """The session of an API request: always empty, never loaded or saved.

    SessionMiddleware then sends no Set-Cookie and deletes no cookie (it
    reads `accessed`, `modified` and `is_empty()` on the way out), and
    anything that asks the session (the developer's lens) finds nothing,
    without a database read."""

    def __init__(self) -> None:
        super().__init__(None)

    @property
    def accessed(self) -> bool:
        return False

    @accessed.setter
    def accessed(self, value: bool) -> None:
        pass

    @property
    def modified(self) -> bool:
        return False

    @modified.setter
    def modified(self, value: bool) -> None:
        pass

    def is_empty(self) -> bool:
        return False  # "empty" would make the middleware delete the browser's cookie

    def load(self) -> dict:
        return {}

    def exists(self, session_key: str) -> bool:
        return False

    def create(self) -> None:
        pass

    def save(self, must_create: bool = False) -> None:
        pass

    def delete(self, session_key: str | None = None) -> None:
        pass

    def cycle_key(self) -> None:
        pass


def bearer(request: HttpRequest) -> str | None:
    """The token of `Authorization: Bearer <token>`, or None."""
    kind, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if kind.lower() != "bearer" or not token or len(token) > 200:
        return None
    return token


def authenticate(request: HttpRequest) -> selectors.Grant | None:
    """The request's grant, or None without a token; ApiError(401) for a
    token that is unknown, revoked, or whose person is gone."""
    token = bearer(request)
    if token is None:
        if request.headers.get("Authorization"):
            raise ApiError(401, INVALID_TOKEN)
        return None
    grant = selectors.grant(token)
    if grant is None or grant.person_gone:
        raise ApiError(401, INVALID_TOKEN)
    services.token_touch(digest=grant.digest, last_used=grant.last_used)
    if grant.user is not None:
        last_seen = aware(grant.user.last_seen)
        if last_seen is None or (now() - last_seen).total_seconds() > (
            settings.LAST_SEEN_RESOLUTION
        ):
            # An app's reader is an active reader, as a page's is (the feeds
            # deliver to active readers, docs/performance.md).
            profile_services.user_touch(user=grant.user)
    return grant


def rate_limited(request: HttpRequest, scope: str, setting: str) -> dict[str, str]:
    """Count the request against the page's limit `setting`, keyed by the
    person; the headers to send, or ApiError(429) past the limit."""
    rule = getattr(settings, setting)
    handle = request.user.handle
    try:
        quota = ratelimit.hit(scope, [f"user:{handle}"], rule)
    except ratelimit.RateLimited as exc:
        reset = now().timestamp() + exc.retry_after
        headers = _limit_headers(exc.limit, 0, reset)
        headers["Retry-After"] = str(exc.retry_after)
        raise ApiError(429, "Too many requests", headers) from exc
    return _limit_headers(quota.limit, max(0, quota.remaining), quota.reset.timestamp())


def _limit_headers(limit: int, remaining: int, reset: float) -> dict[str, str]:
    when = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": when,
    }


View = Callable[..., Any]


def api_view(
    methods: list[str],
    *,
    scope: str | tuple[str, ...] | None = None,
    user: bool | None = True,
    limit: tuple[str, str] | None = None,
) -> Callable[[View], Callable[..., HttpResponseBase]]:
    """`scope`: the one the token needs, or a tuple of which any will do
    (None: any token, or none).
    `user`: True needs a person's token; False any token (an app's own
    too); None no token at all (a token sent is still checked).
    `limit`: (rate-limit scope, setting), as the page's action counts it."""
    allowed = frozenset(m.upper() for m in methods)
    needed = (scope,) if isinstance(scope, str) else scope

    def decorate(view: View) -> Callable[..., HttpResponseBase]:
        # Declared the way socialsite/methods.py reads a view's methods.
        checked = require_http_methods(sorted(allowed))(view)

        @wraps(checked)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            request.session = NoSession()
            request.user = AnonymousVisitor()
            headers: dict[str, str] = {}
            try:
                grant = authenticate(request)
                if grant is None and user is not None:
                    raise ApiError(401, INVALID_TOKEN)
                if grant is not None:
                    request.grant = grant
                    if grant.user is not None:
                        request.user = grant.user
                    if needed and not any(scope_names.covers(grant.scopes, s) for s in needed):
                        raise ApiError(403, OUT_OF_SCOPE)
                    if user and grant.user is None:
                        raise ApiError(422, NEEDS_USER)
                params = Params.of(request)
                if limit is not None and request.user.is_authenticated:
                    headers = rate_limited(request, *limit)
                result = view(request, params, *args, **kwargs)
            except ApiError as exc:
                return error(exc.status, exc.message, {**headers, **exc.headers})
            except BadParams as exc:
                return error(400, str(exc), headers)
            except Http404:
                return error(404, NOT_FOUND, headers)
            response = (
                result
                if isinstance(result, HttpResponseBase)
                else JsonResponse(result, safe=False)
            )
            for name, value in headers.items():
                response[name] = value
            return response

        setattr(wrapper, API_METHODS, allowed)
        setattr(wrapper, API_ACCESS, (needed, user))
        return csrf_exempt(wrapper)

    return decorate
