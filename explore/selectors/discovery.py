"""Finding posts beyond the people one follows: a tag's page and a post
search (docs/discovery.md). Each page is one aggregate on its index,
`(tags, ts, _id)` or `(terms, ts, _id)`, newest first from a keyset cursor,
with the viewer's likes and votes looked up beside the posts.

Visibility is decided here, when read (docs/privacy.md): public, live posts
only (and, in a search, the searcher's own), never by someone the viewer
blocked or muted, nor by someone who blocked the viewer.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bson import ObjectId
from django.conf import settings

from feeds import words
from feeds.documents import LIVE, PUBLIC
from feeds.selectors.filtering import without_hidden
from feeds.selectors.lookups import PageLookups
from feeds.selectors.pages import FeedPage
from feeds.selectors.streams import posts_page
from profiles import selectors as people
from profiles.filters import filters_for
from socialsite.cursors import Cursor

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User

# Words a search uses at most (the first ones): each is one more filter.
MAX_QUERY_WORDS = 8


def _hidden(viewer: "User | AnonymousVisitor") -> list[str]:
    if not viewer.is_authenticated:
        return []
    return sorted(set(viewer.blocked) | set(getattr(viewer, "muted", None) or []))


def _page(
    query: dict, viewer: "User | AnonymousVisitor", before: Cursor | None, limit: int | None = None
) -> FeedPage:
    limit = limit or settings.FEED_PAGE_SIZE
    hidden = _hidden(viewer)
    if hidden and "by.id" in query:
        # One author asked for (the client API's `account_id`).
        if query["by.id"] in hidden:
            return FeedPage([], None)
    elif hidden:
        query = {**query, "by.id": {"$nin": hidden}}
    reader = viewer.handle if viewer.is_authenticated else None
    posts = posts_page(query, before, limit + 1, lookups=PageLookups(reader))
    page, more = posts[:limit], len(posts) > limit
    cursor = Cursor(page[-1]["ts"], page[-1]["_id"]).encode() if more else None
    # Who blocked the viewer is on their own documents: one `$in`, here.
    authors = sorted({p["by"]["id"] for p in page} - {viewer.handle})
    if viewer.is_authenticated and authors:
        blockers = people.blockers_among(viewer.handle, authors)
        page = [p for p in page if p["by"]["id"] not in blockers]
    # Tag pages and search are "public" to the viewer's keyword filters
    # (docs/privacy.md#keyword-filters); the cursor above moved past them.
    return FeedPage(without_hidden(filters_for(viewer, "public"), page), cursor)


def tag_page(
    tag: str, viewer: "User | AnonymousVisitor", before: Cursor | None, limit: int | None = None
) -> FeedPage:
    """Public posts carrying `tag` (folded), newest first; `limit`: the
    page's length (the client API's), the page's own by default."""
    return _page({"tags": tag, "circles": PUBLIC, **LIVE}, viewer, before, limit)


def public_page(
    viewer: "User | AnonymousVisitor",
    before: Cursor | None,
    limit: int,
    *,
    only_media: bool = False,
) -> FeedPage:
    """Every public post, newest first (the client API's public timeline,
    docs/api.md#timelines): the tag page's rules without the tag, on the
    posts' `ts` index. `only_media`: photo posts only."""
    query: dict = {"circles": PUBLIC, **LIVE}
    if only_media:
        query["type"] = "photo"
    return _page(query, viewer, before, limit)


def public_post(
    post_id: ObjectId,
    viewer: "User | AnonymousVisitor",
    *,
    tag: str | None = None,
    only_media: bool = False,
) -> dict | None:
    """The post as the public timeline (or `tag`'s page) would list it to
    the viewer, or None where it would not: the same read and rules, on
    one `_id` (the client API's public and hashtag streams, api/streaming/)."""
    query: dict = {"_id": post_id, "circles": PUBLIC, **LIVE}
    if tag is not None:
        query["tags"] = tag
    if only_media:
        query["type"] = "photo"
    page = _page(query, viewer, None, 1)
    return page.posts[0] if page.posts else None


@dataclass(frozen=True)
class Search:
    words: tuple[str, ...]

    @classmethod
    def of(cls, text: str) -> "Search":
        return cls(tuple(dict.fromkeys(words.words_of(text)))[:MAX_QUERY_WORDS])

    def query(self, viewer: "User | AnonymousVisitor") -> dict:
        """Every word on the post, as one `$all` whose first element is the
        longest word (a long word is usually a rare one): the server bounds
        the index scan by an `$all`'s first element, and filters what it
        finds by the others. Separate equalities on the multikey `terms`
        would leave the choice of the bounding word to the planner's trial."""
        ordered = sorted(self.words, key=lambda w: (-len(w), w))
        query: dict = {"terms": {"$all": ordered} if len(ordered) > 1 else ordered[0], **LIVE}
        if viewer.is_authenticated:
            query["$or"] = [{"circles": PUBLIC}, {"by.id": viewer.handle}]
        else:
            query["circles"] = PUBLIC
        return query


def search_page(
    text: str,
    viewer: "User | AnonymousVisitor",
    before: Cursor | None,
    *,
    author: str | None = None,
    limit: int | None = None,
) -> FeedPage:
    """Public posts (and the searcher's own) holding every word of `text`;
    only `author`'s when given; `limit` a page (FEED_PAGE_SIZE unless given)."""
    search = Search.of(text)
    if not search.words:
        return FeedPage([], None)
    query = search.query(viewer)
    if author is not None:
        query["by.id"] = author
    return _page(query, viewer, before, limit)
