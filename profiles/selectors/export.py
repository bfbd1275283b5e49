"""The person's own data for their export (docs/accounts.md#export): what
they wrote or chose, other people by handle only."""

from collections.abc import Iterator

from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.filters import stored_filters


def _user(handle: str) -> dict:
    return User._get_collection().find_one({"_id": handle}) or {}


def profile_export(handle: str) -> Iterator[dict]:
    user = _user(handle)
    if user:
        yield {
            "handle": user["_id"],
            "name": user.get("name", ""),
            "profile": user.get("profile", {}),
            "email": user.get("email"),
            "email_verified": bool(user.get("email_verified")),
            "role": user.get("role", "user"),
            "created": user.get("created"),
            "two_factor": bool(user.get("totp_secret")),
            # Their keyword filters, expired ones too (docs/privacy.md#keyword-filters).
            "filters": [
                {
                    "phrase": kept.phrase,
                    "contexts": list(kept.contexts),
                    "action": kept.action,
                    "expires": kept.expires,
                }
                for kept in stored_filters(user.get("filters"))
            ],
            "followed_tags": user.get("followed_tags", []),
            # The posts pinned to their wall, newest pin first (docs/discovery.md#pins).
            "pinned": [str(post_id) for post_id in user.get("pinned", [])],
        }


def following_export(handle: str) -> Iterator[dict]:
    rows = FollowingEdge._get_collection().find({"_f": handle}).sort("_t", 1)
    for row in rows:
        yield {"handle": row["_t"], "circles": row.get("_g", []), "since": row.get("since")}


def followers_export(handle: str) -> Iterator[dict]:
    for row in FollowerEdge._get_collection().find({"_f": handle}).sort("_t", 1):
        yield {"handle": row["_t"], "since": row.get("since")}


def circles_export(handle: str) -> Iterator[dict]:
    edges = FollowingEdge._get_collection()
    for name in _user(handle).get("circles", []):
        members = [row["_t"] for row in edges.find({"_f": handle, "_g": name}, {"_t": 1})]
        yield {"name": name, "members": sorted(members)}


def blocks_export(handle: str) -> Iterator[dict]:
    for other in _user(handle).get("blocked", []):
        yield {"handle": other}


def mutes_export(handle: str) -> Iterator[dict]:
    for other in _user(handle).get("muted", []):
        yield {"handle": other}
