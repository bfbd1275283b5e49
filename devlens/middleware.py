"""Reads an admin's pages through the models their session chose at /dev/,
and records what each of their pages cost for /dev/ to show.

Only GET and HEAD are switched: a form's writes (and the fan-out and comment
writes that immediate tasks run inside the request) go to the stores the
settings and the shadows name, whatever one admin is looking through.

The choice is looked up lazily, when the page first asks for a model: a page
that never reads a timeline or a thread (a photo, /healthz) loads no session
and no user on the lens's account.
"""

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.functional import SimpleLazyObject, empty

from devlens import selectors
from socialsite import active, meter, roundtrips

SWITCHED_METHODS = ("GET", "HEAD")


def _known_admin(request: HttpRequest) -> bool:
    """Whether the request's user is an admin, without loading a user the
    page did not load itself."""
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return False
    return bool(getattr(user, "is_admin", False))


class LensMiddleware:
    """After AuthenticationMiddleware (it reads `request.user`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method not in SWITCHED_METHODS:
            return self.get_response(request)

        def choice() -> active.Choice:
            session = getattr(request, "session", None)
            if session is None or not session.get(selectors.SESSION_CHOICE):
                return active.Choice()
            if not getattr(request.user, "is_admin", False):
                return active.Choice()
            return selectors.usable_choice(session)

        started = time.perf_counter()
        with active.override_lazily(choice), roundtrips.count() as trips:
            response = self.get_response(request)
            ms = (time.perf_counter() - started) * 1000
            if _records(request, response):
                request.session[selectors.SESSION_LAST_PAGE] = {
                    "path": request.get_full_path()[:500],
                    "status": response.status_code,
                    "round_trips": trips.total,
                    "docs": getattr(trips, "docs", 0),
                    "db_ms": round(getattr(trips, "ms", 0.0), 2),
                    "ms": round(ms, 2),
                    "timeline_model": active.timeline_model(),
                    "embed": active.embed(),
                    "comment_store": active.comment_store(),
                }
        return response


def _records(request: HttpRequest, response: HttpResponseBase) -> bool:
    """A page of the site (HTML, not /dev/ itself, not the feed's JSON poll)
    seen by an admin who opened /dev/ in this session."""
    session = getattr(request, "session", None)
    return (
        session is not None
        and session.accessed
        and _known_admin(request)
        and not request.path.startswith("/dev/")
        # What a refused page cost tells a hidden post from a missing one.
        and not meter.refused(response)
        and response.get("Content-Type", "").startswith("text/html")
        and bool(session.get(selectors.SESSION_RECORDING))
    )
