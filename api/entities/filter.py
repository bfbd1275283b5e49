"""The FilterResult, Filter (v2 and v1) and FilterKeyword entities
(docs.joinmastodon.org/entities/FilterResult, Filter, FilterKeyword): the
reader's keyword filters (docs/privacy.md#keyword-filters), each one
phrase matched as whole words (docs/api.md#filters)."""

from collections.abc import Iterable

from api.entities.dates import iso
from feeds.selectors.filtering import match
from profiles.filters import Filters, KeywordFilter


def filter_results(filters: Filters, post: dict) -> list[dict]:
    """The FilterResult of the reader's filter the post matches (the
    pages' match: feeds/selectors/filtering.py), or none."""
    matched = match(filters, post)
    if matched is None:
        return []
    return [
        {
            "filter": filter_entity(matched),
            "keyword_matches": [matched.phrase],
            "status_matches": None,
        }
    ]


#: Mastodon's filter contexts for each of ours: our "public" context is
#: walls, tag pages and search, Mastodon's `public` and `account` together.
CONTEXTS_OUT = {
    "home": ("home",),
    "notifications": ("notifications",),
    "public": ("public", "account"),
    "thread": ("thread",),
}
CONTEXTS_IN = {
    "home": "home",
    "notifications": "notifications",
    "public": "public",
    "account": "public",
    "thread": "thread",
}


def contexts_out(contexts: Iterable[str]) -> list[str]:
    return [name for ours in contexts for name in CONTEXTS_OUT.get(ours, ())]


def filter_keyword(kept: KeywordFilter) -> dict:
    """A filter's one keyword: its phrase, under the filter's own id (a
    filter here is one phrase, always matched as whole words)."""
    return {"id": kept.id, "keyword": kept.phrase, "whole_word": True}


def filter_entity(kept: KeywordFilter) -> dict:
    """A Filter (v2): titled by its phrase, its one keyword, no statuses."""
    return {
        "id": kept.id,
        "title": kept.phrase,
        "context": contexts_out(kept.contexts),
        "expires_at": iso(kept.expires),
        "filter_action": kept.action,
        "keywords": [filter_keyword(kept)],
        "statuses": [],
    }


def filter_v1(kept: KeywordFilter) -> dict:
    """A V1::Filter, for clients that still ask `/api/v1/filters`."""
    return {
        "id": kept.id,
        "phrase": kept.phrase,
        "context": contexts_out(kept.contexts),
        "expires_at": iso(kept.expires),
        "irreversible": kept.action == "hide",
        "whole_word": True,
    }
