"""@mentions in user text: finding them, and knowing which name a person.

A mention is linked only when its handle belongs to an active user (a link to
a 404 helps nobody), so rendering a text needs to know who exists. A page
shows many texts (post cards, their latest comments, a thread), so the
answers of one request share a cache: each part of a page announces its texts
with `prefetch`, and the first `linkify` that needs an answer asks for every
announced handle in ONE `$in` query. A text nobody announced is still right,
at one query per text that mentions someone not known yet. A page without
mentions costs nothing.

Handles are ASCII (`[a-z0-9_]`): the pattern has no IGNORECASE, because with
it Python's Unicode case folding lets the long s (U+017F) match "s" and the
Kelvin sign (U+212A) match "k", so "@\u017fam" would link @sam.

The cache lives for one request: it is emptied when a request starts and
dropped when it ends, so nothing learnt in one request is trusted in the next.
"""

import re
from collections.abc import Iterable
from contextvars import ContextVar

from django.core.signals import request_finished, request_started

from feeds.words import MAX_TAG
from profiles import selectors as people

# Combining marks (the Unicode blocks of them) continue the word they follow,
# though `\w` does not count them: "@sam" + U+0301 is not a mention of sam.
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
# A person of another server's (docs/federation.md): @name@domain, with a port.
_REMOTE = r"[A-Za-z0-9_]{1,30}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?"
# URLs and mentions, in one pass: a handle inside a URL is part of the URL.
# `(?ai:...)`: case-insensitive for ASCII letters only (no long s in "https").
# And hashtags, so that one pass links all three (feeds/words.py says what a tag is).
TOKEN = re.compile(
    r"(?P<url>\b(?ai:https?)://[^\s<>\"']+[^\s<>\"'.,;:!?)\]])"
    rf"|(?P<mention>(?<![\w@{_MARKS}])@(?P<handle>{_REMOTE}|[A-Za-z0-9_]{{3,30}})(?![\w@{_MARKS}]))"
    rf"|(?P<hashtag>(?<![\w#&/{_MARKS}])#(?P<tag>\w{{1,{MAX_TAG}}})(?![\w{_MARKS}]))"
)


class _Lookups:
    """What one request learnt about handles, and what it will ask next."""

    def __init__(self) -> None:
        self.known: dict[str, bool] = {}  # handle -> an active user has it
        self.pending: set[str] = set()  # announced by `prefetch`, not asked yet


# None outside a request: no caching there.
_lookups: ContextVar[_Lookups | None] = ContextVar("mention_lookups", default=None)


def _start_request(**kwargs: object) -> None:
    _lookups.set(_Lookups())


def _end_request(**kwargs: object) -> None:
    _lookups.set(None)


request_started.connect(_start_request, dispatch_uid="feeds.mentions.start")
request_finished.connect(_end_request, dispatch_uid="feeds.mentions.end")


def handles_in(text: object) -> set[str]:
    """The handles a text mentions, lower-cased, as `linkify` will see them."""
    if not text:
        return set()
    return {m.group("handle").lower() for m in TOKEN.finditer(str(text)) if m.group("handle")}


def existing(handles: Iterable[str]) -> set[str]:
    """The handles (lower-cased) that belong to active users. The handles the
    request has not asked about yet, these and every one `prefetch` announced,
    reach the database together, in one query."""
    handles = set(handles)
    lookups = _lookups.get()
    if lookups is None:
        return people.active_among(handles) if handles else set()
    missing = (handles | lookups.pending) - lookups.known.keys()
    lookups.pending.clear()
    if missing:
        found = people.active_among(missing)
        lookups.known.update({handle: handle in found for handle in missing})
    return {handle for handle in handles if lookups.known[handle]}


def prefetch(texts: Iterable[object]) -> None:
    """Announce texts the page will render: the first mention looked up asks
    for all their handles at once. Costs no query itself, so every part of a
    page (its cards, a comment thread) can announce its own texts and the
    page still asks once. Outside a request there is nothing to batch."""
    lookups = _lookups.get()
    if lookups is not None:
        for text in texts:
            lookups.pending |= handles_in(text)


def people_named(*texts: object) -> list[str]:
    """The handles these texts mention that belong to active users now, for a
    post or comment to keep with its text when it is written: one query, none
    for texts without an "@". Pages then link them with no lookup (`learn`)."""
    named = set().union(*(handles_in(text) for text in texts if text and "@" in str(text)))
    return sorted(people.active_among(named)) if named else []


def learn(text: object, people_then: Iterable[str] | None) -> bool:
    """Tell this request which of `text`'s mentions are people, from the
    handles stored with it when it was written (`people_named`). False when
    nothing was stored (a document older than the field): the page asks for
    it with `prefetch`, as before. A handle that any stored text names as a
    person is linked."""
    if people_then is None:
        return False
    lookups = _lookups.get()
    if lookups is None or not text or "@" not in str(text):
        return True
    stored = set(people_then)
    for handle in handles_in(text):
        lookups.known[handle] = lookups.known.get(handle, False) or handle in stored
    return True


def linked_mentions(*texts: object) -> list[str]:
    """The mentioned handles that are links now: a mention stops linking the
    moment its user is gone, so this is part of every key. Answered from the
    request's lookups (`existing`): no query beyond the page's one."""
    shown = (str(text) for text in texts if text is not None)  # as `linkify` sees them
    named = set().union(*(handles_in(text) for text in shown if "@" in text))
    return sorted(existing(named)) if named else []


def unmention(text: str, handle: str) -> str:
    """`text` with its mentions of `handle` written "[deleted account]": an
    erased person's handle leaves others' words too (docs/accounts.md#erasure),
    and whoever takes the handle after its hold is never mentioned by them."""

    def replace(match: re.Match) -> str:
        if match.group("handle") and match.group("handle").lower() == handle:
            return "[deleted account]"
        return match.group(0)

    return TOKEN.sub(replace, text)
