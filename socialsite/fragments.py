"""Rendered post cards and comments, cached per version (docs/performance.md: app CPU).

A feed page renders twenty cards; rendering each through the template engine
(links, avatars, dates, mentions, several forms) is most of the page's own
time. A card's HTML depends only on the post as stored and a few facts about
the viewer (liked it? wrote it? a moderator? which comment previews they may
see, their poll vote), so the fragment is cached under a key that is a digest
of exactly those inputs:

- nothing goes stale and nothing needs invalidating: an edit, a removal, a
  new like count, a poll vote or a new comment preview changes the stored
  post, so the next page asks for a different key (the old entry ages out);
- a fragment is shared only by viewers whose facts are equal, and the
  template renders with a stand-in viewer (`Viewer`) that knows only those
  facts, so it cannot carry one viewer's name, handle or state to another;
- it works unchanged with several processes, each with its own cache.

The cache is a plain least-recently-used dict in this process
(`FRAGMENT_CACHE_ENTRIES`), not Django's cache framework: a lookup there
(key validation, pickling, expiry) costs ~10x this one, paid 70 times on a
post page, and no other process needs these entries.

What changes per request is left as a slot and filled in on every page: the
CSRF token, the page's own path (the forms' `next`), "5 minutes ago" and a
poll's "in 3 hours" / "2 days ago". (Whether a poll has ended, and so shows
its results and no Vote button, is part of the card's key instead:
feeds/selectors/cards.py.) A
slot is an HTML comment: user text is always escaped, so it can never spell
one (a `<` in the output only ever comes from the templates).
"""

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from html import escape as html_escape

import bson
import bson.errors
from django.conf import settings
from django.template import Context
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from socialsite import clock


class _Recent:
    """A bounded dict that forgets the least recently used entries."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            html = self._entries.get(key)
            if html is not None:
                self._entries.move_to_end(key)
            return html

    def set(self, key: str, html: str) -> None:
        with self._lock:
            self._entries[key] = html
            while len(self._entries) > max(settings.FRAGMENT_CACHE_ENTRIES, 0):
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


cache = _Recent()

CSRF_SLOT = mark_safe("<!--slot:csrf-->")
NEXT_SLOT = mark_safe("<!--slot:next-->")
AGE_SLOT = mark_safe("<!--slot:age-->")
ENDS_SLOT = mark_safe("<!--slot:ends-->")
NUMBERED_AGE = re.compile(r"<!--slot:age:(\d+)-->")


UNITS = ("year", "month", "week", "day", "hour", "minute")
CHUNKS = (60 * 60 * 24 * 7, 60 * 60 * 24, 60 * 60, 60)  # week, day, hour, minute
MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def age(moment: object, now: datetime | None = None) -> str:
    """What `{{ moment|timesince }}` shows ("3 days, 4 hours", non-breaking
    spaces inside each part), by Django's own calendar-aware steps, minus
    its lazy translations: those cost more than the rest of a cached card,
    and the site is English-only (USE_I18N off). tests/feeds/
    test_fragment_cache.py holds it to Django's answers."""
    if not isinstance(moment, datetime):
        return ""
    now = now or clock.now()
    delta = now - moment
    since = delta.days * 86400 + delta.seconds
    if since <= 0:
        return "0\xa0minutes"
    if delta.days < 28:
        # No calendar month fits in under 28 days: plain division. (Django
        # floors float seconds; below a second nothing crosses a minute.)
        weeks, since = divmod(since, 604800)
        days, since = divmod(since, 86400)
        hours, since = divmod(since, 3600)
        return _words(2, [0, 0, weeks, days, hours, since // 60])
    months = (now.year - moment.year) * 12 + now.month - moment.month
    if moment.day > now.day or (moment.day == now.day and moment.time() > now.time()):
        months -= 1
    years, months = divmod(months, 12)
    pivot = moment
    if years or months:
        year, month = moment.year + years, moment.month + months
        if month > 12:
            year, month = year + 1, month - 12
        pivot = moment.replace(
            year=year, month=month, day=min(MONTH_DAYS[month - 1], moment.day), microsecond=0
        )
    remaining = (now - pivot).total_seconds()
    parts = [years, months]
    for chunk in CHUNKS:
        count = int(remaining // chunk)
        parts.append(count)
        remaining -= chunk * count
    return _words(2, parts)


def until(moment: object, now: datetime | None = None) -> str:
    """How far `moment` is from now either way: "in 3 hours" or "2 days ago"
    (a poll's end, the fragment context's `ends`)."""
    if not isinstance(moment, datetime):
        return ""
    now = now or clock.now()
    if moment > now:
        return f"in {age(now, moment)}"
    return f"{age(moment, now)} ago"


def _words(depth: int, parts: list[int]) -> str:
    """Up to `depth` adjacent non-zero units from the first non-zero one."""
    first = next((i for i, value in enumerate(parts) if value), None)
    if first is None:
        return "0\xa0minutes"
    shown = []
    for unit, value in zip(UNITS[first : first + depth], parts[first : first + depth]):  # noqa: B905
        if not value:
            break
        shown.append(f"{value}\xa0{unit}" if value == 1 else f"{value}\xa0{unit}s")
    return ", ".join(shown)


@dataclass(frozen=True)
class Viewer:
    """All a cached fragment may know about who looks at it. `handle` is the
    viewer's only when they wrote the thing shown (so `owner != user.handle`
    tests still work), and "" otherwise."""

    is_authenticated: bool
    is_moderator: bool
    handle: str = ""

    def key(self) -> list:
        return [self.is_authenticated, self.is_moderator, self.handle]


class _SlotRequest:
    """The `request` a cached fragment sees: its path is a slot."""

    @staticmethod
    def get_full_path() -> SafeString:
        return NEXT_SLOT


SLOT_REQUEST = _SlotRequest()
#: What a fragment's template sees instead of the page's own values.
SLOTS = {"csrf_token": CSRF_SLOT, "request": SLOT_REQUEST, "age": AGE_SLOT, "ends_in": ENDS_SLOT}


def digest(key: dict) -> str:
    """A short digest of everything a fragment shows. BSON: one fast,
    exact encoding of stored documents and plain values alike."""
    try:
        encoded = bson.encode(key)
    except (bson.errors.InvalidDocument, TypeError, OverflowError):
        encoded = repr(key).encode()  # something only Python holds
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def render(
    kind: str, ident: str, key: dict, template: str, context: dict, page: "Page"
) -> SafeString:
    """The fragment for `key` (every input the template reads), from the
    cache or rendered now; then filled with this page's slots."""
    cache_key = f"{kind}:{ident}:{digest(key)}"
    html = cache.get(cache_key)
    if html is None:
        html = get_template(template).render({**context, **SLOTS})
        cache.set(cache_key, html)
    return fill(html, page, context)


def render_list(
    kind: str, ident: str, key: dict, template: str, contexts: list[dict], page: "Page"
) -> SafeString:
    """Fragments of one template cached as one (a page of comments): each
    keeps its own age slot, numbered."""
    cache_key = f"{kind}:{ident}:{digest(key)}"
    html = cache.get(cache_key)
    if html is None:
        compiled = get_template(template)
        slots = {"csrf_token": CSRF_SLOT, "request": SLOT_REQUEST, "age": AGE_SLOT}
        html = "".join(
            compiled.render({**context, **slots}).replace(AGE_SLOT, f"<!--slot:age:{n}-->")
            for n, context in enumerate(contexts)
        )
        cache.set(cache_key, html)
    html = fill(html, page, {})
    moments = [context.get("moment") for context in contexts]
    return mark_safe(  # noqa: S308
        NUMBERED_AGE.sub(lambda slot: age(moments[int(slot.group(1))], page.now), html)
    )


def render_each(
    kind: str, items: Iterable[tuple[str, dict, dict]], template: str, page: "Page"
) -> SafeString:
    """One fragment of `template` per item, each cached under its own key
    (a conversation's messages, a page of notifications): a page that gains
    an item renders that one and serves the others from the cache, where
    one key for the whole list would render them all again. An item is
    `(ident, key, context)`; its context's `moment` fills its age slot."""
    compiled = None
    parts = []
    for ident, key, context in items:
        cache_key = f"{kind}:{ident}:{digest(key)}"
        html = cache.get(cache_key)
        if html is None:
            compiled = compiled or get_template(template)
            html = compiled.render({**context, **SLOTS})
            cache.set(cache_key, html)
        parts.append(fill(html, page, context))
    return mark_safe("".join(parts))  # noqa: S308 - rendered templates, filled as `fill` says


def fill(html: str, page: "Page", context: dict) -> SafeString:
    """Put this page's CSRF token, path, the fragment's age and its poll's
    end in their slots."""
    if CSRF_SLOT in html:
        html = html.replace(CSRF_SLOT, page.csrf_token)
    if NEXT_SLOT in html:
        html = html.replace(NEXT_SLOT, page.path)
    if AGE_SLOT in html:
        # Digits, unit names, commas and spaces: nothing to escape.
        html = html.replace(AGE_SLOT, age(context.get("moment"), page.now))
    if ENDS_SLOT in html:
        html = html.replace(ENDS_SLOT, until(context.get("ends"), page.now))
    return mark_safe(html)  # noqa: S308 - a rendered template, escaped values in its slots


class Page:
    """What one page's fragments share: the values of its slots (escaped,
    read once) and the facts about its viewer."""

    def __init__(self, context: Context) -> None:
        self._context = context
        request = context.get("request")
        self.path = html_escape(request.get_full_path()) if request is not None else ""
        user = context.get("user")
        self.signed_in = bool(user is not None and user.is_authenticated)
        self.moderator = bool(self.signed_in and user.is_moderator)
        self.handle = user.handle if self.signed_in else None

    @cached_property
    def now(self) -> datetime:
        """One moment for every age on the page (and one clock read)."""
        return clock.now()

    @cached_property
    def csrf_token(self) -> str:
        # Read only when a fragment holds a form: reading it sets the cookie.
        token = self._context.get("csrf_token")
        return "" if not token or str(token) == "NOTPROVIDED" else html_escape(str(token))

    def viewer(self, author: str | None) -> Viewer:
        """The viewer as a fragment about `author`'s post or comment sees them."""
        return Viewer(
            is_authenticated=self.signed_in,
            is_moderator=self.moderator,
            handle=author if author and self.handle == author else "",
        )


def page_of(context: Context) -> Page:
    """The page's shared values, kept in the render context for its fragments."""
    found = context.render_context.get(Page)
    if found is None:
        found = context.render_context[Page] = Page(context)
    return found
