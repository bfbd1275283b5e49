"""`{% topbar %}`: the site's bar at the top of every page, from the fragment cache.

The bar (templates/_topbar.html) shows the same few facts on every page: who
is signed in (handle, name, role), their unread counts, the search box's
words, and which of its links is the page's own section (`aria-current`).
Rendered through the template engine it cost about 0.9 ms of CPU on every
page (ten links, an avatar, twenty conditions: docs/performance.md#growth);
cached under a digest of exactly those facts (socialsite/fragments.py), it
is one lookup, with the CSRF token of its logout form filled in per page.
The template sees `current` (the section flags computed here), never
`request`, so nothing else of the page can reach a cached bar.
"""

from dataclasses import dataclass

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import SafeString

from socialsite import fragments

register = template.Library()


@dataclass(frozen=True)
class BarUser:
    """All the bar may know of who is signed in: its key's facts, no more."""

    is_authenticated: bool
    handle: str
    name: str
    role: str
    is_moderator: bool


def sections(path: str, my_profile: str) -> dict[str, bool]:
    """Which of the bar's links is the page's own (each as the bar decided
    it from `request.path` before it was cached)."""
    return {
        "feed": path == "/feed/",
        "incoming": path == "/incoming/",
        "explore": path == "/explore/",
        "ads": "/ads/manage/" in path,
        "me": bool(my_profile) and path == my_profile,
        "messages": "/messages/" in path,
        "notifications": path == "/notifications/",
        "mod": "/mod/" in path,
        "circles": path == "/circles/",
        "bookmarks": path == "/bookmarks/",
        "settings": "/settings/" in path,
    }


@register.simple_tag(takes_context=True)
def topbar(context: template.Context) -> SafeString:
    request = context.get("request")
    user = context.get("user")
    signed_in = bool(user is not None and user.is_authenticated)
    my_profile = ""
    if signed_in:
        try:
            my_profile = reverse("profiles:profile", args=[user.handle])
        except NoReverseMatch:
            my_profile = ""
    path = request.path if request is not None else ""
    current = sections(path, my_profile)
    bar_user = BarUser(
        is_authenticated=signed_in,
        handle=user.handle if signed_in else "",
        name=user.name if signed_in else "",
        role=(user.role or "") if signed_in else "",
        is_moderator=bool(signed_in and user.is_moderator),
    )
    shown = {
        "user": bar_user,
        "my_profile": my_profile,
        "current": current,
        "q": str(context.get("q") or ""),
        "messages_unread": context.get("messages_unread") or 0,
        "notifications_unread": context.get("notifications_unread") or 0,
    }
    # Every fact the bar shows, so two pages share a bar only when it is the same.
    key = {**{k: v for k, v in shown.items() if k != "user"}, "user": vars(bar_user)}
    return fragments.render(
        "topbar",
        bar_user.handle or "-",
        key,
        "_topbar.html",
        shown,
        fragments.page_of(context),
    )
