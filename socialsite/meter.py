"""The round-trip meter of a response (docs/developer-lens.md): the `Server-Timing`
header everyone gets and the footer staff see, both from the counter the
request log reads, so the three always agree.

The footer cannot be rendered with the page: the page's own round trips
(the session saved, the messages stored) happen after its template is done.
So the template leaves `PLACEHOLDER` in the footer, for staff only, and
RequestLogMiddleware swaps in the finished meter once the response is
complete.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.template.loader import render_to_string
from django.utils.functional import SimpleLazyObject, empty

from socialsite.roundtrips import Counter

# What templates/base.html puts in the footer for moderators and admins.
PLACEHOLDER = b"<!--db-meter-->"

# A page the viewer may not see answers 404 like a page that does not exist
# (docs/privacy.md): finding the post, then the rule that hides it, costs more
# round trips, documents and time than finding nothing. These answers show
# no figures at all, so the meter cannot tell the two apart.
REFUSALS = frozenset({403, 404, 410})
REFUSED = 'db;desc="not measured on a refusal"'


# The session key that turns the developer's lens on (devlens/views.py sets it).
LENS_SESSION_KEY = "dev_lens"


def shown_to(request: HttpRequest) -> bool:
    """Whether this answer may carry the meter's figures at all: everyone's
    on the embedded demo or with METER_PUBLIC, else only staff's and lens
    sessions' (a reset for a known address does more work than for an
    unknown one: the figures must not tell a visitor what exists)."""
    if settings.METER_PUBLIC or _is_staff(request):
        return True
    session = getattr(request, "session", None)
    # Only a session already read: asking now would cost a round trip.
    cache = getattr(session, "_session_cache", None)
    return bool(cache and cache.get(LENS_SESSION_KEY))


def refused(response: HttpResponseBase) -> bool:
    return response.status_code in REFUSALS


def server_timing(trips: Counter, total_ms: float, status: int = 200) -> str:
    """`db;desc="<n> round trips, <docs> docs";dur=<ms>, app;dur=<ms>`, or
    the same words for every refusal."""
    if status in REFUSALS:
        return REFUSED
    db_ms = trips.ms
    app_ms = max(total_ms - db_ms, 0.0)
    return (
        f'db;desc="{trips.total} round trips, {trips.docs} docs";dur={db_ms:.1f}, '
        f"app;dur={app_ms:.1f}"
    )


def fill_footer(
    request: HttpRequest, response: HttpResponseBase, trips: Counter, total_ms: float
) -> None:
    """Put the finished meter where the page left its placeholder (staff only)."""
    if response.streaming or response.get("Content-Encoding"):
        return
    if not response.get("Content-Type", "").startswith("text/html"):
        return
    content = response.content
    at = content.rfind(PLACEHOLDER)
    if at < 0:
        return
    meter = "" if refused(response) or not _is_staff(request) else _render(trips, total_ms)
    response.content = b"".join(
        (content[:at], meter.encode(response.charset), content[at + len(PLACEHOLDER) :])
    )
    if response.has_header("Content-Length"):
        response["Content-Length"] = str(len(response.content))


def _is_staff(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return False  # never loaded, so no template asked: do not query for it now
    return bool(getattr(user, "is_moderator", False))


def _render(trips: Counter, total_ms: float) -> str:
    db_ms = trips.ms
    return render_to_string(
        "socialsite/db_meter.html",
        {
            "round_trips": trips.total,
            "docs": trips.docs,
            "db_ms": db_ms,
            "app_ms": max(total_ms - db_ms, 0.0),
            "commands": trips.details,
        },
    )
