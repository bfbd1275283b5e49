"""A post's hashtags and searchable words, computed when it is written and
stored on it (`tags`, `terms`), so that a tag page and a post search are
each one index-served query (docs/discovery.md).

Both are NFKC-normalised and case-folded, so "#Café", "#CAFÉ" and the
composed and decomposed "é" are one tag, and a search for "cafe" finds
"Café" only when the words are the same word: no stemming, no accents
stripped. A tag is letters, digits and `_` (any script), with at least one
letter (Mastodon's rule: "#1" is not a tag), at most MAX_TAG characters.
"""

import re
import unicodedata
from collections.abc import Iterable

MAX_TAG = 64
# Words this short or this long are left out of `terms`: a one-letter word
# matches too much to be worth an index key, and a long run is not a word.
MIN_TERM, MAX_TERM = 2, 40
# A post keeps at most this many distinct terms and tags (a long link text
# or a poll's options add up; the index grows by one key per term).
MAX_TERMS, MAX_TAGS = 200, 20

# A tag starts a word: not after a letter, digit, `_`, `#` or `&` ("a#b" and
# HTML entities like "&#39;" are not tags), nor inside a URL's fragment.
TAG = re.compile(rf"(?<![\w#&/])#(\w{{1,{MAX_TAG}}})(?!\w)")
TAG_BODY = re.compile(rf"\w{{1,{MAX_TAG}}}")
WORD = re.compile(r"\w+")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def clean_tag(value: object) -> str | None:
    """A tag as the pages name it in a URL, folded, or None if it is not one."""
    if not isinstance(value, str):
        return None
    tag = fold(value.strip().removeprefix("#"))
    if not TAG_BODY.fullmatch(tag) or not any(c.isalpha() for c in tag):
        return None
    return tag


def tags_in(*texts: object) -> list[str]:
    """The distinct tags of the texts, folded, in the order they first appear."""
    found: dict[str, None] = {}
    for text in texts:
        if not isinstance(text, str):
            continue
        for match in TAG.finditer(unicodedata.normalize("NFKC", text)):
            tag = clean_tag(match.group(1))
            if tag is not None:
                found.setdefault(tag, None)
    return list(found)[:MAX_TAGS]


def words_of(text: str) -> list[str]:
    """The searchable words of a text (or of a query), folded, in order."""
    return [w for w in WORD.findall(fold(text)) if MIN_TERM <= len(w) <= MAX_TERM]


def terms_of(texts: Iterable[object]) -> list[str]:
    """The distinct words of the texts, sorted: what `post.terms` holds."""
    found: set[str] = set()
    for text in texts:
        if isinstance(text, str):
            found.update(words_of(text))
    return sorted(found)[:MAX_TERMS]


# The fields of a post's `detail` that hold words its card shows: what
# `searchable` indexes, and the content warning and the photo's description.
SHOWN_TEXT_KEYS = ("text", "question", "title", "place", "cw", "alt", "options")


def shown_texts(detail: dict | None) -> list[str]:
    """Every text of a post's `detail` a reader sees (keyword filters match
    them: docs/privacy.md#keyword-filters)."""
    detail = detail or {}
    texts = [detail.get(key) for key in SHOWN_TEXT_KEYS if key != "options"]
    texts += list(detail.get("options") or [])
    return [text for text in texts if isinstance(text, str) and text]


def searchable(detail: dict) -> dict:
    """`tags` and `terms` for a post's `detail`: its text, a link's title, a
    check-in's place, a poll's question and options. None for an empty list
    (the field is left out: the sparse indexes skip the post)."""
    texts = [detail.get(key) for key in ("text", "question", "title", "place")]
    texts += list(detail.get("options") or [])
    return {"tags": tags_in(*texts) or None, "terms": terms_of(texts) or None}
