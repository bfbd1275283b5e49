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
    if followed:
        clauses.append({"by.id": {"$in": followed}, "circles": PUBLIC})
    if circled:
        clauses.append({"by.id": {"$in": sorted(circled)}, "circles": ALL_CIRCLES})
        clauses += [
            {"by.id": author, "circles": {"$in": groups}} for author, groups in circled.items()
        ]
    query: dict = {"$or": clauses}
    if blocked:
        query["by.id"] = {"$nin": list(blocked)}
    return query


def wall_query(owner: str) -> dict:
    return {"$or": [{"by.id": owner}, {"to": owner}]}


def posts_page(query: dict, before, limit: int) -> list[dict]:
    conditions = [query, LIVE]
    if before is not None:
        conditions.append(
            {"$or": [{"ts": {"$lt": before.ts}}, {"ts": before.ts, "_id": {"$lt": before.id}}]}
        )
    query = {"$and": conditions}
    return list(Post._get_collection().find(query, CARD_FIELDS).sort(NEWEST_FIRST).limit(limit))


def read_entries(kind: str, owner: str, before, limit: int, blocked=()) -> Chunk:
    query = news_query(owner, blocked) if kind == "news" else wall_query(owner)
    posts = posts_page(query, before, limit + 1)
    # Entries from the read model always carry the post: it is loaded already.
    entries = [entry_for(p, embed=True) for p in posts]
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
