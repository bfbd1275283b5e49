"""Rendering user text safely: escape everything, then link http(s) URLs and
the @mentions of people who exist (see feeds.mentions)."""

import re

from django import template
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from feeds import mentions

register = template.Library()


@register.filter(is_safe=True)
def linkify(text) -> str:
    """Escaped text with links; nothing the user typed becomes markup. A
    mention of a handle nobody has stays plain text."""
    text = "" if text is None else str(text)
    matches = list(mentions.TOKEN.finditer(text))
    named = {m.group("handle").lower() for m in matches if m.group("handle")}
    people = mentions.existing(named) if named else set()
    out, last = [], 0
    for match in matches:
        out.append(escape(text[last : match.start()]))
        if match.group("url"):
            url = match.group("url")
            out.append(
                format_html(
                    '<a href="{}" rel="nofollow noopener ugc" target="_blank">{}</a>', url, url
                )
            )
        elif (handle := match.group("handle").lower()) in people:
            out.append(
                format_html(
                    '<a href="{}" class="mention">@{}</a>',
                    reverse("profiles:profile", args=[handle]),
                    handle,
                )
            )
        else:
            out.append(escape(match.group("mention")))
        last = match.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out).replace("\n", "<br>"))  # noqa: S308 - every piece is escaped


@register.filter
def host(url) -> str:
    match = re.match(r"https?://([^/:?#]+)", str(url or ""), re.ASCII | re.IGNORECASE)
    return match.group(1).lower() if match else ""
