"""The Instance entity, v1 and v2 shapes (docs.joinmastodon.org/entities/V1_Instance,
/entities/Instance): who we are, and the limits our forms hold, from our
settings and the posting code's own bounds."""

from functools import cache
from importlib import metadata
from pathlib import Path

from django.conf import settings
from django.templatetags.static import static

from feeds.forms import ALT_MAX, OPTION_MAX, TEXT_MAX, URL_MAX
from feeds.services import photos, polls
from profiles.services import pins

DESCRIPTION = (
    "A social network of posts, circles, comments and messages, "
    "on MongoDB's published social-network patterns."
)
LANGUAGES = ["en"]


@cache
def socialsite_version() -> str:
    """The package's version (pyproject.toml), installed or in a checkout."""
    try:
        return metadata.version("socialsite")
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        for line in pyproject.read_text().splitlines() if pyproject.is_file() else []:
            if line.startswith("version"):
                return line.split("=", 1)[1].strip().strip('"')
        return "0"


def version() -> str:
    """What Mastodon clients parse: the Mastodon API version we follow first."""
    return f"4.3.0 (compatible; Socialsite {socialsite_version()})"


def _statuses() -> dict:
    return {
        "max_characters": TEXT_MAX,
        # One photo a post (docs/features.md#posting).
        "max_media_attachments": 1,
        "characters_reserved_per_url": min(23, URL_MAX),
    }


def _media() -> dict:
    return {
        "supported_mime_types": sorted(photos.FORMATS.values()),
        "description_limit": ALT_MAX,
        "image_size_limit": settings.PHOTO_MAX_BYTES,
        "image_matrix_limit": settings.PHOTO_MAX_PIXELS,
        "video_size_limit": 0,
        "video_frame_rate_limit": 0,
        "video_matrix_limit": 0,
    }


def _polls() -> dict:
    return {
        "max_options": polls.MAX_OPTIONS,
        "max_characters_per_option": OPTION_MAX,
        "min_expiration": polls.MIN_DURATION,
        "max_expiration": polls.MAX_DURATION,
    }


def instance_v1(base: str, host: str, *, users: int, posts: int, streaming: str) -> dict:
    """`streaming`: the WebSocket origin of the streaming API ("wss://host")."""
    return {
        "uri": host,
        "title": settings.SITE_NAME,
        "short_description": DESCRIPTION,
        "description": DESCRIPTION,
        "email": "",
        "version": version(),
        "urls": {"streaming_api": streaming},
        "stats": {"user_count": users, "status_count": posts, "domain_count": 0},
        "thumbnail": base + static("img/logo.svg"),
        "languages": LANGUAGES,
        "registrations": True,
        "approval_required": False,
        "invites_enabled": False,
        "configuration": {
            "accounts": {"max_featured_tags": 0},
            "statuses": _statuses(),
            "media_attachments": _media(),
            "polls": _polls(),
        },
        "contact_account": None,
        "rules": [],
    }


def instance_v2(base: str, host: str, *, active_month: int, streaming: str) -> dict:
    return {
        "domain": host,
        "title": settings.SITE_NAME,
        "version": version(),
        "source_url": None,  # no public repository address to give
        "description": DESCRIPTION,
        "usage": {"users": {"active_month": active_month}},
        "thumbnail": {"url": base + static("img/logo.svg"), "blurhash": None, "versions": {}},
        "icon": [],
        "languages": LANGUAGES,
        "configuration": {
            "urls": {
                "streaming": streaming,
                "status": None,
                "about": base + "/",
                "privacy_policy": None,
            },
            "vapid": {"public_key": ""},
            "accounts": {"max_featured_tags": 0, "max_pinned_statuses": pins.MAX_PINS},
            "statuses": _statuses(),
            "media_attachments": _media(),
            "polls": _polls(),
            "translation": {"enabled": False},
        },
        "registrations": {
            "enabled": True,
            "approval_required": False,
            "message": None,
            "url": None,
        },
        "api_versions": {"mastodon": 2},
        "contact": {"email": "", "account": None},
        "rules": [],
    }
