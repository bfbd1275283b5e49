"""Writing a recipient's notification buckets (the layout is in documents.py).

A new item: (1) close the open bucket if it is full - `slot` becomes a fresh
ObjectId - then (2) upsert-push the item into the open bucket, in one ordered
bulk write. Two writers that both find the open bucket missing race on the
unique `(owner, slot)` index: the loser gets E11000 and is retried once
(socialsite/bulk.py), which then pushes into the winner's bucket. A
bucket therefore holds at most its size plus the writers racing a rollover,
and never approaches the 16 MB document limit.

Grouping: a like joins the like item about the same post *in the open
bucket*, if there is one (one positional update); otherwise it starts a new
item. So a post's likes collect in one item while they keep coming, and a
like that arrives after the open bucket rolled over starts a fresh group at
the top of the page, which is where a reader expects news. A group keeps the
newest NOTIFICATIONS_GROUP_ACTORS likers by name and counts them all.
"""

from collections.abc import Callable
from datetime import datetime

from bson import ObjectId
from django.conf import settings
from pymongo import UpdateOne
from pymongo.collection import Collection

from notifications.documents import NotificationBucket
from socialsite.bulk import bulk_upsert

OPEN = "open"


def collection() -> Collection:
    return NotificationBucket._get_collection()


def push_item(owner: str, item: dict) -> bool:
    """Append one item to the owner's open bucket, rolling over when full.

    False when the open bucket already holds the same event (the same kind by
    the same actor about the same post or comment: a follow after an
    unfollow, a repost after an unrepost): it is not news twice.
    """
    open_bucket = {"owner": owner, "slot": OPEN}
    # `subject`: what a notice without an actor or post is about (a removal's
    # target); absent, and so None, on every other item.
    same_event = {k: item.get(k) for k in ("kind", "actor", "post", "comment", "subject")}
    ops = [
        UpdateOne(
            {**open_bucket, "size": {"$gte": settings.NOTIFICATIONS_BUCKET_SIZE}},
            {"$set": {"slot": ObjectId()}},
        ),
        UpdateOne(
            # The guard also makes a retried push of the same item a no-op. A
            # bucket it excludes makes the upsert collide (E11000) on
            # `(owner, slot)`, twice: bulk_upsert reports that as collided.
            {**open_bucket, "items": {"$not": {"$elemMatch": same_event}}},
            {
                "$push": {"items": item},
                "$inc": {"size": 1},
                "$min": {"min_ts": item["ts"]},
                "$max": {"max_ts": item["ts"]},
            },
            upsert=True,
        ),
    ]
    return 1 not in bulk_upsert(collection(), ops, ordered=True)


def join_group(
    owner: str,
    *,
    post_id: ObjectId,
    actor: str,
    actor_name: str,
    ts: datetime,
    unread_after: datetime | None,
) -> str:
    """Add `actor` to the open bucket's like item about `post_id`.

    Returns "joined-unread" when the item was still unread (the header's
    count does not change), "joined-read" when it had been read (it is news
    again: one more unread item), "already" when the actor is in it, and
    "none" when the open bucket has no like item about this post.
    """
    same_post = {"kind": "like", "post": post_id}
    newcomer = {**same_post, "actors": {"$ne": actor}}
    update = {
        "$push": {
            "items.$.actors": {"$each": [actor], "$slice": -settings.NOTIFICATIONS_GROUP_ACTORS}
        },
        "$inc": {"items.$.actor_count": 1},
        "$set": {"items.$.ts": ts, "items.$.actor": actor, "items.$.actor_name": actor_name},
        "$max": {"max_ts": ts},
    }
    base = {"owner": owner, "slot": OPEN}
    if unread_after is None:  # never opened the page: every item is unread
        attempts = [(newcomer, "joined-unread")]
    else:
        attempts = [
            ({**newcomer, "ts": {"$gt": unread_after}}, "joined-unread"),
            (newcomer, "joined-read"),
        ]
    for match, outcome in attempts:
        if (
            collection()
            .update_one({**base, "items": {"$elemMatch": match}}, update)
            .modified_count
        ):
            return outcome
    if collection().count_documents({**base, "items": {"$elemMatch": same_post}}, limit=1):
        return "already"
    return "none"


def owners_about(post_id: ObjectId) -> list[str]:
    """Who holds an item about the post (read on the `items.post` index)."""
    return collection().distinct("owner", {"items.post": post_id})


def forget_post(post_id: ObjectId) -> list[str]:
    """Take every item about a deleted post out of every bucket; returns the
    owners that held one (their unread counts are recounted)."""
    owners = owners_about(post_id)
    if owners:
        # Not retried by the driver: an item a failover leaves behind is
        # about a deleted post, which the page hides anyway.
        collection().update_many(
            {"owner": {"$in": owners}, "items.post": post_id},
            {"$pull": {"items": {"post": post_id}}},
        )
    return owners


def forget_posts(post_ids: list[ObjectId]) -> list[str]:
    """`forget_post` for many deleted posts at once (an erasure's batch)."""
    owners = collection().distinct("owner", {"items.post": {"$in": post_ids}})
    if owners:
        collection().update_many(
            {"owner": {"$in": owners}, "items.post": {"$in": post_ids}},
            {"$pull": {"items": {"post": {"$in": post_ids}}}},
        )
    return owners


def forget_comment(post_id: ObjectId, slug: str) -> list[str]:
    """Take every item about one comment (on it, a reply, a mention in it)
    out of every bucket; returns the owners that held one."""
    about = {"post": post_id, "comment": slug}
    # `items.post` spelled out as well: the query is bounded on its index.
    query = {"items.post": post_id, "items": {"$elemMatch": about}}
    owners = collection().distinct("owner", query)
    if owners:
        collection().update_many({"owner": {"$in": owners}, **query}, {"$pull": {"items": about}})
    return owners


def _without(items: list[dict], handle: str, names: dict[str, str]) -> list[dict]:
    """The items as they are once `handle` is erased: theirs go; a like group
    they are in keeps its other likers, the newest of them named (a group
    that kept no other liker's name goes too)."""
    kept = []
    for item in items:
        actors = item.get("actors")
        rest = [a for a in actors or () if a != handle]
        if actors is not None and handle in actors and rest:
            item = {**item, "actors": rest, "actor_count": max(1, item["actor_count"] - 1)}
            if item.get("actor") == handle:
                item.update(actor=rest[-1], actor_name=names.get(rest[-1], ""))
            kept.append(item)
        elif item.get("actor") != handle and handle not in (actors or ()):
            kept.append(item)
    return kept


def erase_actor(
    handle: str, limit: int, names_of: Callable[[list[str]], dict[str, str]]
) -> tuple[int, list[str]]:
    """Take `handle` out of up to `limit` of other people's buckets; returns
    how many it read and the owners changed (their counts are recounted).
    Each bucket is written only if its items are still the ones read (a push
    racing this is retried by the next batch), by its whole shard key."""
    query = {"$or": [{"items.actor": handle}, {"items.actors": handle}]}
    rows = list(collection().find(query, {"owner": 1, "slot": 1, "items": 1}).limit(limit))
    others = {a for row in rows for item in row["items"] for a in item.get("actors") or ()}
    names = names_of(sorted(others - {handle})) if others else {}
    owners = []
    for row in rows:
        items = _without(row["items"], handle, names)
        written = collection().update_one(
            {"owner": row["owner"], "slot": row["slot"], "items": row["items"]},
            {"$set": {"items": items}},
        )
        if written.modified_count:
            owners.append(row["owner"])
    return len(rows), owners
