"""Rendering user text safely: escape everything, then link http(s) URLs and @handles."""

import re

from django import template
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

register = template.Library()

TOKEN = re.compile(
    r"(?P<url>\bhttps?://[^\s<>\"']+[^\s<>\"'.,;:!?)\]])|(?P<mention>(?<![\w@])@[a-z0-9_]{3,30}\b)",
    re.IGNORECASE,
)


@register.filter(is_safe=True)
def linkify(text) -> str:
    """Escaped text with links; nothing the user typed becomes markup."""
    text = "" if text is None else str(text)
    out, last = [], 0
    for match in TOKEN.finditer(text):
        out.append(escape(text[last : match.start()]))
        if match.group("url"):
            url = match.group("url")
            out.append(
                format_html(
                    '<a href="{}" rel="nofollow noopener ugc" target="_blank">{}</a>', url, url
                )
            )
        else:
            handle = match.group("mention")[1:].lower()
            out.append(
                format_html(
                    '<a href="{}" class="mention">@{}</a>',
                    reverse("profiles:profile", args=[handle]),
                    handle,
                )
            )
        last = match.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out).replace("\n", "<br>"))  # noqa: S308 - every piece is escaped


@register.filter
def host(url) -> str:
    match = re.match(r"https?://([^/:?#]+)", str(url or ""), re.IGNORECASE)
    return match.group(1).lower() if match else ""
