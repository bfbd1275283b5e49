"""Site-wide middleware: the request log line and the static-files start-up guard."""

import time
import uuid

import structlog
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.utils.functional import SimpleLazyObject, empty

from socialsite import checks, roundtrips

request_log = structlog.get_logger("socialsite.requests")


class RequestLogMiddleware:
    """One JSON line per request: method, path, status, ms, round trips, user.

    First in MIDDLEWARE, so the time and the round trips include every other
    middleware. Each line, and every line logged while the request is served,
    carries a request_id, which the response returns as X-Request-ID.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = uuid.uuid4().hex
        started = time.perf_counter()
        with (
            structlog.contextvars.bound_contextvars(request_id=request_id),
            roundtrips.count() as trips,
        ):
            response = self.get_response(request)
            status = response.status_code
            line = request_log.error if status >= 500 else request_log.info
            line(
                "request",
                method=request.method,
                path=request.path[:500],
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 1),
                round_trips=trips.total,
                user=_handle(request),
            )
        response["X-Request-ID"] = request_id
        return response


def _handle(request) -> str | None:
    user = getattr(request, "user", None)  # absent for what whitenoise serves
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return None  # the page never asked who it was: logging won't query for it
    return user.handle if getattr(user, "is_authenticated", False) else None


class StaticManifestGuard:
    """Refuse to start a server that would answer every page with a 500.

    Django builds the middleware once, when the server (gunicorn, runserver)
    loads the application, so this runs at start-up, not per request.
    """

    def __init__(self, get_response):
        errors = checks.static_manifest()
        if errors:
            raise ImproperlyConfigured(f"{errors[0].msg} {errors[0].hint}")
        raise MiddlewareNotUsed  # nothing to do per request
