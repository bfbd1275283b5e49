"""Who is looking at an ad: the `ad_user` id of a request (docs/ads-api.md).

A signed-in person is their handle. Anyone else is a random token kept in
the first-party `ad_viewer` cookie (HttpOnly, SameSite=Lax, Secure on https,
one year), prefixed so that no forged cookie can name a handle: handles are
`[a-z0-9_]` and never contain the prefix's colon. The token says nothing
about the person; it only lets frequency caps hold across page views.

The cookie is set only when an ad was chosen for a viewer who had none
(`AdViewerCookieMiddleware`), never on ordinary pages. It is signed
(SECRET_KEY, its own salt), so only a token this site minted is a viewer: a
script that makes up a cookie per request is a viewer without one, with no
`ad_user` kept for it and its billing limited per IP (docs/ads-api.md).

A viewer without the cookie has no `ad_user` (none is written for a request
that may never come back), so the capped campaigns of that first answer
travel in the cookie itself: "<token>.<base64 JSON [time, [[campaign id,
cap hours], ...]]>", signed with the token. When the cookie comes back and
there is still no profile, `first_impressions` gives them to the decision,
which counts them against the caps and writes them into the profile it
starts (issue 32, item 7; ads/serving/recording.py). Without that, the
first impression was recorded under a viewer id no profile held and the
second page showed a campaign capped at 1 again.
"""

import base64
import binascii
import json
import math
import re
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime

from django.core import signing
from django.http import HttpRequest

COOKIE_NAME = "ad_viewer"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60
ANONYMOUS_PREFIX = "v:"
# secrets.token_urlsafe(18): 24 characters of the URL-safe base64 alphabet.
_TOKEN_BYTES = 18
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{24}")
# The most first impressions a cookie carries: one answer's ads (MAX_ADS in
# ads/serving/choosing.py and ads/views/public.py).
_FIRST_MAX = 10
# Campaign ids are "<advertiser>:<slug>" (ads/services/campaigns.py); one
# becomes a field path of `caps`, so nothing else ("." or "$") is taken.
_CAMPAIGN_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}:[a-z0-9_-]{1,60}")
# A signed cookie is "<token>[.<first impressions>]:<signature>": ten of the
# longest campaign ids stay well under this, and well under a browser's 4 KB.
_COOKIE_MAX_CHARS = 2048
_SALT = "ads.viewer"
# Where a token minted during this request waits for the middleware.
_NEW_TOKEN_ATTR = "ad_viewer_new_token"
# Where the capped campaigns first shown to it wait, as [time, [[id, hours]]].
_FIRST_ATTR = "ad_viewer_first_impressions"


def _cookie(request: HttpRequest) -> tuple[str, str] | None:
    """(token, first impressions as sent) of a cookie this site signed."""
    value = request.COOKIES.get(COOKIE_NAME)
    if not isinstance(value, str) or len(value) > _COOKIE_MAX_CHARS:
        return None
    try:
        payload = signing.Signer(salt=_SALT).unsign(value)
    except signing.BadSignature:
        return None
    token, _dot, first = payload.partition(".")
    return (token, first) if _TOKEN_RE.fullmatch(token) else None


def _cookie_token(request: HttpRequest) -> str | None:
    cookie = _cookie(request)
    return None if cookie is None else cookie[0]


def _encode(first: list) -> str:
    raw = json.dumps(first, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(text: str) -> dict:
    """`caps`-shaped ({campaign id: {"h": hours, "t": [time]}}) from the
    cookie's part; {} for none or anything not of our own making."""
    if not text:
        return {}
    try:
        at, seen = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        when = datetime.fromtimestamp(at, UTC)
    except (ValueError, TypeError, OverflowError, OSError, binascii.Error):
        return {}
    if not isinstance(at, int) or not isinstance(seen, list):
        return {}
    caps = {}
    for entry in seen[:_FIRST_MAX]:
        if not (isinstance(entry, list) and len(entry) == 2):
            continue
        campaign_id, hours = entry
        if (
            isinstance(campaign_id, str)
            and _CAMPAIGN_RE.fullmatch(campaign_id)
            and isinstance(hours, int)
            and hours > 0
        ):
            caps[campaign_id] = {"h": hours, "t": [when]}
    return caps


def viewer_id(request: HttpRequest, *, assign: bool = True) -> str:
    """The viewer's id: the handle, else "v:<cookie token>".

    With `assign`, a viewer without a (valid) cookie gets a new token, which
    the middleware sends back as the cookie; without it such a viewer is ""
    (a click or view needs no identity of its own, only the offer's).
    """
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user.handle
    token = _cookie_token(request) or getattr(request, _NEW_TOKEN_ATTR, None)
    if token is None:
        if not assign:
            return ""
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        setattr(request, _NEW_TOKEN_ATTR, token)
    return ANONYMOUS_PREFIX + token


def new_cookie_token(request: HttpRequest) -> str | None:
    """The cookie value (the signed token, with the first impressions
    `remember_first_impressions` kept) `viewer_id` minted during this
    request, if it did."""
    token = getattr(request, _NEW_TOKEN_ATTR, None)
    if token is None:
        return None
    first = getattr(request, _FIRST_ATTR, None)
    payload = token if not first else f"{token}.{_encode(first)}"
    return signing.Signer(salt=_SALT).sign(payload)


def remember_first_impressions(
    request: HttpRequest, seen: Iterable[tuple[str, int]], at: datetime
) -> None:
    """Carry in the new cookie the (campaign id, cap hours) of the capped
    impressions counted for a viewer who had no cookie, at `at`: no profile
    holds them (docs/ads-api.md). Nothing when no cookie was minted."""
    if getattr(request, _NEW_TOKEN_ATTR, None) is None:
        return
    entries = [
        [campaign_id, hours]
        for campaign_id, hours in seen
        if hours > 0 and _CAMPAIGN_RE.fullmatch(campaign_id)
    ][:_FIRST_MAX]
    if entries:
        # Rounded up to the second: the window may last a moment longer, never less.
        setattr(request, _FIRST_ATTR, [math.ceil(at.timestamp()), entries])


def first_impressions(request: HttpRequest) -> dict:
    """The capped impressions of the first answer to this anonymous viewer,
    carried by its cookie, `caps`-shaped ({campaign id: {"h": hours, "t":
    [time]}}); {} for a signed-in person (their own profile counts) or a
    request without our cookie."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return {}
    cookie = _cookie(request)
    return {} if cookie is None else _decode(cookie[1])


def forget_new_token(request: HttpRequest) -> None:
    """No ad was chosen after all: the viewer keeps having no cookie."""
    for attr in (_NEW_TOKEN_ATTR, _FIRST_ATTR):
        if hasattr(request, attr):
            delattr(request, attr)
