"""`read`: fan-out on read. Nothing is stored; a page is one query on `post`.

The article's "form the tape when reading": the followed accounts' public
posts, plus the posts of authors who placed the reader in a circle, with the
circle condition pushed into the query so that no over-fetching is needed.
It is also the fallback of the other models (no cache yet, past the cap,
rebuilding).
"""

from collections.abc import Collection

from bson import ObjectId

from feeds.documents import PUBLIC
from feeds.selectors import streams
from feeds.selectors.streams import Graph, hidden_with_blockers, news_query, posts_page, wall_query
from profiles import selectors as people
from socialsite.cursors import Cursor, sort_key
from timelines.selectors.entries import entry_for, repost_entry
from timelines.stores.base import Chunk, Lookups, TimelineStore


def _reposters(
    kind: str,
    owner: str,
    blocked: Collection[str] = (),
    graph: Graph | None = None,
) -> list[str]:
    """Whose reposts a timeline shows: a wall its owner's, the news the
    owner's and those of the people they follow (not ones they hide)."""
    if kind == "wall":
        return [owner]
    followed, _ = graph or people.news_graph(owner)
    return sorted(({owner} | set(followed)) - set(blocked))


def reposts_page(reposters: list[str], before: Cursor | None, limit: int) -> list[dict]:
    """The newest reposts by `reposters` older than `before`, as entries: one
    query on `post_repost`'s (by, ts, _id) index, `$in` lists split as
    `news_query` splits them so that each keeps the index's order."""
    return [repost_entry(row, [PUBLIC]) for row in streams.reposts_by(reposters, before, limit)]


def read_entries(
    kind: str,
    owner: str,
    before: Cursor | None,
    limit: int,
    blocked: Collection[str] = (),
    *,
    tags: Collection[str] = (),
    blockers: Collection[str] | None = None,
) -> Chunk:
    """Posts and reposts, merged in (ts, id) order: each query returns its
    `limit + 1` newest, which hold the merged page's `limit + 1` newest.
    `blockers`: who blocked the owner, when the page read them already."""
    graph = people.news_graph(owner) if kind == "news" else None
    if kind == "news":
        left_out = hidden_with_blockers(owner, blocked, tags, blockers)
        query = news_query(owner, left_out, graph, tags)
    else:
        query = wall_query(owner)
    posts = posts_page(query, before, limit + 1)
    # Entries from the read model carry the post: it is loaded already. A
    # repost's links to its original, read with the page's other links.
    entries = [entry_for(p, embed=True, stored=False) for p in posts]
    entries += reposts_page(_reposters(kind, owner, blocked, graph), before, limit + 1)
    entries.sort(key=sort_key, reverse=True)
    return Chunk(entries[:limit], exhausted=len(entries) <= limit)


def reposts_above(kind: str, owner: str, post_ids: list, after: Cursor) -> list[tuple]:
    """(post, reposter) of the reposts of `post_ids` that the timeline shows
    at or above `after`: the unique (post, by) index, after one graph read
    for the news."""
    reposters = _reposters(kind, owner)
    rows = streams.reposts_of_since(post_ids, reposters, after)
    return [(r["post"], r["by"]) for r in rows]


class ReadStore(TimelineStore):
    name = "read"
    stores_entries = False

    # Nothing is stored, so there is nothing to write, remove or refresh.
    def deliver(self, kind: str, owners: list[str], entry: dict) -> None:
        return None

    def append(self, kind: str, owner: str, entries: list[dict]) -> None:
        return None

    def replace(self, kind: str, owner: str, entries: list[dict]) -> None:
        return None

    def entries(
        self,
        kind: str,
        owner: str,
        before: Cursor | None,
        limit: int,
        *,
        copies: bool = True,
        lookups: Lookups | None = None,
    ) -> Chunk:
        return read_entries(kind, owner, before, limit)

    def reposts_above(self, kind: str, owner: str, post_ids: list, after: Cursor) -> list[tuple]:
        return reposts_above(kind, owner, post_ids, after)

    def remove_post(self, post_id: ObjectId) -> None:
        return None

    def remove_entries(self, entry_ids: list) -> None:
        return None

    def remove_author(self, kind: str, owner: str, author: str) -> None:
        return None

    def remove_author_everywhere(self, author: str) -> None:
        return None

    def update_embedded(self, post_id: ObjectId, fields: dict) -> None:
        return None

    def stats(self) -> dict:
        return {"collection": None, "documents": 0, "entries": 0}
