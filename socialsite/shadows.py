"""The shadow settings (docs/developer-lens.md): FEED_SHADOW_MODELS and
COMMENTS_SHADOW_STORES both read "" (none), "all" (every known name) or a
comma list of names."""

from collections.abc import Collection

from django.conf import settings


def named(setting: str, known: Collection[str]) -> list[str]:
    """The names the setting lists, in order, once each; ValueError naming
    the setting for a name it does not know."""
    value = (getattr(settings, setting) or "").strip()
    if not value:
        return []
    names = list(known) if value == "all" else [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"{setting} names unknown ones: {', '.join(unknown)}")
    return list(dict.fromkeys(names))
