"""Reads of people and the follower graph that the apps above need.

The feeds, comments, moderation and notifications never query `user`,
`following` or `followers` themselves: they ask here, one function per
question (docs/architecture.md#dependencies-point-one-way). Each is one
round trip unless it says otherwise, served by the edge index `(_f, _t)` or
by `_id`.
"""

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from profiles.documents import FollowerEdge, FollowingEdge, User


def users_read(handles: list[str] | set[str], fields: dict) -> list[dict]:
    """The users among `handles` (one `$in`), with `fields` (a projection)."""
    return list(User._get_collection().find({"_id": {"$in": list(handles)}}, fields))


def handles_all() -> list[str]:
    """Every handle, in order (a maintenance command's walk, never a page's)."""
    rows = User._get_collection().find({}, {"_id": 1}).sort("_id", 1)
    return [row["_id"] for row in rows]


def active_among(handles: Iterable[str]) -> set[str]:
    """Which of `handles` are active (not suspended) users: one `$in`."""
    rows = User._get_collection().find(
        {"_id": {"$in": sorted(set(handles))}, "status": "active"}, {"_id": 1}
    )
    return {row["_id"] for row in rows}


def readers_among(
    handles: list[str], *, seen_since: datetime, not_blocking: list[str]
) -> list[str]:
    """Which of `handles` are active, seen since `seen_since`, and blocked
    none of `not_blocking`. Sized so every match comes in the first batch:
    one round trip, no getMore."""
    unblocked = {"$ne": not_blocking[0]} if len(not_blocking) == 1 else {"$nin": not_blocking}
    rows = User._get_collection().find(
        {
            "_id": {"$in": handles},
            "status": "active",
            "last_seen": {"$gte": seen_since},
            "blocked": unblocked,
        },
        {"_id": 1},
    )
    return [row["_id"] for row in rows.batch_size(len(handles) + 1)]


def recent_readers(seen_since: datetime) -> dict[str, set[str]]:
    """Every active user seen since `seen_since`, with whom they blocked (the
    demo's bulk fan-out; a page never reads every user)."""
    rows = User._get_collection().find(
        {"status": "active", "last_seen": {"$gte": seen_since}}, {"blocked": 1}
    )
    return {row["_id"]: set(row.get("blocked") or ()) for row in rows}


def block_between(one: str, other: str) -> bool:
    """Whether either of the two blocked the other: one read by `_id`."""
    row = User._get_collection().find_one(
        {"$or": [{"_id": one, "blocked": other}, {"_id": other, "blocked": one}]}, {"_id": 1}
    )
    return row is not None


def blocks(blocker: str, blocked: str) -> bool:
    """Whether `blocker` blocked `blocked`: one read by `_id`."""
    row = User._get_collection().find_one({"_id": blocker, "blocked": blocked}, {"_id": 1})
    return row is not None


def suspended_among(handles: list[str] | set[str]) -> set[str]:
    """Which of `handles` are suspended: one `$in` read, none for no one."""
    handles = sorted(set(handles))
    if not handles:
        return set()
    rows = User._get_collection().find(
        {"_id": {"$in": handles}, "status": "suspended"}, {"_id": 1}
    )
    return {row["_id"] for row in rows}


def blockers_of(handle: str) -> set[str]:
    """Everyone who blocked `handle`, on the `blocked` index (a page that
    shows strangers' posts leaves theirs out)."""
    rows = User._get_collection().find({"blocked": handle}, {"_id": 1})
    return {row["_id"] for row in rows}


def blockers_among(handle: str, among: list[str]) -> set[str]:
    """Which of `among` blocked `handle`: one `$in` read."""
    rows = User._get_collection().find({"_id": {"$in": among}, "blocked": handle}, {"_id": 1})
    return {row["_id"] for row in rows}


def users_counts(day: datetime, week: datetime, statuses: tuple[str, ...] | list[str]) -> dict:
    """The moderation dashboard's figures: accounts created since `day`, since
    `week`, in all, and suspended. Naming every status lets `(status,
    -created)` bound each count as index ranges instead of a scan."""
    users = User._get_collection()
    every_status = {"status": {"$in": list(statuses)}}
    return {
        "day": users.count_documents({**every_status, "created": {"$gte": day}}),
        "week": users.count_documents({**every_status, "created": {"$gte": week}}),
        "all": users.estimated_document_count(),
        "suspended": users.count_documents({"status": "suspended"}),
    }


def follows(follower: str, followee: str) -> bool:
    """Whether `follower` follows `followee`: one covered point read."""
    edges = FollowingEdge._get_collection()
    return edges.count_documents({"_f": follower, "_t": followee}, limit=1) > 0


def followed_among(follower: str, handles: Iterable[str]) -> set[str]:
    """Which of `handles` `follower` follows: one covered `$in` read."""
    handles = sorted(set(handles))
    if not handles:
        return set()
    rows = FollowingEdge._get_collection().find(
        {"_f": follower, "_t": {"$in": handles}}, {"_id": 0, "_t": 1}
    )
    return {row["_t"] for row in rows}


def followers_among(handle: str, among: Iterable[str]) -> set[str]:
    """Which of `among` follow `handle`: one covered read of `followers`."""
    among = sorted(set(among))
    if not among:
        return set()
    rows = FollowerEdge._get_collection().find(
        {"_f": handle, "_t": {"$in": among}}, {"_id": 0, "_t": 1}
    )
    return {row["_t"] for row in rows}


def followed_among_joined(follower: str, handles: Iterable[str], then: list[dict]) -> dict | None:
    """`followed_among` as one aggregate whose row, `{"followed": [...]}`,
    goes on through another app's `then` stages (a `$lookup` of what the
    followed wrote): one round trip for both. None when `follower` follows
    none of `handles`."""
    handles = sorted(set(handles))
    if not handles:
        return None
    pipeline = [
        {"$match": {"_f": follower, "_t": {"$in": handles}}},
        {"$group": {"_id": None, "followed": {"$push": "$_t"}}},
        *then,
    ]
    return next(iter(FollowingEdge._get_collection().aggregate(pipeline)), None)


def handles_with_followers_over(count: int) -> list[str]:
    """Everyone followed by more than `count`: a scan of `user` (no index on
    the count), for the rare job that asks (the demo's seeding)."""
    rows = User._get_collection().find({"followers_count": {"$gt": count}}, {"_id": 1})
    return sorted(row["_id"] for row in rows)


def followed_by(handle: str) -> set[str]:
    """Whom `handle` follows (demo data; pages ask narrower questions)."""
    rows = FollowingEdge._get_collection().find({"_f": handle}, {"_t": 1})
    return {row["_t"] for row in rows}


def followed_by_any(handles: list[str], limit: int = 2000) -> list[str]:
    """Whom any of `handles` follows, once per follow (so a person followed by
    three of them is listed three times): the `(_f, _t)` index, at most
    `limit` edges (suggestions, feeds/selectors/suggestions.py)."""
    rows = (
        FollowingEdge._get_collection()
        .find({"_f": {"$in": list(handles)}}, {"_id": 0, "_t": 1})
        .limit(limit)
    )
    return [row["_t"] for row in rows]


def followers_since(handle: str) -> list[dict]:
    """`handle`'s followers with when each followed (`_t`, `since`)."""
    return list(FollowerEdge._get_collection().find({"_f": handle}, {"_t": 1, "since": 1}))


def news_graph(owner: str) -> tuple[list[str], dict[str, list[str]]]:
    """Whom `owner` follows, and who placed `owner` in which circles: one read."""
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
    return followed, circled


def circles_placed_in(viewer: str, authors: list[str]) -> dict[str, list[str]]:
    """For each of `authors`, the circles they placed `viewer` in: one indexed
    query. An edge being taken down (an unfollow or a block in progress) no
    longer counts: its author has already decided."""
    if not authors:
        return {}
    rows = FollowingEdge._get_collection().find(
        {"_f": {"$in": authors}, "_t": viewer, "state": {"$ne": "removing"}},
        {"_id": 0, "_f": 1, "_g": 1},
    )
    return {row["_f"]: row.get("_g", []) for row in rows}


def circles_placed_in_lookup(authors_field: str, viewer: str, into: str) -> dict:
    """`circles_placed_in` as a `$lookup` stage, for another app's aggregate
    whose rows hold an array of authors at `authors_field`: `into` holds
    the edges author -> viewer (`_f`, `_g`) that are not being taken down.
    A point read of the `(_f, _t)` index per author."""
    return {
        "$lookup": {
            "from": FollowingEdge._get_collection_name(),
            "localField": authors_field,
            "foreignField": "_f",
            "pipeline": [
                {"$match": {"_t": viewer, "state": {"$ne": "removing"}}},
                {"$project": {"_id": 0, "_f": 1, "_g": 1}},
            ],
            "as": into,
        }
    }


def blocker_lookup(people_field: str, viewer: str, into: str) -> dict:
    """A `$lookup` stage for another app's aggregate whose rows name a person
    at `people_field`: `into` is non-empty when that person blocked `viewer`.
    A point read of `user` by `_id` per row (the block list is on the
    blocker's document)."""
    return {
        "$lookup": {
            "from": User._get_collection_name(),
            "localField": people_field,
            "foreignField": "_id",
            "pipeline": [{"$match": {"blocked": viewer}}, {"$project": {"_id": 1}}],
            "as": into,
        }
    }


def people_lookup(people_field: str, viewer: str, into: str) -> dict:
    """A `$lookup` stage for another app's aggregate whose rows hold an array
    of handles at `people_field`: `into` holds, for each of them, `_id`,
    `status`, and `blocks_viewer` (whether they blocked `viewer`). A point
    read of `user` by `_id` per handle."""
    return {
        "$lookup": {
            "from": User._get_collection_name(),
            "localField": people_field,
            "foreignField": "_id",
            "pipeline": [
                {
                    "$project": {
                        "_id": 1,
                        "status": 1,
                        "blocks_viewer": {"$in": [viewer, {"$ifNull": ["$blocked", []]}]},
                    }
                }
            ],
            "as": into,
        }
    }


def followed_lookup(people_field: str, follower: str, into: str) -> dict:
    """`followed_among` as a `$lookup` stage, for another app's aggregate
    whose rows hold an array of handles at `people_field`: `into` holds an
    edge (`_t`) for each of them `follower` follows. A point read of the
    `(_t, _f)` index per handle."""
    return {
        "$lookup": {
            "from": FollowingEdge._get_collection_name(),
            "localField": people_field,
            "foreignField": "_t",
            "pipeline": [{"$match": {"_f": follower}}, {"$project": {"_id": 0, "_t": 1}}],
            "as": into,
        }
    }


def audience_pages(
    author: str, *, public: bool, circles: list[str] | None, size: int
) -> Iterator[list[str]]:
    """Who hears from `author`, `size` handles at a time: their followers
    (`public`), everyone they placed in any circle (`circles` None), or the
    members of `circles`. Each page is a keyset read of the `(_f, _t)` index
    whose limit and batch size match (one more document than the page, which
    says whether another page follows): exactly one round trip per page, and
    a celebrity's audience is never held whole."""
    query: dict[str, Any]
    if public:
        edges, query = FollowerEdge._get_collection(), {"_f": author}
    elif circles is None:
        edges, query = FollowingEdge._get_collection(), {"_f": author, "_g.0": {"$exists": True}}
    else:
        edges, query = FollowingEdge._get_collection(), {"_f": author, "_g": {"$in": circles}}
    page = query
    while True:
        rows = edges.find(page, {"_id": 0, "_t": 1}).sort([("_f", 1), ("_t", 1)])
        handles = [row["_t"] for row in rows.limit(size + 1).batch_size(size + 1)]
        yield handles[:size]
        if len(handles) <= size:
            return
        page = {**query, "_t": {"$gt": handles[size - 1]}}


def graph_all() -> tuple[dict[str, list[str]], dict[str, list[tuple[str, set[str]]]]]:
    """The whole graph for the demo's bulk fan-out: each author's followers,
    and each author's circle placements (member, circles)."""
    followers: dict[str, list[str]] = {}
    for row in FollowerEdge._get_collection().find({}, {"_id": 0, "_f": 1, "_t": 1}):
        followers.setdefault(row["_f"], []).append(row["_t"])
    return followers, placements_all()


def placements_all() -> dict[str, list[tuple[str, set[str]]]]:
    """Every person's follows with the circles they placed each one in
    (member, circles), by person: the demo's plans of who sees what."""
    placed: dict[str, list[tuple[str, set[str]]]] = {}
    for row in FollowingEdge._get_collection().find({}, {"_id": 0, "_f": 1, "_t": 1, "_g": 1}):
        placed.setdefault(row["_f"], []).append((row["_t"], set(row.get("_g") or ())))
    return placed


def account_lookup(handle_field: str, into: str) -> dict:
    """A `$lookup` stage for another app's aggregate whose row names one
    person at `handle_field`: `into` holds that person's user document, so
    the row and the person come in one round trip (the client API reads a
    token with its person, as a session is read with its user). A point
    read of `user` by `_id`."""
    return {
        "$lookup": {
            "from": User._get_collection_name(),
            "localField": handle_field,
            "foreignField": "_id",
            "as": into,
        }
    }


def account_from_lookup(rows: list[dict]) -> User | None:
    """The active user an `account_lookup` brought, or None (none, or no
    longer active: suspended, being erased)."""
    if not rows:
        return None
    user = User._from_son(rows[0])
    return user if user.is_active else None


def users_estimated() -> int:
    """About how many accounts there are (the collection's metadata, no scan):
    the client API's instance figures."""
    return User._get_collection().estimated_document_count()
