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
"""

import re
import secrets

from django.core import signing

COOKIE_NAME = "ad_viewer"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60
ANONYMOUS_PREFIX = "v:"
# secrets.token_urlsafe(18): 24 characters of the URL-safe base64 alphabet.
_TOKEN_BYTES = 18
_TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{24}")
# A signed cookie is "<token>:<signature>": well under this.
_COOKIE_MAX_CHARS = 128
_SALT = "ads.viewer"
# Where a token minted during this request waits for the middleware.
_NEW_TOKEN_ATTR = "ad_viewer_new_token"


def _cookie_token(request) -> str | None:
    value = request.COOKIES.get(COOKIE_NAME)
    if not isinstance(value, str) or len(value) > _COOKIE_MAX_CHARS:
        return None
    try:
        token = signing.Signer(salt=_SALT).unsign(value)
    except signing.BadSignature:
        return None
    return token if _TOKEN_RE.fullmatch(token) else None


def viewer_id(request, *, assign: bool = True) -> str:
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


def new_cookie_token(request) -> str | None:
    """The cookie value (the signed token) `viewer_id` minted during this
    request, if it did."""
    token = getattr(request, _NEW_TOKEN_ATTR, None)
    return None if token is None else signing.Signer(salt=_SALT).sign(token)


def forget_new_token(request) -> None:
    """No ad was chosen after all: the viewer keeps having no cookie."""
    if hasattr(request, _NEW_TOKEN_ATTR):
        delattr(request, _NEW_TOKEN_ATTR)
