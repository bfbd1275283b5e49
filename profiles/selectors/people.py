"""Every read that the profile, people, circles and search pages need."""

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings

from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.names import fold_name
from profiles.selectors.graph import followed_among

if TYPE_CHECKING:
    from pymongo.collection import Collection

    from profiles.auth import AnonymousVisitor


@dataclass
class Relationship:
    """How the viewer stands to another user, from two indexed point reads."""

    is_self: bool = False
    following: bool = False
    follows_you: bool = False
    circles: list[str] = field(default_factory=list)
    blocked: bool = False  # the viewer blocked them
    muted: bool = False  # the viewer muted them


@dataclass
class Page[T]:
    items: list[T]
    next_cursor: str | None


def user_active(handle: str) -> User | None:
    return User.objects(handle=handle, status="active").first()


def relationship(
    viewer: "User | AnonymousVisitor", other: User, *, edges: list[dict] | None = None
) -> Relationship:
    """Who follows whom between `viewer` and `other`. `edges`: the follow
    edges between them when already read (the session's read of a wall's
    owner brings them, socialsite/sessions.py); otherwise one query."""
    if not viewer.is_authenticated:
        return Relationship()
    if viewer.handle == other.handle:
        return Relationship(is_self=True)
    # One query answers both directions: the edges viewer->other and other->viewer.
    # Each `$or` branch names a whole `{_f, _t}` shard key, so a mongos asks
    # only the (at most two) shards holding those edges.
    if edges is None:
        edges = FollowingEdge._get_collection().find(
            {
                "$or": [
                    {"_f": viewer.handle, "_t": other.handle},
                    {"_f": other.handle, "_t": viewer.handle},
                ]
            },
            {"_id": 0, "_f": 1, "_g": 1},
        )
    rel = Relationship(blocked=other.handle in viewer.blocked, muted=other.handle in viewer.muted)
    for edge in edges:
        if edge["_f"] == viewer.handle:
            rel.following, rel.circles = True, list(edge.get("_g", []))
        else:
            rel.follows_you = True
    return rel


#: What a person card on a page shows.
CARD_FIELDS = ("handle", "name", "profile.bio", "followers_count")
#: What the client API's Account entity shows (api/entities/account.py).
ACCOUNT_FIELDS = (
    "handle",
    "name",
    "profile",
    "followers_count",
    "following_count",
    "posts_count",
    "created",
    "status",
    "role",
)


def _people(handles: list[str], fields: tuple[str, ...] = CARD_FIELDS) -> list[User]:
    """Display data for a page of handles, in the given order, in one query."""
    found = {u.handle: u for u in User.objects(handle__in=handles, status="active").only(*fields)}
    return [found[h] for h in handles if h in found]


def accounts(handles: list[str]) -> list[User]:
    """The active among `handles`, in that order, with ACCOUNT_FIELDS: one `$in` read."""
    return _people(handles, ACCOUNT_FIELDS) if handles else []


def _edge_page(
    collection: "Collection[dict[str, Any]]",
    owner: str,
    after: str | None,
    *,
    before: str | None = None,
    size: int | None = None,
    fields: tuple[str, ...] = CARD_FIELDS,
) -> Page[User]:
    """Keyset page of an edge list: a covered read of the `(_f, _t)` index.
    `before`: the page just above that handle instead (the client API's
    `min_id`), read backwards on the same index and turned round; its
    `next_cursor` is then its last handle (the rest follows it).

    `{_f: owner, _t > after}` is a range of the `{_f, _t}` shard key: a
    mongos reads only the chunks of that range, one shard for all but the
    largest lists, never a scatter over the cluster.
    """
    size = size or settings.GRAPH_PAGE_SIZE
    query: dict[str, object] = {"_f": owner}
    direction = -1 if before else 1
    if before:
        query["_t"] = {"$lt": before}
    elif after:
        query["_t"] = {"$gt": after}
    cursor = collection.find(query, {"_id": 0, "_t": 1}).sort(
        [("_f", direction), ("_t", direction)]
    )
    # The whole page in the first batch, whatever the size: one round trip.
    rows = list(cursor.limit(size + 1).batch_size(size + 1))
    handles = [r["_t"] for r in rows[:size]]
    if before:
        handles.reverse()
        return Page(_people(handles, fields), handles[-1] if handles else None)
    return Page(_people(handles, fields), handles[-1] if len(rows) > size else None)


def followers_page(
    handle: str,
    after: str | None = None,
    *,
    before: str | None = None,
    size: int | None = None,
    fields: tuple[str, ...] = CARD_FIELDS,
) -> Page[User]:
    return _edge_page(
        FollowerEdge._get_collection(), handle, after, before=before, size=size, fields=fields
    )


def following_page(
    handle: str,
    after: str | None = None,
    *,
    before: str | None = None,
    size: int | None = None,
    fields: tuple[str, ...] = CARD_FIELDS,
) -> Page[User]:
    return _edge_page(
        FollowingEdge._get_collection(), handle, after, before=before, size=size, fields=fields
    )


def circle_member_handles(owner: str, circle: str) -> list[str]:
    """Members of `owner`'s circle: one query on the `(_f, _g, _t)` index,
    targeted by `_f`, the shard key's prefix (as `circles_overview`)."""
    cursor = FollowingEdge._get_collection().find({"_f": owner, "_g": circle}, {"_id": 0, "_t": 1})
    return [row["_t"] for row in cursor]


def empty_circles(owner: str, circles: list[str]) -> list[str]:
    """Which of `owner`'s named circles have nobody in them: one indexed
    `(_f, _g)` existence read per circle (a post names one or two)."""
    edges = FollowingEdge._get_collection()
    return [
        name for name in circles if not edges.count_documents({"_f": owner, "_g": name}, limit=1)
    ]


def circles_overview(owner: User) -> list[tuple[str, list[User]]]:
    """Each of the owner's circles with its members: two queries in all."""
    edges = FollowingEdge._get_collection().find(
        {"_f": owner.handle, "_g": {"$in": owner.circles}}, {"_id": 0, "_t": 1, "_g": 1}
    )
    members: dict[str, list[str]] = {name: [] for name in owner.circles}
    for edge in edges:
        for name in edge.get("_g", []):
            if name in members:
                members[name].append(edge["_t"])
    everyone = {u.handle: u for u in _people(sorted({h for hs in members.values() for h in hs}))}
    return [
        (name, [everyone[h] for h in sorted(handles) if h in everyone])
        for name, handles in members.items()
    ]


def blocked_people(owner: User) -> list[User]:
    return _people(sorted(owner.blocked))


def muted_people(owner: User) -> list[User]:
    """The people the owner muted, by handle; no query when there are none."""
    return _people(sorted(owner.muted)) if owner.muted else []


@dataclass(frozen=True, slots=True)
class Person:
    """One search result: the fields `_person.html` shows, read as a plain
    row. Building a full `User` document per result cost more than the rest
    of the page's own work (docs/performance.md: app CPU)."""

    handle: str
    name: str
    bio: str
    followers_count: int | None

    @property
    def profile(self) -> dict:
        return {"bio": self.bio}  # as `User.profile.bio`, for the shared template


# What a search result needs from the user document, and nothing else.
PERSON_PROJECTION = {"name": 1, "profile.bio": 1, "followers_count": 1}


def search_people(
    query: str,
    after: str | None = None,
    viewer: "User | AnonymousVisitor | None" = None,
    *,
    size: int | None = None,
) -> Page[Person]:
    """Active people by handle or name prefix, case-insensitive; keyset-paginated
    by handle, `size` a page (SEARCH_PAGE_SIZE unless given). A signed-in
    viewer never finds someone they blocked or who blocked them
    (docs/privacy.md: blocks hide in both directions)."""
    size = size or settings.SEARCH_PAGE_SIZE
    rows = _matching_rows(
        query,
        after=after,
        limit=size + 1,
        status="active",
        projection=PERSON_PROJECTION,
        unseen=_block_filter(viewer),
    )
    people = [
        Person(
            handle=row["_id"],
            name=row.get("name") or "",
            bio=(row.get("profile") or {}).get("bio") or "",
            followers_count=row.get("followers_count"),
        )
        for row in rows[:size]
    ]
    return Page(people, people[-1].handle if len(rows) > size else None)


def follow_states(viewer: "User | AnonymousVisitor", handles: list[str]) -> dict[str, str]:
    """Per person listed, what the viewer's button says: "follow" or
    "following"; nothing for the viewer themselves, the people they blocked,
    or a visitor. One covered read of the viewer's edges."""
    if not isinstance(viewer, User) or not handles:
        return {}
    followed = followed_among(viewer.handle, handles)
    left_out = {viewer.handle, *viewer.blocked}
    return {
        handle: "following" if handle in followed else "follow"
        for handle in handles
        if handle not in left_out
    }


def _block_filter(viewer: "User | AnonymousVisitor | None") -> dict:
    """The conditions leaving out both sides of the viewer's blocks: the
    handles on the viewer's own (loaded) document, and anyone whose document
    lists the viewer. Residual conditions on the rows the index already
    bounds: no extra round trip."""
    if viewer is None or not viewer.is_authenticated:
        return {}
    unseen: dict = {"blocked": {"$ne": viewer.handle}}
    if viewer.blocked:
        unseen["_id"] = {"$nin": list(viewer.blocked)}
    return unseen


def matching_people(
    query: str,
    *,
    after: str | None,
    limit: int,
    status: str | None = "active",
    fields: tuple[str, ...] = ("handle", "name", "profile.bio", "followers_count"),
) -> list[User]:
    """Up to `limit` users whose handle or a name word starts with the query,
    in handle order after `after`, as `User` documents with only `fields`
    (the moderators' user list)."""
    projection = {}
    for name in fields:
        first, *rest = name.split(".")
        projection[".".join([User._fields[first].db_field, *rest])] = 1
    rows = _matching_rows(query, after=after, limit=limit, status=status, projection=projection)
    return [User._from_son(row) for row in rows]


def _matching_rows(
    query: str,
    *,
    after: str | None,
    limit: int,
    status: str | None,
    projection: dict,
    unseen: dict | None = None,
) -> list[dict]:
    """Up to `limit` raw user rows whose handle or a name word starts with
    the query, in handle order after `after`, narrowed by `unseen`.

    Two queries, each an index read in handle order, merged here: an `$or`
    of the two would end in a sort of every match. The handle branch is a
    prefix range of `_id`. The name branch is an equality on the multikey
    `(name_terms, _id)` index, which stores every prefix of the name and of
    its words (`name_terms`), so its matches come in `_id` order too.
    """
    prefix = fold_name(query)
    if not prefix:
        return []
    handle_prefix = re.sub(r"[^a-z0-9_]", "", query.lower())
    unseen = dict(unseen or {})
    base: dict = {} if status is None else {"status": status}
    base.update((key, value) for key, value in unseen.items() if key != "_id")
    found: dict[str, dict] = {}
    branches: list[tuple[str, object]] = [("name_terms", prefix)]
    if handle_prefix:
        branches.append(("_id", {"$gte": handle_prefix, "$lt": _successor(handle_prefix)}))
    users = User._get_collection()
    for field_name, condition in branches:
        query_filter = {**base, field_name: condition}
        handle_range = {**query_filter.get("_id", {}), **unseen.get("_id", {})}
        if after:
            handle_range["$gt"] = after
        if handle_range:
            query_filter["_id"] = handle_range
        rows = users.find(query_filter, projection).sort("_id", 1).limit(limit)
        found.update((row["_id"], row) for row in rows)
    return [found[handle] for handle in sorted(found)[:limit]]


def _successor(prefix: str) -> str:
    """The least string greater than every string starting with `prefix`."""
    following = ord(prefix[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:  # surrogates cannot be encoded: skip past them
        following = 0xE000
    return prefix[:-1] + chr(min(following, 0x10FFFF))
