"""Read markers (docs.joinmastodon.org/methods/markers): where the reader
left their home timeline and their notifications, kept for their apps to
share (docs/api.md#markers). A marker is the reader's own note; the site's
pages keep no such position, so it lives in the api app."""

import re

from django.http import HttpRequest

from api import scopes as scope_names
from api import selectors, services
from api.entities.discovery import marker
from api.http import OUT_OF_SCOPE, ApiError, api_view
from api.params import Params

#: An id a timeline hands out: a status id (hex, a comment's with its
#: slug) or a notification's; anything longer or stranger is refused.
LAST_READ_ID = re.compile(r"[0-9A-Za-z_.:-]{1,80}")
SCOPES = ("read:statuses", "write:statuses")


@api_view(["GET", "POST"], scope=SCOPES, user=True)
def markers(request: HttpRequest, params: Params) -> dict:
    """GET `timeline[]=home&timeline[]=notifications`: the markers kept
    of those asked (none asked: none, as Mastodon answers). POST
    `home[last_read_id]`, `notifications[last_read_id]`: saved, each
    timeline's version counted up."""
    needed = "read:statuses" if request.method == "GET" else "write:statuses"
    if not scope_names.covers(request.grant.scopes, needed):
        raise ApiError(403, OUT_OF_SCOPE)
    if request.method == "GET":
        asked = [t for t in params.getlist("timeline") if t in services.MARKER_TIMELINES]
        kept = selectors.markers(request.user.handle) if asked else {}
        return {name: marker(kept[name]) for name in asked if name in kept}
    last_read: dict[str, str] = {}
    for timeline in services.MARKER_TIMELINES:
        value = params.get(f"{timeline}[last_read_id]")
        if value is None:
            continue
        if not LAST_READ_ID.fullmatch(value):
            raise ApiError(422, f"Validation failed: {timeline}[last_read_id] is not an id")
        last_read[timeline] = value
    if not last_read:
        raise ApiError(
            422, "Validation failed: give home[last_read_id] or notifications[last_read_id]"
        )
    saved = services.markers_save(handle=request.user.handle, last_read=last_read)
    return {name: marker(saved[name]) for name in last_read}
