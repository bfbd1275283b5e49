"""`read`: fan-out on read. Nothing is stored; a page is one query on `post`.

The article's "form the tape when reading": the followed accounts' public
posts, plus the posts of authors who placed the reader in a circle, with the
circle condition pushed into the query so that no over-fetching is needed.
It is also the fallback of the other models (no cache yet, past the cap,
rebuilding).
"""

from collections.abc import Collection

from bson import ObjectId

from feeds.documents import (
    ALL_CIRCLES,
    CARD_FIELDS,
    LIVE,
    PUBLIC,
    Post,
    PostRepost,
    card_exclusion,
)
from feeds.selectors.entries import entry_for, repost_entry
from feeds.timelines.base import FOUND, Chunk, Lookups, TimelineStore
from profiles import selectors as people
from socialsite.cursors import Cursor, sort_key

NEWEST_FIRST = [("ts", -1), ("_id", -1)]
# The planner's limit on `$in` points it explodes to keep an index's sort order
# (internalQueryMaxScansToExplode).
EXPLODE_LIMIT = 200


# Whom a reader follows, and who placed them in which circles.
Graph = tuple[list[str], dict[str, list[str]]]


def news_query(
    owner: str,
    blocked: Collection[str] = (),
    graph: Graph | None = None,
    tags: Collection[str] = (),
) -> dict:
    """What `owner`'s news feed holds, as one query on `post` (one graph read
    first, unless `graph` is `people.news_graph(owner)` already): their own
    posts, those of whom they follow, and the public posts of the tags they
    follow (docs/discovery.md#following-a-tag)."""
    followed, circled = graph or people.news_graph(owner)
    clauses: list[dict] = [{"by.id": owner}]
    if tags:
        clauses.append({"tags": {"$in": sorted(tags)}, "circles": PUBLIC})
    clauses += [{"by.id": {"$in": some}, "circles": PUBLIC} for some in _chunks(followed)]
    if circled:
        clauses += [
            {"by.id": {"$in": some}, "circles": ALL_CIRCLES} for some in _chunks(sorted(circled))
        ]
        clauses += [
            {"by.id": author, "circles": {"$in": groups}} for author, groups in circled.items()
        ]
    query: dict = {"$or": clauses}
    if blocked:
        query["by.id"] = {"$nin": list(blocked)}
    return query


def news_blockers(reader: str, tags: Collection[str]) -> frozenset[str]:
    """Everyone who blocked `reader`, when the reader follows tags (which
    bring strangers' posts; without them nothing is read): one read on the
    `user.blocked` index. Every model's followed-tags read leaves them out in
    its query, before its sort and limit, so that however many of them post
    a followed tag the page and the new-posts count stay exact
    (docs/discovery.md#following-a-tag). A page reads them once."""
    if not tags:
        return frozenset()
    return frozenset(people.blockers_of(reader))


def hidden_with_blockers(
    reader: str,
    hidden: Collection[str],
    tags: Collection[str],
    blockers: Collection[str] | None = None,
) -> list[str]:
    """The authors a news query leaves out: with followed tags, also
    everyone who blocked the reader (`blockers`, when the page read them
    already; else `news_blockers` reads them), so the query's pages are exact."""
    if not tags:
        return list(hidden)
    if blockers is None:
        blockers = news_blockers(reader, tags)
    return sorted(set(hidden) | set(blockers))


def _chunks(authors: list[str]) -> list[list[str]]:
    """`$in` lists of at most EXPLODE_LIMIT authors, one `$or` clause each.

    The planner gives an `$in` the `by_ts` order by exploding it into one index
    scan per author merged in `(ts, _id)` order, but only up to 200 points: past
    that it reads every post of every author and sorts them in memory. Each
    clause of an `$or` is planned on its own, so clauses of 200 keep the merge.
    """
    return [authors[i : i + EXPLODE_LIMIT] for i in range(0, len(authors), EXPLODE_LIMIT)]


def wall_query(owner: str) -> dict:
    return {"$or": [{"by.id": owner}, {"to": owner}]}


def posts_page(
    query: dict, before: Cursor | None, limit: int, *, lookups: Lookups | None = None
) -> list[dict]:
    """Posts matching `query`, newest first, older than `before`. With
    `lookups`, one aggregate instead of a `find` that also brings what the
    page shows beside each post (`FOUND` on each: the reader's like and vote,
    feeds/selectors/lookups.py)."""
    if lookups is not None:
        return _posts_page_looked_up(_page_filter(query, before), limit, lookups)
    return list(
        Post._get_collection()
        .find(_page_filter(query, before), CARD_FIELDS)
        .sort(NEWEST_FIRST)
        .limit(limit)
    )


def _posts_page_looked_up(query: dict, limit: int, lookups: Lookups) -> list[dict]:
    pipeline = [
        {"$match": query},
        {"$sort": dict(NEWEST_FIRST)},
        {"$limit": limit},
        {"$project": card_exclusion()},
        # The page as one row: the posts, and each as an entry whose copy is
        # the post itself (nothing to link), for the lookups to work on.
        {
            "$group": {
                "_id": None,
                "posts": {"$push": "$$ROOT"},
                "page": {
                    "$push": {"id": "$_id", "by": "$by.id", "circles": "$circles", "post": True}
                },
            }
        },
        *lookups.stages("page"),
    ]
    row = next(iter(Post._get_collection().aggregate(pipeline)), None)
    if row is None:
        return []
    found = {entry["id"]: entry[FOUND] for entry in lookups.take(row, "page")}
    posts = [
        {**post, FOUND: {k: v for k, v in found[post["_id"]].items() if k != "linked"}}
        for post in row["posts"]
    ]
    # `$push` keeps the sorted order on a server as here; sorted again, exactly.
    return sorted(posts, key=lambda post: (post["ts"], post["_id"]), reverse=True)


def _page_filter(query: dict, before: Cursor | None) -> dict:
    conditions = [query, LIVE]
    if before is not None:
        # The plain `$lte` bounds every `by_ts`/`to_ts` scan (the planner pushes
        # it into each clause of the feed's `$or`); the `$or` only breaks ties
        # between posts of the same millisecond and bounds nothing by itself.
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    return {"$and": conditions}


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
    clauses = [{"by": {"$in": some}} for some in _chunks(reposters)]
    conditions: list[dict] = [clauses[0] if len(clauses) == 1 else {"$or": clauses}]
    if before is not None:
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    rows = PostRepost._get_collection().find(
        {"$and": conditions}, {"_id": 1, "post": 1, "by": 1, "ts": 1}
    )
    rows = rows.sort(NEWEST_FIRST).limit(limit)
    return [repost_entry(row, [PUBLIC]) for row in rows]


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
    rows = PostRepost._get_collection().find(
        {"post": {"$in": list(post_ids)}, "by": {"$in": reposters}, "ts": {"$gte": after.ts}},
        {"post": 1, "by": 1, "ts": 1},
    )
    return [(r["post"], r["by"]) for r in rows if sort_key(r | {"id": r["_id"]}) >= after]


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
