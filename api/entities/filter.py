"""The FilterResult and Filter entities (docs.joinmastodon.org/entities/FilterResult):
the reader's keyword filter a status matches (docs/privacy.md#keyword-filters)."""

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


def filter_entity(found: KeywordFilter) -> dict:
    """One of our keyword filters as Mastodon's Filter (v2): a filter is
    one phrase, whole-word (docs/privacy.md#keyword-filters)."""
    return {
        "id": found.id,
        "title": found.phrase,
        "context": list(found.contexts),
        "expires_at": iso(found.expires),
        "filter_action": found.action,
        "keywords": [{"id": found.id, "keyword": found.phrase, "whole_word": True}],
        "statuses": [],
    }
