"""What a session was started from, as the sessions page names it: the
browser and system from the User-Agent (a rough reading, as Mastodon's list
shows), and only the first part of the IP address (enough to tell home from
a café, not to locate anyone)."""

import ipaddress

from django.http import HttpRequest

from socialsite import ratelimit
from socialsite.clock import now

# (name, marker in the User-Agent), the first that matches wins: order matters
# (Edge and Opera say Chrome too, Chrome says Safari too).
BROWSERS = (
    ("Edge", "Edg/"),
    ("Opera", "OPR/"),
    ("Firefox", "Firefox/"),
    ("Chrome", "Chrome/"),
    ("Safari", "Safari/"),
)
SYSTEMS = (
    ("Android", "Android"),
    ("iOS", "iPhone"),
    ("iPadOS", "iPad"),
    ("Windows", "Windows"),
    ("macOS", "Mac OS X"),
    ("Linux", "Linux"),
)


def describe_agent(agent: str) -> str:
    """ "Firefox on Linux", or "Unknown browser"."""
    browser = next((name for name, mark in BROWSERS if mark in agent), None)
    system = next((name for name, mark in SYSTEMS if mark in agent), None)
    if browser and system:
        return f"{browser} on {system}"
    return browser or (f"A browser on {system}" if system else "Unknown browser")


def ip_prefix(value: str) -> str:
    """ "203.0.x.x" for IPv4, the first two groups for IPv6, else "unknown"."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return "unknown"
    if address.version == 4:
        first, second, *_ = str(address).split(".")
        return f"{first}.{second}.x.x"
    groups = address.exploded.split(":")
    return f"{groups[0]}:{groups[1]}:…"


def client_of(request: HttpRequest) -> dict[str, str]:
    """What `socialsite.sessions.CLIENT_KEY` keeps for a new session."""
    return {
        "agent": describe_agent(request.META.get("HTTP_USER_AGENT", "")[:512]),
        "ip": ip_prefix(ratelimit.client_ip(request)),
        "since": now().isoformat(),
    }
