"""Rendering user text safely: escape everything, then link http(s) URLs and
the @mentions of people who exist (see feeds/mentions.py)."""

import re
import secrets

from django import template
from django.template import Context
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from feeds import mentions, words
from feeds.forms import PostForm
from feeds.selectors.cards import PostCard
from socialsite import extensions, fragments

register = template.Library()


@register.simple_tag(takes_context=True)
def post_card(context: Context, card: PostCard) -> SafeString:
    """The post's `<article>` (templates/feeds/_post.html), rendered once per
    version and viewer state and then served from the fragment cache."""
    page = fragments.page_of(context)
    viewer = page.viewer(card.author_handle)
    in_thread = bool(context.get("thread_template"))
    html = fragments.render(
        "card",
        card.id,
        card.fragment_key(viewer, in_thread=in_thread),
        "feeds/_post.html",
        {
            "card": card,
            "user": viewer,
            "thread_template": in_thread,
            "moment": card.ts,
            "ends": card.poll["expires"] if card.poll else None,
        },
        page,
    )
    # A keyword filter's warning folds the card, outside the cached fragment:
    # the filter is the viewer's, the card is the same for every viewer like them.
    matched = getattr(card, "filtered", None)
    if matched is None:
        return html
    return render_to_string("feeds/_filtered.html", {"matched": matched, "body": html})


@register.simple_tag(takes_context=True)
def composer(context: Context, form: PostForm) -> SafeString:
    """The composer (templates/feeds/_composer.html). A blank one depends
    only on the author's circles and its initial values, so it is cached on
    those; one a failed post left (bound, with errors and what was typed)
    is rendered as it is."""
    if form.is_bound:
        html = context.template.engine.get_template("feeds/_composer.html").render(context)
        return _with_once_key(html)
    key = {
        "circles": [list(choice) for choice in form.fields["circles"].choices],
        "initial": form.initial,
        "prefix": form.prefix,
    }
    html = fragments.render(
        "composer",
        "blank",
        key,
        "feeds/_composer.html",
        {"form": form},
        fragments.page_of(context),
    )
    return _with_once_key(html)


# The key's field as the template writes it: user text is escaped (a `"`
# becomes `&quot;`), so nothing typed can spell it.
ONCE_FIELD = 'data-once="slot"'


def _with_once_key(composer_html: str) -> SafeString:
    """The composer with a fresh one-time key in its slot, on every page (the
    rest may come from the cache): posting it twice, Back then Post again
    or a double tap, makes one post (socialsite/once.py). The page's script
    moves it into a text field the page hides: a browser that brings the
    page back restores what a script or a person put in its fields, so the
    key comes back with the words (a key in the HTML would be the new page's)."""
    token = secrets.token_urlsafe(16)
    filled = composer_html.replace(ONCE_FIELD, f'data-once="{token}"', 1)
    return mark_safe(filled)  # noqa: S308 - a rendered template, a URL-safe token in its slot


@register.filter(is_safe=True)
def linkify(text: str | None) -> SafeString:
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
        elif match.group("hashtag"):
            tag = words.clean_tag(match.group("tag"))
            # All digits is not a tag; a tag links to its page where an app
            # shows tags (socialsite/extensions.py).
            href = None if tag is None else extensions.link("tag", tag)
            if href is None:
                out.append(escape(match.group("hashtag")))
            else:
                out.append(
                    format_html(
                        '<a href="{}" class="hashtag">{}</a>', href, match.group("hashtag")
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
def host(url: str | None) -> str:
    match = re.match(r"https?://([^/:?#]+)", str(url or ""), re.ASCII | re.IGNORECASE)
    return match.group(1).lower() if match else ""
