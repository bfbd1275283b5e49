"""What federation adds to two pages of the profiles app (hooked in through
federation/apps.py, docs/federation.md#remote-people-and-posts): `@name@domain`
in the search box, looked up on their server for a signed-in searcher and
shown above the people found here; and on a remote person's profile, a
follow still waiting for their server's answer."""

from typing import Any

from django.http import HttpRequest

from federation import lookup, resolve


def search_context(request: HttpRequest, query: str) -> dict[str, Any]:
    handle = resolve.handle_of(query) if query else None
    if handle is None or handle.split("@", 1)[1] == lookup.domain():
        return {}
    if not request.user.is_authenticated:
        return {"remote_handle": handle, "remote_sign_in": True}
    person = lookup.person(handle, resolve=True, viewer=request.user)
    return {"remote_handle": handle, "remote_person": person}


def profile_context(request: HttpRequest, person: Any) -> dict[str, Any]:
    """A remote person's profile: whether the viewer's follow still waits
    for their server's Accept (one read by `_id`, on remote profiles only)."""
    if not getattr(person, "domain", None) or not request.user.is_authenticated:
        return {}
    waiting = lookup.follows_requested(request.user.handle, [person.handle])
    return {"follow_requested": person.handle in waiting}
