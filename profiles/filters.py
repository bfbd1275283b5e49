"""Keyword filters: the reader's own phrases that hide posts, or put them
behind a warning, on the pages of the contexts they chose
(docs/privacy.md#keyword-filters).

They live on the reader's document (`User.filters`), which every signed-in
page loads with the session, so knowing them costs no query; they are
applied when a page is read, so adding, deleting or outliving one changes
the next page. An expired filter stays stored until its owner deletes it
(the settings page shows it as expired) and is left out here.

Matching is whole-word and case-insensitive in any script: the phrase and
the text are both NFKC-normalised and case-folded, as post search folds its
words (feeds/words.py), and the phrase must stand as whole words:
"cat" is not in "category", and a phrase of several words matches them in
sequence with any whitespace between ("New York" is in "new  york!").

This module is at the bottom of the apps (profiles), so the feeds, the
comments and the notifications above all ask it the same question.
"""

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from socialsite import clock

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User

# Where a filter applies: the news feed and the incoming page; the
# notifications page; walls, tag pages and post search; a post's own page
# and its comments.
CONTEXTS = ("home", "notifications", "public", "thread")
ACTIONS = ("hide", "warn")
# A person's filters ride along with every page they load: the list is small.
MAX_FILTERS = 50
MAX_PHRASE = 100

# Between two texts of one post: neither whitespace nor a word character, so
# a phrase of several words never spans two texts, and a text's edge is a
# word's edge. Stored text holds no control characters (socialsite/text.py).
_SEPARATOR = "\x00"


def fold(text: str) -> str:
    """NFKC and case folding, as post search folds words (feeds/words.py)."""
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True)
class KeywordFilter:
    """One filter, as its owner made it."""

    id: str
    phrase: str
    contexts: tuple[str, ...]
    action: str  # "hide" | "warn"
    expires: datetime | None

    def expired(self, at: datetime) -> bool:
        return self.expires is not None and clock.aware(self.expires) <= at


def phrase_pattern(phrase: str) -> str | None:
    """The regular expression of a phrase: its folded words in sequence,
    any whitespace between, whole words at both ends. None for a phrase
    with no word in it."""
    words = fold(phrase).split()
    if not words:
        return None
    return r"(?<!\w)" + r"\s+".join(re.escape(word) for word in words) + r"(?!\w)"


@lru_cache(maxsize=512)
def _compiled(patterns: tuple[str, ...]) -> "re.Pattern[str]":
    """One expression for a reader's filters of one context: a lookahead
    tried at every position, with each filter's phrase as a group, so
    overlapping phrases ("new york" and "york") are each found. Cached:
    the same reader's next page compiles nothing."""
    alternatives = "|".join(f"({pattern})" for pattern in patterns)
    return re.compile(f"(?=(?:{alternatives}))")


class Filters:
    """The reader's live filters for one context, compiled once."""

    def __init__(self, filters: Iterable[KeywordFilter] = (), owner: str | None = None) -> None:
        # Whose filters: a filter sets aside others' words, never the
        # owner's own (as Mastodon's do), so callers pass over their posts.
        self.owner = owner
        usable = [(f, phrase_pattern(f.phrase)) for f in filters]
        # Hide before warn: where both match at one place, the group tried
        # first is a hide filter's.
        usable.sort(key=lambda pair: pair[0].action != "hide")
        self.filters: tuple[KeywordFilter, ...] = tuple(f for f, p in usable if p is not None)
        patterns = tuple(p for _, p in usable if p is not None)
        self._pattern = _compiled(patterns) if patterns else None
        self._hides = any(f.action == "hide" for f in self.filters)

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __len__(self) -> int:
        return len(self.filters)

    def first_match(self, *texts: str | None) -> KeywordFilter | None:
        """The filter the texts match, a hide filter before any warn one;
        None when none matches. The caller passes over the owner's own
        words (`mine`)."""
        if self._pattern is None:
            return None
        text = _SEPARATOR.join(fold(t) for t in texts if isinstance(t, str) and t)
        if not text:
            return None
        warned: KeywordFilter | None = None
        for match in self._pattern.finditer(text):
            found = self.filters[(match.lastindex or 1) - 1]
            if found.action == "hide" or not self._hides:
                return found
            warned = warned or found
        return warned

    def mine(self, author: str | None) -> bool:
        """Whether `author` is the filters' owner: their own words pass."""
        return author is not None and author == self.owner

    def hides(self, *texts: str | None) -> bool:
        found = self.first_match(*texts)
        return found is not None and found.action == "hide"


NO_FILTERS = Filters()


def _value(entry: Any, name: str) -> Any:
    if isinstance(entry, dict):
        return entry.get(name)
    return getattr(entry, name, None)


def keyword_filter(entry: Any) -> KeywordFilter | None:
    """A stored filter (an embedded document or its raw dict) as a
    `KeywordFilter`; None for an entry that is not one (a later release's
    shape, a hand edit): it is skipped, never a broken page."""
    phrase, action = _value(entry, "phrase"), _value(entry, "action")
    contexts = _value(entry, "contexts") or ()
    expires = _value(entry, "expires")
    if not isinstance(phrase, str) or action not in ACTIONS:
        return None
    if expires is not None and not isinstance(expires, datetime):
        return None
    return KeywordFilter(
        id=str(_value(entry, "id") or ""),
        phrase=phrase,
        contexts=tuple(c for c in contexts if c in CONTEXTS),
        action=action,
        expires=clock.aware(expires),
    )


def stored_filters(stored: Iterable[Any] | None) -> list[KeywordFilter]:
    """Every filter of a stored list, expired ones too, in the owner's order."""
    return [f for f in map(keyword_filter, stored or ()) if f is not None]


def filters_of(
    stored: Iterable[Any] | None,
    context: str,
    *,
    at: datetime | None = None,
    owner: str | None = None,
) -> Filters:
    """The live filters of `context` among stored ones (a user's document,
    or its raw dict read by another query), of `owner` (their handle)."""
    if context not in CONTEXTS:
        raise ValueError(f"unknown filter context {context!r}")
    moment = at or clock.now()
    return Filters(
        (f for f in stored_filters(stored) if context in f.contexts and not f.expired(moment)),
        owner=owner,
    )


def filters_for(viewer: "User | AnonymousVisitor", context: str) -> Filters:
    """The viewer's live filters of `context`: none for an anonymous
    visitor. No query: the list came with the viewer's document."""
    if not getattr(viewer, "is_authenticated", False):
        if context not in CONTEXTS:
            raise ValueError(f"unknown filter context {context!r}")
        return NO_FILTERS
    return filters_of(getattr(viewer, "filters", None), context, owner=viewer.handle)


def contexts_label(contexts: Sequence[str]) -> str:
    """The contexts as the settings page names them."""
    return ", ".join(CONTEXT_LABELS[c] for c in CONTEXTS if c in contexts)


CONTEXT_LABELS = {
    "home": "Home feed and incoming",
    "notifications": "Notifications",
    "public": "Walls, tags and search",
    "thread": "Posts and their comments",
}
