"""Keyword filters on the feeds' pages (docs/privacy.md#keyword-filters).

The reader's filters come with their document (profiles/filters.py), so
applying them costs no query. A post matches on every text its card shows
(`words.shown_texts`: the text, a link's title, a poll's question and
options, a check-in's place, the content warning, a photo's description).
The reader's own posts pass their filters, as Mastodon's do.

A hide filter takes the post out of the page where the page's other read-time
rules take posts out (a block, a mute: feeds/selectors/visibility.py), so
the page's cursor still moves past it and the next page neither repeats nor
skips anything; a page may then list fewer posts. A warn filter only marks
the card (feeds/selectors/cards.py), which every post list renders folded
(templates/feeds/_filtered.html).
"""

from collections.abc import Callable

from feeds.words import SHOWN_TEXT_KEYS, shown_texts
from profiles.filters import Filters, KeywordFilter

# What a read must project of a post for the filters to judge it, besides
# its author (`by.id`: the reader's own posts pass their filters).
TEXT_FIELDS = {f"detail.{key}": 1 for key in SHOWN_TEXT_KEYS}

Keep = Callable[[list[dict]], list[dict]]


def match(filters: Filters, post: dict) -> KeywordFilter | None:
    """The filter the post matches (a hide one first), or None; none for the
    reader's own post."""
    if not filters or filters.mine((post.get("by") or {}).get("id")):
        return None
    return filters.first_match(*shown_texts(post.get("detail")))


def hidden(filters: Filters, post: dict) -> bool:
    found = match(filters, post)
    return found is not None and found.action == "hide"


def without_hidden(filters: Filters, posts: list[dict]) -> list[dict]:
    """The posts no hide filter matches, in order."""
    if not filters:
        return posts
    return [post for post in posts if not hidden(filters, post)]


def keeping(keep: Keep, filters: Filters) -> Keep:
    """A page's chunk filter that also drops what the hide filters match."""
    if not filters:
        return keep

    def kept(posts: list[dict]) -> list[dict]:
        return without_hidden(filters, keep(posts))

    return kept
