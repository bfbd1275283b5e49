"""Handles held after an erasure (docs/accounts.md#erasure): for
HANDLE_HOLD_DAYS nobody may sign up with a handle just erased. The hold is
written by `erasure_begin` (profiles/services/erasure.py) and read by
`user_create` (profiles/services/users.py); both key it the same way."""

import hashlib
import hmac

from django.conf import settings

from profiles.documents import HeldHandle
from socialsite.clock import now


def handle_digest(handle: str) -> str:
    """The held handle's key: keyed by SECRET_KEY, so the hold names no one
    and a guessed handle cannot be checked against a copy of the database."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, b"held-handle:" + handle.encode(), hashlib.sha256).hexdigest()


def handle_held(handle: str) -> bool:
    return HeldHandle.objects(digest=handle_digest(handle), until__gt=now()).count() > 0
