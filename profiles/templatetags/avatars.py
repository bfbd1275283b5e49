"""Generated avatars: `{% avatar handle name size %}` (size sm, md or lg).

Initials on a colour derived from the handle, so a person keeps their colour
everywhere and across restarts. The site's CSP allows no inline styles, so the
colour is one of a fixed palette of classes, `avatar-c0` ... `avatar-c11` in
static/css/site.css, each with a text colour of at least 4.5:1 contrast.
Decorative (`aria-hidden`): the name is always shown beside it.
"""

import unicodedata
import zlib
from html import escape

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

PALETTE_SIZE = 12
SIZE_CLASSES = {"sm": " avatar--sm", "md": "", "lg": " avatar--lg"}


def avatar_colour(handle: str) -> int:
    """The palette index for a handle: crc32, stable across processes
    (unlike `hash`, which is salted per process)."""
    return zlib.crc32(str(handle).encode()) % PALETTE_SIZE


def _first_visible(word: str) -> str:
    for ch in word:
        if unicodedata.category(ch)[0] in "LN":
            upper = ch.upper()
            return upper if len(upper) == 1 else ch  # "ß".upper() is "SS"
    return ""


def initials(name: str, handle: str = "") -> str:
    """First letters of the first and last words that have one ("Ada King
    Lovelace" -> "AL"); the handle's when the name has none; else "?"."""
    letters = [c for c in map(_first_visible, unicodedata.normalize("NFC", name).split()) if c]
    if not letters:
        letters = [c for c in [_first_visible(handle)] if c]
    if not letters:
        return "?"
    return letters[0] + letters[-1] if len(letters) > 1 else letters[0]


@register.simple_tag
def avatar(
    handle: str | None, name: str | None, size: str = "md", link: bool = False
) -> SafeString:
    """The avatar as a span, or with `link=True` as a link to the profile that
    keyboard and screen-reader users skip (the name beside it links there)."""
    handle, name = str(handle or ""), str(name or "")
    # Digits and fixed class names; the initials are escaped. Python's escape,
    # not Django's `format_html`: the same text without the lazy-string checks
    # on every argument, which a page of notifications paid per avatar.
    classes = f"avatar avatar-c{avatar_colour(handle)}{SIZE_CLASSES.get(size, '')}"
    text = escape(initials(name, handle))
    if link and handle:
        href = escape(reverse("profiles:profile", args=[handle]))
        return mark_safe(  # noqa: S308
            f'<a class="{classes}" href="{href}" aria-hidden="true" tabindex="-1">{text}</a>'
        )
    return mark_safe(f'<span class="{classes}" aria-hidden="true">{text}</span>')  # noqa: S308
