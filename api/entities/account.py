"""The Account entity (docs.joinmastodon.org/entities/Account): an
account's `id`, `username` and `acct` are its handle (docs/api.md#how-our-concepts-map)."""

from html import escape

from django.templatetags.static import static
from django.urls import reverse

from api.entities.dates import iso
from profiles.documents import User

AVATAR = "img/avatar-missing.png"
HEADER = "img/header-missing.png"


def note_html(bio: str) -> str:
    """The bio as Mastodon's `note`: escaped text in a paragraph, line breaks kept."""
    if not bio.strip():
        return ""
    return "<p>" + escape(bio.strip()).replace("\n", "<br />") + "</p>"


def account(user: User, base: str, *, source: bool = False) -> dict:
    """`base`: the site's origin ("https://example.org"), for absolute URLs.
    `source`: the CredentialAccount's own fields (verify_credentials)."""
    profile_url = base + reverse("profiles:profile", args=[user.handle])
    avatar = base + static(AVATAR)
    header = base + static(HEADER)
    profile = user.profile
    bio = (profile.bio if profile else "") or ""
    website = (profile.website if profile else "") or ""
    fields = (
        [{"name": "Website", "value": escape(website), "verified_at": None}] if website else []
    )
    remote = user.actor if getattr(user, "domain", None) else None
    data = {
        "id": user.handle,
        # A person of another server's: `acct` is name@domain, as Mastodon's
        # (docs/federation.md), and their URLs are their server's.
        "username": user.handle.split("@", 1)[0],
        "acct": user.handle,
        "url": (remote or {}).get("url") or profile_url,
        "uri": (remote or {}).get("id") or profile_url,
        "display_name": user.name or "",
        "note": note_html(bio),
        "avatar": avatar,
        "avatar_static": avatar,
        "header": header,
        "header_static": header,
        "locked": False,
        "fields": fields,
        "emojis": [],
        "bot": False,
        "group": False,
        "discoverable": True,
        "indexable": False,
        "noindex": False,
        "moved": None,
        "suspended": False,
        "limited": False,
        "memorial": False,
        "hide_collections": False,
        "created_at": iso(user.created),
        "last_status_at": None,
        "statuses_count": user.posts_count or 0,
        "followers_count": user.followers_count or 0,
        "following_count": user.following_count or 0,
        "roles": [],
    }
    if source:
        data["source"] = {
            "note": bio,
            "fields": [{"name": "Website", "value": website, "verified_at": None}]
            if website
            else [],
            "privacy": "public",
            "sensitive": False,
            "language": "",
            "follow_requests_count": 0,
            "hide_collections": False,
            "discoverable": True,
            "indexable": False,
            "attribution_domains": [],
        }
        data["role"] = role(user)
    return data


ROLE_NAMES = {"user": "", "moderator": "Moderator", "admin": "Admin", "advertiser": ""}


def role(user: User) -> dict:
    """The CredentialAccount's `role`: ours are user, moderator and admin."""
    kind = user.role or "user"
    return {
        "id": {"user": "-99", "moderator": "2", "admin": "3"}.get(kind, "-99"),
        "name": ROLE_NAMES.get(kind, ""),
        "permissions": "0",
        "color": "",
        "highlighted": kind in ("moderator", "admin"),
    }
