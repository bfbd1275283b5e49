"""The person's own data for their export (docs/accounts.md#export): what
they wrote or chose, other people by handle only."""

from collections.abc import Iterator

from profiles.documents import FollowerEdge, FollowingEdge, User


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
            "followed_tags": user.get("followed_tags", []),
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
