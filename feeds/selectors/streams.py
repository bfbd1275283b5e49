"""Posts as streams: the queries on `post` and `post_repost` that timelines
page through (docs/performance.md): what a news feed and a wall hold as one
query each, a keyset page of posts (optionally with the page's lookups in
the same aggregate), and reposts by some people. Timelines decide which
stream a page reads (timelines/stores/read.py, the fan-out-on-read model);
these say how `post` answers it on its indexes.
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
from feeds.page_keys import FOUND
from feeds.selectors.lookups import PageLookups
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
    clauses += [{"by.id": {"$in": some}, "circles": PUBLIC} for some in chunks(followed)]
    if circled:
        clauses += [
            {"by.id": {"$in": some}, "circles": ALL_CIRCLES} for some in chunks(sorted(circled))
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


def chunks(authors: list[str]) -> list[list[str]]:
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
    query: dict, before: Cursor | None, limit: int, *, lookups: PageLookups | None = None
) -> list[dict]:
    """Posts matching `query`, newest first, older than `before`. With
    `lookups`, one aggregate instead of a `find` that also brings what the
    page shows beside each post (`FOUND` on each: the reader's like and vote,
    feeds/selectors/lookups.py)."""
    if lookups is not None:
        return _posts_page_looked_up(page_filter(query, before), limit, lookups)
    return list(
        Post._get_collection()
        .find(page_filter(query, before), CARD_FIELDS)
        .sort(NEWEST_FIRST)
        .limit(limit)
    )


def _posts_page_looked_up(query: dict, limit: int, lookups: PageLookups) -> list[dict]:
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


def page_filter(query: dict, before: Cursor | None) -> dict:
    conditions = [query, LIVE]
    if before is not None:
        # The plain `$lte` bounds every `by_ts`/`to_ts` scan (the planner pushes
        # it into each clause of the feed's `$or`); the `$or` only breaks ties
        # between posts of the same millisecond and bounds nothing by itself.
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    return {"$and": conditions}


def reposts_by(reposters: list[str], before: Cursor | None, limit: int) -> list[dict]:
    """The newest reposts by `reposters` older than `before`: one query on
    `post_repost`'s (by, ts, _id) index, `$in` lists split as `news_query`
    splits them so that each keeps the index's order."""
    clauses = [{"by": {"$in": some}} for some in chunks(reposters)]
    conditions: list[dict] = [clauses[0] if len(clauses) == 1 else {"$or": clauses}]
    if before is not None:
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    rows = PostRepost._get_collection().find(
        {"$and": conditions}, {"_id": 1, "post": 1, "by": 1, "ts": 1}
    )
    return list(rows.sort(NEWEST_FIRST).limit(limit))


def reposts_of_since(post_ids: list[ObjectId], reposters: list[str], after: Cursor) -> list[dict]:
    """The reposts of `post_ids` by `reposters` at or after `after`'s time:
    the unique (post, by) index."""
    rows = PostRepost._get_collection().find(
        {"post": {"$in": list(post_ids)}, "by": {"$in": reposters}, "ts": {"$gte": after.ts}},
        {"post": 1, "by": 1, "ts": 1},
    )
    return [r for r in rows if sort_key(r | {"id": r["_id"]}) >= after]


def tagged_posts(tags: Collection[str], then: list[dict]) -> list[dict]:
    """Posts carrying any of `tags` (the `tags` index), through the stages
    `then` (the reader's window and projection: timelines/selectors/followed_tags.py)."""
    pipeline = [{"$match": {"tags": {"$in": list(tags)}}}, *then]
    return list(Post._get_collection().aggregate(pipeline))


def newest_by(author: str, limit: int) -> list[dict]:
    """The author's newest live posts as cards, newest first (a backfill)."""
    rows = Post._get_collection().find({"by.id": author, **LIVE}, CARD_FIELDS)
    return list(rows.sort(NEWEST_FIRST).limit(limit))


def ids_shared_with(owner: str, circle: str) -> list[ObjectId]:
    """The ids of the owner's posts shared with `circle`."""
    rows = Post._get_collection().find({"by.id": owner, "circles": circle}, {"_id": 1})
    return [row["_id"] for row in rows]


def pinned_posts(owner: str, ids: tuple[ObjectId, ...]) -> list[dict]:
    """The owner's pins that may show, in pin order: one read by `_id`."""
    rows = Post._get_collection().find(
        {"_id": {"$in": list(ids)}, "by.id": owner, "circles": PUBLIC, **LIVE}, CARD_FIELDS
    )
    found = {row["_id"]: row for row in rows}
    return [found[post_id] for post_id in ids if post_id in found]


def live_among(post_ids: list[ObjectId], fields: dict) -> list[dict]:
    """`fields` of the live posts among `post_ids`: one `$in` on `_id`."""
    return list(Post._get_collection().find({"_id": {"$in": post_ids}, **LIVE}, fields))


def posts_newest(query: dict, fields: dict, limit: int) -> list[dict]:
    """`fields` of the newest posts matching a stream's query (`news_query`,
    bounded by a cursor), newest first: the query's own index order."""
    return list(Post._get_collection().find(query, fields).sort(NEWEST_FIRST).limit(limit))


def reposts_newest(conditions: list[dict], limit: int) -> list[dict]:
    """(post, by) of the newest reposts meeting all `conditions` (`by` lists
    split as `chunks` splits them), newest first."""
    rows = PostRepost._get_collection().find({"$and": conditions}, {"_id": 0, "post": 1, "by": 1})
    return list(rows.sort(NEWEST_FIRST).limit(limit))
