"""Parse ids and handles from request data before they reach a query.

Request data never goes into a query as-is (docs/architecture.md#reliability-and-security-habits):
a dict such as
`{"$ne": 1}` or a string such as `$where` must become "not found", not an
operator. Every view parses path and form values through these functions.
"""

import re

from bson import ObjectId
from bson.errors import InvalidId
from django.http import Http404

#: A handle of this instance's: what sign-up accepts.
LOCAL_HANDLE_RE = re.compile(r"^[a-z0-9_]{3,30}$")
#: A person of another server's (docs/federation.md): `name@domain`, the
#: domain with its port when it has one; lowercased, as WebFinger compares them.
REMOTE_HANDLE_RE = re.compile(
    r"^[a-z0-9_](?:[a-z0-9_.-]{0,62}[a-z0-9_])?@[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::[0-9]{1,5})?$"
)
HANDLE_RE = re.compile(f"{LOCAL_HANDLE_RE.pattern}|{REMOTE_HANDLE_RE.pattern}")
HANDLE_MAX = 330


def parse_handle(value: object) -> str | None:
    """A valid handle (lowercased), local or remote, or None."""
    if not isinstance(value, str) or len(value) > HANDLE_MAX:
        return None
    value = value.strip().lower()
    return value if HANDLE_RE.fullmatch(value) else None


def is_remote(handle: str) -> bool:
    """A person of another server's (their handle names its domain)."""
    return "@" in handle


def handle_or_404(value: object) -> str:
    handle = parse_handle(value)
    if handle is None:
        raise Http404("No such user.")
    return handle


def parse_object_id(value: object) -> ObjectId | None:
    if not isinstance(value, str) or len(value) != 24:
        return None
    try:
        return ObjectId(value)
    except (InvalidId, TypeError):
        return None


def object_id_or_404(value: object) -> ObjectId:
    oid = parse_object_id(value)
    if oid is None:
        raise Http404("Not found.")
    return oid
