"""`read`: fan-out on read. Nothing is stored; a page is one query on `post`.

The article's "form the tape when reading": the followed accounts' public
posts, plus the posts of authors who placed the reader in a circle, with the
circle condition pushed into the query so that no over-fetching is needed.
It is also the fallback of the other models (no cache yet, past the cap,
rebuilding).
"""

from feeds.documents import ALL_CIRCLES, CARD_FIELDS, LIVE, PUBLIC, Post
from feeds.entries import entry_for
from feeds.timelines.base import Chunk, TimelineStore
from profiles.documents import FollowingEdge

NEWEST_FIRST = [("ts", -1), ("_id", -1)]
# The planner's limit on `$in` points it explodes to keep an index's sort order
# (internalQueryMaxScansToExplode).
EXPLODE_LIMIT = 200


def news_query(owner: str, blocked: list[str] = ()) -> dict:
    """What `owner`'s news feed holds, as one query on `post` (one graph read first)."""
    edges = FollowingEdge._get_collection().find(
        {"$or": [{"_f": owner}, {"_t": owner, "_g.0": {"$exists": True}}]},
        {"_id": 0, "_f": 1, "_t": 1, "_g": 1},
    )
    followed, circled = [], {}
    for edge in edges:
        if edge["_f"] == owner:
            followed.append(edge["_t"])
        else:
            circled[edge["_f"]] = edge["_g"]
    clauses: list[dict] = [{"by.id": owner}]
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


def posts_page(query: dict, before, limit: int) -> list[dict]:
    conditions = [query, LIVE]
    if before is not None:
        # The plain `$lte` bounds every `by_ts`/`to_ts` scan (the planner pushes
        # it into each clause of the feed's `$or`); the `$or` only breaks ties
        # between posts of the same millisecond and bounds nothing by itself.
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    query = {"$and": conditions}
    return list(Post._get_collection().find(query, CARD_FIELDS).sort(NEWEST_FIRST).limit(limit))


def read_entries(kind: str, owner: str, before, limit: int, blocked=()) -> Chunk:
    query = news_query(owner, blocked) if kind == "news" else wall_query(owner)
    posts = posts_page(query, before, limit + 1)
    # Entries from the read model always carry the post: it is loaded already.
    entries = [entry_for(p, embed=True, stored=False) for p in posts]
    return Chunk(entries[:limit], exhausted=len(entries) <= limit)


class ReadStore(TimelineStore):
    name = "read"
    stores_entries = False

    # Nothing is stored, so there is nothing to write, remove or refresh.
    def deliver(self, kind, owners, entry):
        return None

    def append(self, kind, owner, entries):
        return None

    def replace(self, kind, owner, entries):
        return None

    def entries(self, kind, owner, before, limit):
        return read_entries(kind, owner, before, limit)

    def remove_post(self, post_id):
        return None

    def remove_author(self, kind, owner, author):
        return None

    def remove_author_everywhere(self, author):
        return None

    def update_embedded(self, post_id, fields):
        return None

    def stats(self):
        return {"collection": None, "documents": 0, "entries": 0}
