"""Shared helpers for the notification tests."""

import re
from html import unescape

from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from notifications.documents import NotificationBucket
from profiles.documents import User

ITEM_RE = re.compile(
    r'<li class="notification[^"]*" data-kind="(?P<kind>[a-z]+)"'
    r' data-actor="(?P<actor>[a-z0-9_]*)"'
    r'(?: data-post-id="(?P<post>[0-9a-f]{24})")?>(?P<body>.*?)</li>',
    re.S,
)


def make_post(author, text="Hello", circles=(PUBLIC,), **kwargs):
    return feeds.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles), **kwargs
    ).id


def stored(owner: str) -> list[dict]:
    """Every item in the owner's buckets, newest first."""
    rows = NotificationBucket._get_collection().find({"owner": owner})
    items = [item for row in rows for item in row["items"]]
    return sorted(items, key=lambda i: (i["ts"], i["id"]), reverse=True)


def kinds(owner: str) -> list[tuple]:
    return [(i["kind"], i["actor"]) for i in stored(owner)]


def unread(handle: str) -> int:
    return User._get_collection().find_one({"_id": handle}).get("notifications_unread", 0)


def listed(html: str) -> list[dict]:
    """(kind, actor, post id, text) of every notification on the page, in order."""
    return [
        {
            "kind": m["kind"],
            "actor": m["actor"],
            "post": m["post"],
            "text": " ".join(unescape(re.sub(r"<[^>]+>", " ", m["body"])).split()),
            "body": m["body"],
        }
        for m in ITEM_RE.finditer(html)
    ]


def header_count(html: str) -> int:
    match = re.search(r'<a class="notifications" href="/notifications/" data-unread="(\d+)"', html)
    assert match, "no notifications link in the header"
    return int(match.group(1))
