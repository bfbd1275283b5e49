"""Fan-out on write: delivering posts into timelines, and keeping them right
when the graph changes.

The post is written first and is the system of record; delivery runs after,
in a task, and is idempotent (DESIGN.md §7). Followers are read once from the
`followers` edge collection (a covered index read), filtered to active
readers in one query per FEED_ACTIVE_LOOKUP readers, and written in batches
of FEED_FANOUT_BATCH: one `update_many`/bulk write with `$in` per batch, never
one write per follower. Readers not seen for FEED_ACTIVE_DAYS get nothing
(as Mastodon and Twitter do); their timelines are rebuilt when they return.
"""

import logging
from datetime import timedelta

from django.conf import settings
from pymongo import ReturnDocument

from feeds.documents import ALL_CIRCLES, CARD_FIELDS, LIVE, PUBLIC, Post
from feeds.entries import entry_for
from feeds.timelines import get_store
from feeds.timelines.read import read_entries
from feeds.visibility import can_see, circles_placed_in
from profiles.documents import FollowerEdge, FollowingEdge, User
from socialsite.clock import now

log = logging.getLogger(__name__)


def _chunks(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def audience(post: dict) -> list[str]:
    """Who gets the post in their news (seed 000's `post()`), before filtering."""
    author, circles = post["by"]["id"], post["circles"]
    if PUBLIC in circles:
        rows = FollowerEdge._get_collection().find({"_f": author}, {"_id": 0, "_t": 1})
    elif ALL_CIRCLES in circles:
        rows = FollowingEdge._get_collection().find(
            {"_f": author, "_g.0": {"$exists": True}}, {"_id": 0, "_t": 1}
        )
    else:
        rows = FollowingEdge._get_collection().find(
            {"_f": author, "_g": {"$in": circles}}, {"_id": 0, "_t": 1}
        )
    return sorted({row["_t"] for row in rows} | {author})


def active_readers(readers: list[str], author: str) -> list[str]:
    """Readers seen lately, not suspended, who have not blocked the author."""
    cutoff = now() - timedelta(days=settings.FEED_ACTIVE_DAYS)
    active = []
    for chunk in _chunks(readers, settings.FEED_ACTIVE_LOOKUP):
        rows = User._get_collection().find(
            {
                "_id": {"$in": chunk},
                "status": "active",
                "last_seen": {"$gte": cutoff},
                "blocked": {"$ne": author},
            },
            {"_id": 1},
        )
        active += [row["_id"] for row in rows]
    return sorted(set(active) | ({author} & set(readers)))


def deliver_post(post_id) -> int:
    """Deliver one post to its walls and news feeds; returns the readers reached.

    Safe to run again at any point: every write is idempotent, and a post that
    is already delivered (or deleted) is left alone.
    """
    posts = Post._get_collection()
    post = posts.find_one_and_update(
        {"_id": post_id, "delivery.state": {"$in": ["pending", "delivering"]}, **LIVE},
        {
            "$set": {"delivery.state": "delivering", "delivery.started": now()},
            "$inc": {"delivery.attempts": 1},
        },
        projection=CARD_FIELDS,
        return_document=ReturnDocument.AFTER,
    )
    if post is None:
        return 0
    store = get_store()
    readers = []
    if store.stores_entries:
        entry = entry_for(post)
        store.deliver("wall", sorted({post["by"]["id"], post.get("to")} - {None}), entry)
        readers = active_readers(audience(post), post["by"]["id"])
        for batch in _chunks(readers, settings.FEED_FANOUT_BATCH):
            store.deliver("news", batch, entry)
        # A delete or a moderator's removal that ran while we were writing
        # removed the entries before ours landed: look once more, after them.
        if posts.count_documents({"_id": post_id, **LIVE}, limit=1) == 0:
            store.remove_post(post_id)
    posts.update_one(
        {"_id": post_id},
        {
            "$set": {
                "delivery.state": "done",
                "delivery.finished": now(),
                "delivery.readers": len(readers),
            }
        },
    )
    return len(readers)


def resync(reader: str, author: str) -> None:
    """Make `reader`'s news hold exactly the author's recent posts they may see.

    Runs after a follow, an unfollow, a block or a circle change between the
    two: the author's entries are taken out, then up to FEED_BACKFILL of their
    newest posts that the reader may now see are put back.
    """
    store = get_store()
    if not store.stores_entries:
        return
    store.remove_author("news", reader, author)
    viewer = User.objects(handle=reader).only("handle", "blocked", "status").first()
    if viewer is None or author in viewer.blocked or viewer.status != "active":
        return
    follows = FollowingEdge.objects(follower=reader, followee=author).count() > 0
    placed = circles_placed_in(reader, [author])

    def delivered_to_reader(post: dict) -> bool:
        # The rule `deliver_post` applies: public posts reach followers,
        # circle posts reach the circles' members.
        if PUBLIC in post["circles"]:
            return follows
        return can_see(viewer, {**post, "to": None}, placed)

    cursor = Post._get_collection().find({"by.id": author, **LIVE}, CARD_FIELDS)
    cursor = cursor.sort([("ts", -1), ("_id", -1)]).limit(settings.FEED_BACKFILL * 4)
    visible = [p for p in cursor if delivered_to_reader(p)]
    store.append("news", reader, [entry_for(p) for p in visible[: settings.FEED_BACKFILL]])


def rebuild(owner: str, kind: str) -> None:
    """Rebuild one timeline from the read model (returning readers, the command)."""
    store = get_store()
    user = User.objects(handle=owner).only("handle", "blocked").first()
    if store.stores_entries and user is not None:
        limit = settings.FEED_REBUILD_LIMIT
        chunk = read_entries(kind, owner, None, limit, user.blocked)
        entries = [entry_for(_post_of(e)) for e in chunk.entries]
        store.replace(kind, owner, entries)
    User._get_collection().update_one({"_id": owner}, {"$unset": {"feed_rebuild": ""}})


def _post_of(entry: dict) -> dict:
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}


def remove_everywhere(post_id) -> None:
    get_store().remove_post(post_id)


def remove_author_everywhere(author: str) -> None:
    get_store().remove_author_everywhere(author)


def refresh_copies(post_id, fields: list[str]) -> None:
    """Copy the live values of `fields` into every embedded copy of the post."""
    if not settings.FEED_EMBED:
        return
    post = Post._get_collection().find_one({"_id": post_id}, {name: 1 for name in fields})
    if post is not None:
        get_store().update_embedded(post_id, {name: post.get(name) for name in fields})


def refresh_circle_copies(owner: str, circle: str) -> int:
    """After a circle rename: refresh the `circles` of the embedded copies of
    the owner's posts shared with `circle` (its new name). Returns the posts.

    One multi-document update per post, since reaching every matching entry
    of one array needs `arrayFilters`, which the embedded demo database
    lacks. Renames are rare and run in a task; link entries need nothing."""
    if not settings.FEED_EMBED:
        return 0
    rows = Post._get_collection().find({"by.id": owner, "circles": circle}, {"_id": 1})
    count = 0
    for row in rows:
        refresh_copies(row["_id"], ["circles"])
        count += 1
    return count
