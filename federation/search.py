"""`@name@domain` in the site's search box (docs/federation.md#remote-people-and-posts):
the person, looked up on their server for a signed-in searcher, shown above
the people found here (hooked into `/search/` through federation/apps.py)."""

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
