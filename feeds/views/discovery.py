"""A tag's page (`/tags/<tag>/`) and the posts half of `/search/`
(docs/discovery.md). Thin: parse, call a selector, render."""

from django.http import Http404
from django.shortcuts import render

from feeds.selectors import discovery
from feeds.selectors.cards import cards
from feeds.services import words
from feeds.views.pages import _cursor


def tag(request, tag):
    folded = words.clean_tag(tag)
    if folded is None:
        raise Http404("That is not a tag.")
    page = discovery.tag_page(folded, request.user, _cursor(request))
    context = {"tag": folded, "page": page, "cards": cards(page.posts, request.user)}
    return render(request, "feeds/tag.html", context)


def search_context(request, query: str) -> dict:
    """The posts that match a search (hooked into `/search/` through
    SEARCH_PAGE_EXTENSIONS): below the people, keyset on `?before=`."""
    if not query:
        return {}
    page = discovery.search_page(query, request.user, _cursor(request))
    return {
        "posts_template": "feeds/_post_results.html",
        "post_page": page,
        "post_cards": cards(page.posts, request.user),
    }
