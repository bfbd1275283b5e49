"""Finding a person of another server from a search box or the client API
(docs/federation.md#remote-people-and-posts): the stored person, or with `resolve`
the one their server names by WebFinger."""

import contextlib

from django.conf import settings

from federation import resolve as resolver
from federation import uris
from federation.documents import RemoteFollow
from profiles.documents import User


def domain() -> str:
    return uris.domain()


def person(query: str, *, resolve: bool, viewer: User) -> User | None:
    """`@name@domain` as a stored person (found there first when `resolve`),
    or None: nobody, their server unreachable or blocked, or a block
    between them and the viewer either way."""
    handle = resolver.handle_of(query)
    if handle is None:
        return None
    found = User.objects(handle=handle, status="active").first()
    if resolve and settings.FEDERATION_ENABLED:
        with contextlib.suppress(resolver.ResolveError):
            found = resolver.resolve_handle(handle)
    if found is None or found.status != "active":
        return None
    if found.handle in (viewer.blocked or []) or viewer.handle in (found.blocked or []):
        return None
    return found


def follows_requested(follower: str, handles: list[str]) -> set[str]:
    """Those of `handles` (people of other servers) whom `follower` asked to
    follow and whose server has not accepted yet: one read by `_id`, none
    when no handle is remote."""
    remote = [h for h in handles if "@" in h]
    if not remote:
        return set()
    ids = [f"{follower} {handle}" for handle in remote]
    rows = RemoteFollow._get_collection().find(
        {"_id": {"$in": ids}, "state": "requested"}, {"followee": 1}
    )
    return {row["followee"] for row in rows}
