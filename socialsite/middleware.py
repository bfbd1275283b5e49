"""Site-wide middleware: the request log line, the database deadline of a page
and the static-files start-up guard."""

import time
import uuid
from collections.abc import Callable
from typing import Any

import pymongo
import structlog
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.utils.functional import SimpleLazyObject, empty
from pymongo.errors import PyMongoError

from socialsite import checks, meter, roundtrips

request_log = structlog.get_logger("socialsite.requests")


class RequestLogMiddleware:
    """One JSON line per request: method, path, status, ms, round trips, user;
    and the same figures on the response: `Server-Timing` for whoever may
    see them, the footer meter for staff (socialsite/meter.py).

    First in MIDDLEWARE, so the time and the round trips include every other
    middleware. Each line, and every line logged while the request is served,
    carries a request_id, which the response returns as X-Request-ID.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request_id = uuid.uuid4().hex
        started = time.perf_counter()
        with (
            structlog.contextvars.bound_contextvars(request_id=request_id),
            roundtrips.count() as trips,
        ):
            response = self.get_response(request)
            ms = (time.perf_counter() - started) * 1000
            status = response.status_code
            line = request_log.error if status >= 500 else request_log.info
            line(
                "request",
                method=request.method,
                path=request.path[:500],
                status=status,
                ms=round(ms, 1),
                round_trips=trips.total,
                user=_handle(request),
            )
        meter.fill_footer(request, response, trips, ms)
        if meter.shown_to(request):
            timing = meter.server_timing(trips, ms, response.status_code)
            # A panel of the debug toolbar (DEBUG only) may have put its own there.
            earlier = response.get("Server-Timing")
            response["Server-Timing"] = f"{timing}, {earlier}" if earlier else timing
        response["X-Request-ID"] = request_id
        return response


def _handle(request: HttpRequest) -> str | None:
    user: Any = getattr(request, "user", None)  # absent for what whitenoise serves
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return None  # the page never asked who it was: logging won't query for it
    return user.handle if getattr(user, "is_authenticated", False) else None


class StartupGuard:
    """Refuse to start a server that would answer every page with a 500, or
    that could send no mail (socialsite/checks.py `startup_errors`).

    Django builds the middleware once, when the server (gunicorn, runserver)
    loads the application, so this runs at start-up, not per request.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        errors = checks.startup_errors()
        if errors:
            raise ImproperlyConfigured(f"{errors[0].msg} {errors[0].hint}")
        raise MiddlewareNotUsed  # nothing to do per request


class DatabaseTimeoutMiddleware:
    """Give a page's database reads MONGODB_REQUEST_TIMEOUT_MS in all, and
    answer a friendly 503 ("try again") instead of a 500 when they run out.

    Inside `pymongo.timeout` every operation gets what is left of the budget:
    pymongo sends it as `maxTimeMS`, so the server stops the query too, and
    raises an error whose `timeout` is true (`ExecutionTimeout` from the
    server, `NetworkTimeout` or a server-selection timeout from the client).
    Only GET and HEAD, and not the GETs that write (`writes_on_get`): a cut
    there would leave half of their writes done (an ad counted against a
    budget with no offer stored, a click claimed but never counted), so
    their writes, like a form's, are never cut off half-way
    (docs/performance.md, "Deadlines").
    mongomock ignores the deadline, so the suite runs as before.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        budget = settings.MONGODB_REQUEST_TIMEOUT_MS
        if not budget or request.method not in ("GET", "HEAD") or _writes(request):
            return self.get_response(request)
        with pymongo.timeout(budget / 1000):
            response = self.get_response(request)
        if getattr(request, "database_timed_out", False):
            # Rendered here, after the deadline: the error page's own reads
            # (the signed-in user's menu) must not time out in turn.
            response = _took_too_long(request, response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, PyMongoError) and exception.timeout:
            request_log.warning("database timeout", path=request.path[:500], error=str(exception))
            request.database_timed_out = True
            # A stand-in that the middleware below (session, CSP...) treat as
            # the response; `__call__` swaps in the page with their headers.
            return HttpResponse(status=503)
        return None


_WRITES_ON_GET = "writes_on_get"


def writes_on_get[View: Callable[..., Any]](view: View) -> View:
    """Mark a view whose GET writes (ad serving, clicks, views, marking
    notifications read): the page deadline never wraps it, so its writes
    all land or none starts. Put it outermost, above `login_required`."""
    setattr(view, _WRITES_ON_GET, True)
    return view


def _writes(request: HttpRequest) -> bool:
    # The middleware runs before Django resolves the URL: resolve it here
    # (a walk of the URL patterns, no database) to find the view's mark.
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return getattr(match.func, _WRITES_ON_GET, False)


def _took_too_long(request: HttpRequest, stand_in: HttpResponseBase) -> HttpResponse:
    response = render(
        request,
        "errors/error.html",
        {"code": 503, "title": "This took too long"},
        status=503,
    )
    for header, value in stand_in.items():
        if header.lower() not in ("content-type", "content-length"):
            response[header] = value
    response.cookies = stand_in.cookies
    response["Retry-After"] = "5"
    return response
