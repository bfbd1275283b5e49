"""Signed one-use links (docs/accounts.md#links-that-work-once).

A link carries a payload signed with SECRET_KEY and a purpose of its own
(Django's `signing`, with a timestamp for the age limit), so it cannot be
forged, reused for another purpose or kept past its age. It works once
because the payload names a random nonce stored on the user: using the link
removes the nonce in the same update that does the work, and a newer link
replaces it.
"""

import secrets

from django.core import signing
from django.utils.crypto import salted_hmac

VERIFY_EMAIL = "socialsite.profiles.verify-email"
RESET_PASSWORD = "socialsite.profiles.reset-password"
UNDO_EMAIL = "socialsite.profiles.undo-email"
LOGIN_SECOND_STEP = "socialsite.profiles.login-2fa"


def nonce() -> str:
    return secrets.token_urlsafe(16)


def nonce_for(key: str) -> str:
    """A nonce as unguessable as `nonce()`, the same each time for `key`
    (a keyed hash with the site's secret)."""
    return salted_hmac("socialsite.nonce", key, algorithm="sha256").hexdigest()[:22]


def make(purpose: str, payload: dict) -> str:
    return signing.dumps(payload, salt=purpose)


def read(purpose: str, token: object, max_age: int) -> dict | None:
    """The payload of a token made for `purpose` no more than `max_age`
    seconds ago, or None (forged, altered, expired, or not a token)."""
    if not isinstance(token, str) or len(token) > 2000:
        return None
    try:
        payload = signing.loads(token, salt=purpose, max_age=max_age)
    except (signing.BadSignature, ValueError):
        return None
    return payload if isinstance(payload, dict) else None
