"""Our ActivityPub ids: the pages' own URLs under SITE_URL
(docs/federation.md#ids), and the way back from an id to our object."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from bson import ObjectId
from django.conf import settings
from django.urls import Resolver404, resolve, reverse

from socialsite.ids import parse_handle, parse_object_id

PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
# The ways servers write the public audience (the compact forms are JSON-LD's).
PUBLIC_FORMS = {PUBLIC, "as:Public", "Public"}
AP_CONTEXT = ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"]


def site() -> str:
    return settings.SITE_URL


def domain() -> str:
    """The host of SITE_URL, with its port when it has one: the `acct:` domain."""
    return urlsplit(settings.SITE_URL).netloc.lower()


def absolute(path: str) -> str:
    return settings.SITE_URL + path


def actor(handle: str) -> str:
    return absolute(reverse("profiles:profile", args=[handle]))


def key_id(handle: str) -> str:
    return actor(handle) + "#main-key"


def inbox(handle: str) -> str:
    return absolute(reverse("federation:inbox", args=[handle]))


def shared_inbox() -> str:
    return absolute(reverse("federation:shared_inbox"))


def outbox(handle: str) -> str:
    return absolute(reverse("federation:outbox", args=[handle]))


def followers(handle: str) -> str:
    return absolute(reverse("profiles:followers", args=[handle]))


def following(handle: str) -> str:
    return absolute(reverse("profiles:following", args=[handle]))


def post(post_id: ObjectId | str) -> str:
    return absolute(reverse("feeds:post", args=[str(post_id)]))


def comment(post_id: ObjectId | str, slug: str) -> str:
    return absolute(reverse("comments:permalink", args=[str(post_id), slug]))


def activity(kind: str, *parts: object) -> str:
    """An id for an activity of ours that has no page: a fragment of the
    object's URL, unique per (kind, parts), so a resend is the same activity."""
    return f"{parts[0]}#{kind.lower()}" + "".join(f"/{p}" for p in parts[1:])


@dataclass(frozen=True)
class Local:
    """What one of our ids names: a person, a post or a comment on one."""

    kind: str  # actor | post | comment
    handle: str = ""
    post: ObjectId | None = None
    slug: str = ""


def parse_local(uri: object) -> Local | None:
    """Our object that `uri` names, or None (another server's, or nothing)."""
    if not isinstance(uri, str) or not uri.startswith(settings.SITE_URL + "/"):
        return None
    path = urlsplit(uri).path
    try:
        match = resolve(path)
    except Resolver404:
        return None
    if match.view_name == "profiles:profile":
        handle = parse_handle(match.kwargs.get("handle"))
        return Local("actor", handle=handle) if handle and "@" not in handle else None
    if match.view_name in ("feeds:post", "comments:permalink"):
        post_id = parse_object_id(match.kwargs.get("post_id"))
        if post_id is None:
            return None
        if match.view_name == "feeds:post":
            return Local("post", post=post_id)
        return Local("comment", post=post_id, slug=str(match.kwargs.get("slug") or ""))
    return None
