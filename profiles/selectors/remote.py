"""Reads about people of other servers that federation needs (docs/federation.md)."""

from profiles.documents import FollowerEdge, User


def remote_followers(handle: str, limit: int = 100_000) -> list[str]:
    """The person's followers on other servers (docs/federation.md): their
    handles name a domain. A covered walk of the `(_f, _t)` index, filtered
    in the index; a post's delivery reads it once."""
    rows = FollowerEdge._get_collection().find(
        {"_f": handle, "_t": {"$regex": "@"}}, {"_id": 0, "_t": 1}
    )
    return [row["_t"] for row in rows.limit(limit)]


def local_people_count() -> int:
    """Our own active people (NodeInfo's `users.total`, docs/federation.md):
    a count over the `status_created` index, people of other servers left out."""
    return User._get_collection().count_documents({"status": "active", "domain": None})
