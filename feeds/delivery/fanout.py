"""Fan-out on write: delivering posts into timelines, and keeping them right
when the graph changes.

The post is written first and is the system of record; delivery runs after,
in a task, and is idempotent (DESIGN.md §7). Followers are read from the
`followers` edge collection FEED_FANOUT_BATCH at a time (covered keyset reads
of its index, one round trip each); each batch is filtered to active readers
in one query (per FEED_ACTIVE_LOOKUP readers) and written with one
`update_many`/bulk write with `$in`, never one write per follower. Readers
not seen for FEED_ACTIVE_DAYS get nothing (as Mastodon and Twitter do);
their timelines are rebuilt when they return.

Every write goes to `write_stores()`: the configured model and, with
FEED_SHADOW_MODELS, the other stored models (Contract C), batch by batch,
one write per store per batch. A delivery that dies between two stores'
writes is simply run again: each store's write is idempotent, and a second
run asks the stores whose guard cannot see a whole timeline (`holding`)
which readers have the entry already.
"""

import logging
from collections.abc import Iterator
from datetime import timedelta

from bson.errors import InvalidDocument
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.errors import PyMongoError

from feeds.documents import ALL_CIRCLES, CARD_FIELDS, LIVE, PUBLIC, Post
from feeds.selectors.entries import SNAPSHOT_FIELDS, bounded_snapshot, entry_for
from feeds.selectors.visibility import can_see, circles_placed_in
from feeds.timelines import stores_copies, write_stores
from feeds.timelines.base import TimelineStore
from feeds.timelines.month import PlacementFailed
from feeds.timelines.read import read_entries, reposts_page
from profiles.documents import FollowerEdge, FollowingEdge, User
from socialsite.clock import now

log = logging.getLogger(__name__)

# What a delivery claims: the post as a card, and its attempts (a second one
# makes `deliver_to` ask which readers hold the entry already).
CLAIM_FIELDS = {name: 0 for name in CARD_FIELDS if name != "delivery"}


def _chunks(items: list, size: int):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def audience(post: dict) -> Iterator[list[str]]:
    """Who gets the post in their news (seed 000's `post()`), before filtering:
    batches of at most FEED_FANOUT_BATCH handles (the author joins the first),
    each read as it is delivered, so a celebrity's audience is never held whole.

    One `find` over every follower would come back in batches the server
    picks (101 documents, then up to 16 MiB each, one `getMore` apiece).
    Instead each batch is a keyset page of the `(_f, _t)` index whose limit
    and batch size match (one more document than the page, which says
    whether another page follows): exactly one round trip per batch,
    targeted at the author's chunks on a cluster sharded on `{_f, _t}`.
    """
    author, circles = post["by"]["id"], post["circles"]
    if PUBLIC in circles:
        edges, query = FollowerEdge._get_collection(), {"_f": author}
    elif ALL_CIRCLES in circles:
        edges, query = FollowingEdge._get_collection(), {"_f": author, "_g.0": {"$exists": True}}
    else:
        edges, query = FollowingEdge._get_collection(), {"_f": author, "_g": {"$in": circles}}
    size = settings.FEED_FANOUT_BATCH
    page, extra = query, [author]
    while True:
        rows = edges.find(page, {"_id": 0, "_t": 1}).sort([("_f", 1), ("_t", 1)])
        handles = [row["_t"] for row in rows.limit(size + 1).batch_size(size + 1)]
        batch = sorted(set(handles[:size]) | set(extra))
        if batch:
            yield batch
        if len(handles) <= size:
            return
        page, extra = {**query, "_t": {"$gt": handles[size - 1]}}, []


def active_readers(readers: list[str], author: str, *, also: str | None = None) -> list[str]:
    """Readers seen lately, not suspended, who have not blocked the author
    (nor `also`: a repost's original author, whom such a reader never sees)."""
    cutoff = now() - timedelta(days=settings.FEED_ACTIVE_DAYS)
    unblocked = {"$ne": author} if also is None else {"$nin": sorted({author, also})}
    active = []
    for chunk in _chunks(readers, settings.FEED_ACTIVE_LOOKUP):
        rows = User._get_collection().find(
            {
                "_id": {"$in": chunk},
                "status": "active",
                "last_seen": {"$gte": cutoff},
                "blocked": unblocked,
            },
            {"_id": 1},
        )
        # Room for every match in the first batch: one round trip, no getMore.
        rows = rows.batch_size(len(chunk) + 1)
        active += [row["_id"] for row in rows]
    return sorted(set(active) | ({author} & set(readers)))


def deliver_to(
    stores: list[TimelineStore], kind: str, owners: list[str], entry: dict, *, again: bool
) -> None:
    """One batch into every store: one write each. `again` (the delivery
    ran before and may have written some stores, or part of one) leaves out,
    per store, the owners that hold the entry already."""
    for store in stores:
        targets = owners
        if again:
            held = store.holding(kind, owners, entry)
            targets = [owner for owner in owners if owner not in held]
        if targets:
            store.deliver(kind, targets, entry)


def attempted_before(doc: dict) -> bool:
    """Whether a claimed delivery (post or repost) ran before this attempt."""
    return ((doc.get("delivery") or {}).get("attempts") or 0) > 1


def deliver_post(post_id) -> int:
    """Deliver one post (see `_deliver`), counting attempts: a write that
    fails on the last of FEED_DELIVERY_MAX_ATTEMPTS gives up (`give_up`); an
    earlier one is left `delivering` for `redeliver_pending` to retry."""
    try:
        return _deliver(post_id)
    except (PyMongoError, InvalidDocument, PlacementFailed) as exc:
        # E.g. a document past 16 MB (server errors 17419, 10334, or the
        # driver's DocumentTooLarge): retrying as is fails the same way forever.
        row = Post._get_collection().find_one({"_id": post_id}, {"delivery.attempts": 1})
        attempts = ((row or {}).get("delivery") or {}).get("attempts") or 0
        if attempts < settings.FEED_DELIVERY_MAX_ATTEMPTS:
            raise
        give_up(post_id, attempts, f"{type(exc).__name__}: {exc}")
        return 0


def give_up(post_id, attempts: int, error: str) -> bool:
    """Stop retrying a delivery, loudly: state "failed", the error kept on the
    post for the moderation dashboard, an ERROR log line. Returns whether
    this call marked it (a delivery that finished meanwhile is left alone)."""
    marked = Post._get_collection().update_one(
        {"_id": post_id, "delivery.state": {"$in": ["pending", "delivering"]}},
        {
            "$set": {
                "delivery.state": "failed",
                "delivery.failed": now(),
                "delivery.error": error[:500],
            }
        },
    )
    if marked.modified_count:
        log.error(
            "feed delivery failed: post %s given up after %d attempt(s): %s",
            post_id,
            attempts,
            error[:500],
        )
    return bool(marked.modified_count)


def _deliver(post_id) -> int:
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
        projection=CLAIM_FIELDS,
        return_document=ReturnDocument.AFTER,
    )
    if post is None:
        return 0
    stores = write_stores()
    again = attempted_before(post)
    readers = 0
    if stores:
        entry = entry_for(post)
        walls = sorted({post["by"]["id"], post.get("to")} - {None})
        deliver_to(stores, "wall", walls, entry, again=again)
        for followers in audience(post):
            batch = active_readers(followers, post["by"]["id"])
            if batch:
                deliver_to(stores, "news", batch, entry, again=again)
            readers += len(batch)
        # A delete or a moderator's removal that ran while we were writing
        # removed the entries before ours landed: look once more, after them.
        if posts.count_documents({"_id": post_id, **LIVE}, limit=1) == 0:
            for store in stores:
                store.remove_post(post_id)
    posts.update_one(
        {"_id": post_id},
        {
            "$set": {
                "delivery.state": "done",
                "delivery.finished": now(),
                "delivery.readers": readers,
            }
        },
    )
    return readers


def resync(reader: str, author: str) -> None:
    """Make `reader`'s news hold exactly the author's recent posts they may see.

    Runs after a follow, an unfollow, a block or a circle change between the
    two: the author's entries are taken out, then up to FEED_BACKFILL of their
    newest posts that the reader may now see are put back.
    """
    stores = write_stores()
    if not stores:
        return
    for store in stores:
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
    entries = [entry_for(p) for p in visible[: settings.FEED_BACKFILL]]
    if follows:
        # Their recent reposts come with the follow, as their posts do (the
        # originals are read, and checked, when a page shows them).
        entries += reposts_page([author], None, settings.FEED_BACKFILL)
    for store in stores:
        store.append("news", reader, entries)


def rebuild(owner: str, kind: str) -> None:
    """Rebuild one timeline from the read model (returning readers, the command)."""
    stores = write_stores()
    user = User.objects(handle=owner).only("handle", "blocked").first()
    if stores and user is not None:
        limit = settings.FEED_REBUILD_LIMIT
        chunk = read_entries(kind, owner, None, limit, user.blocked)
        # A repost's entry stays a link to its original (feeds/selectors/entries.py).
        entries = [e if e.get("of") else entry_for(_post_of(e)) for e in chunk.entries]
        for store in stores:
            store.replace(kind, owner, entries)
    User._get_collection().update_one({"_id": owner}, {"$unset": {"feed_rebuild": ""}})


def _post_of(entry: dict) -> dict:
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}


def remove_everywhere(post_id) -> None:
    for store in write_stores():
        store.remove_post(post_id)


def remove_entries_everywhere(entry_ids: list) -> None:
    for store in write_stores():
        store.remove_entries(entry_ids)


def remove_author_everywhere(author: str) -> None:
    for store in write_stores():
        store.remove_author_everywhere(author)


def refresh_copies(post_id, fields: list[str]) -> None:
    """Copy the live values of `fields` into every embedded copy of the post.

    The whole post is read, because a change may take the copy past
    FEED_EMBED_MAX_BYTES: then every copy becomes a link entry instead."""
    if not stores_copies() or not set(fields) & set(SNAPSHOT_FIELDS):
        return
    post = Post._get_collection().find_one({"_id": post_id}, CARD_FIELDS)
    if post is None:
        return
    copy = bounded_snapshot(post)
    for store in write_stores():
        if copy is None:
            store.unembed(post_id)
        else:
            store.update_embedded(post_id, {name: copy.get(name) for name in fields})


def refresh_circle_copies(owner: str, circle: str) -> int:
    """After a circle rename: refresh the `circles` of the embedded copies of
    the owner's posts shared with `circle` (its new name). Returns the posts.

    One multi-document update per post, since reaching every matching entry
    of one array needs `arrayFilters`, which the embedded demo database
    lacks. Renames are rare and run in a task; link entries need nothing."""
    if not stores_copies():
        return 0
    rows = Post._get_collection().find({"by.id": owner, "circles": circle}, {"_id": 1})
    count = 0
    for row in rows:
        refresh_copies(row["_id"], ["circles"])
        count += 1
    return count
