"""Reposts: every write (repost, undo, the cascades of a deleted, removed or
restored original and of a block, the sweeper). Pages show each post once
by timelines/selectors/repeats.py; deliveries are timelines/delivery/fanout.py.

The system of record is `post_repost`, one document per (post, reposter),
unique; the count lives on the post (`reposts_count`), kept with `$inc` by
the request whose insert or delete landed, and settled from the marks by the
sweeper after a crash: the mechanics of every mark on a post,
feeds/services/interactions.py.
A repost reaches timelines as a post does (docs/architecture.md): written
first, then delivered by timelines/delivery/fanout.py's one state machine
(`deliver_repost`) in the reposter's follower batches, idempotently, with
the same pending/delivering/done states and sweeper.

Its timeline entry (timelines/selectors/entries.py `repost_entry`) has its own id and
time and always links to the original, which a page reads from `post` with
its other links in one `$in`. So under every model, linking or embedding:
undo takes the entry out by its id, and a deleted or removed original is
gone from every page at once (only live posts are read), its entries taken
out too so that they use no room.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from bson import ObjectId

from feeds.documents import LIVE, PUBLIC, PostRepost
from feeds.services.interactions import (
    Interaction,
    InteractionError,
    Mark,
    Turn,
    counts_settle,
)
from profiles.documents import User
from socialsite import events
from socialsite.clock import now

# Cascades read a post's reposts this many at a time (one `$in` write each).
CASCADE_BATCH = 500


class RepostError(InteractionError):
    """A repost we refuse; the message can be shown to the user."""


class NoSuchPost(RepostError):
    """No such post, or gone (deleted, removed): a 404 for the views."""


@dataclass(frozen=True)
class RepostState(Mark):
    @property
    def reposted(self) -> bool:
        return self.on

    @property
    def reposts(self) -> int:
        return self.count


REPOSTS = Interaction(
    document=PostRepost,
    counter="reposts_count",
    verb="repost",
    error=RepostError,
    state=RepostState,
    live_on_add=LIVE,
    # An undo always counts down: one's own repost can be undone whatever
    # became of the post (its entries are taken out either way).
    live_on_remove={},
    marked=events.post_reposted,
)


REPOSTABLE_FIELDS = {"by": 1, "circles": 1, **dict.fromkeys(LIVE, 1)}


def _repostable(turn: Turn, user: User, known: User | None) -> dict:
    """The post, if `user` may repost it (docs/architecture.md); else raises."""
    post = turn.post
    if post is None or post.get("removed") is not None or post.get("author_suspended"):
        raise NoSuchPost(turn.post_id)
    author = post["by"]["id"]
    if author == user.handle:
        raise RepostError("You can't repost your own post.")
    if author in user.blocked:
        REPOSTS.refuse_across_blocks(user, author)  # "You blocked @..."
    if PUBLIC not in post["circles"]:
        raise RepostError("Only public posts can be reposted: this one has a limited audience.")
    REPOSTS.refuse_across_blocks(user, author, known)  # the author's blocks
    return post


def repost_create(*, post_id: ObjectId, user: User, author: User | None = None) -> RepostState:
    """`user` reposts a public post. Reposting again changes nothing.
    `author`: the post's author's document, when the caller read it already."""
    with REPOSTS.turn(post_id, REPOSTABLE_FIELDS) as turn:
        author_handle = _repostable(turn, user, author)["by"]["id"]
        t = now()
        delivery = {"state": "pending", "queued": t, "attempts": 0}
        if not REPOSTS.put(turn, user.handle, author=author_handle, ts=t, delivery=delivery):
            return REPOSTS.unchanged(post_id, on=True)
        reposts = REPOSTS.count(turn, +1)
        if reposts is None:  # deleted or removed between the read and the write
            turn.marked = not REPOSTS.take_back(post_id, user.handle)
            raise NoSuchPost(post_id)
    events.repost_delivery_due.send(sender=PostRepost, post_id=post_id, reposter=user.handle)
    state = REPOSTS.changed(post_id, on=True, count=reposts)
    REPOSTS.announce(post_id=post_id, author=author_handle, actor=user.handle, user=user)
    return state


def repost_delete(*, post_id: ObjectId, user: User, author: User | None = None) -> RepostState:
    """`user` undoes their repost: it leaves every timeline. Again: nothing.
    (`author` is taken for the views' one signature: an undo checks no block.)"""
    state = _undo(post_id, user.handle)
    if state.changed:
        events.post_unreposted.send(
            sender=PostRepost, post_id=post_id, actor=user.handle, user=user
        )
    return state


def _undo(post_id: ObjectId, handle: str) -> RepostState:
    with REPOSTS.turn(post_id, {"_id": 1}) as turn:
        repost = REPOSTS.collection().find_one({"post": post_id, "by": handle}, {"_id": 1})
        if repost is None:
            if turn.post is None:
                raise NoSuchPost(post_id)
            return REPOSTS.unchanged(post_id, on=False)
        # Entries out, the record, entries out again: a delivery racing with
        # this sees the record gone after its writes and takes its entries
        # out itself; a crash in between leaves the repost in place, to be
        # undone again.
        events.entries_withdrawn.send(sender=PostRepost, ids=[repost["_id"]])
        deleted = REPOSTS.remove(turn, handle, _id=repost["_id"])
        events.entries_withdrawn.send(sender=PostRepost, ids=[repost["_id"]])
        if not deleted:  # a racing undo took it: the marks as they are now
            return REPOSTS.unchanged(post_id, on=False)
        # A deleted post: its reposts are gone with it, nothing to count.
        count = REPOSTS.count(turn, -1) if turn.post is not None else None
    return REPOSTS.changed(post_id, on=False, count=count or 0)


def reposts_across_block_delete(*, blocker: str, blocked: str) -> int:
    """A block undoes the reposts between the two, both ways (docs/architecture.md:
    the blocked cannot repost the blocker's posts, nor the blocker theirs).
    Two `by` equalities on the (by, ts) index. Returns how many."""
    rows = PostRepost._get_collection().find(
        {"$or": [{"by": blocked, "author": blocker}, {"by": blocker, "author": blocked}]},
        {"post": 1, "by": 1},
    )
    undone = [_undo(row["post"], row["by"]) for row in list(rows)]
    return sum(state.changed for state in undone)


def _ids_of(post_id: ObjectId) -> Iterator[list[dict]]:
    """A post's reposts, CASCADE_BATCH at a time, by keyset on (post, by)."""
    reposts = PostRepost._get_collection()
    query: dict = {"post": post_id}
    while True:
        rows = list(
            reposts.find(query, {"_id": 1, "by": 1})
            .sort([("post", 1), ("by", 1)])
            .limit(CASCADE_BATCH)
        )
        if rows:
            yield rows
        if len(rows) < CASCADE_BATCH:
            return
        query = {"post": post_id, "by": {"$gt": rows[-1]["by"]}}


def reposts_withdraw(*, post_id: ObjectId, delete: bool) -> None:
    """The original is gone: its reposts leave every timeline. A deleted
    post's reposts are deleted; a moderator's removal keeps them, for
    `reposts_redeliver` when it is restored (docs/architecture.md)."""
    for rows in _ids_of(post_id):
        events.entries_withdrawn.send(sender=PostRepost, ids=[row["_id"] for row in rows])
    if delete:
        PostRepost._get_collection().delete_many({"post": post_id})


def reposts_withdraw_many(*, post_ids: list[ObjectId]) -> None:
    """`reposts_withdraw(delete=True)` for many deleted posts at once: their
    reposts' entries out of every timeline, then the reposts, CASCADE_BATCH
    at a time on the (post, by) index."""
    reposts = PostRepost._get_collection()
    while post_ids:
        rows = list(reposts.find({"post": {"$in": post_ids}}, {"_id": 1}).limit(CASCADE_BATCH))
        if not rows:
            return
        ids = [row["_id"] for row in rows]
        events.entries_withdrawn.send(sender=PostRepost, ids=ids)
        reposts.delete_many({"post": {"$in": post_ids}, "_id": {"$in": ids}})


def reposts_redeliver(*, post_id: ObjectId) -> int:
    """A restored post's reposts are delivered again (new deliveries, each
    with its own attempts). Returns how many."""
    count = 0
    for rows in _ids_of(post_id):
        PostRepost._get_collection().update_many(
            {"post": post_id, "by": {"$in": [row["by"] for row in rows]}},
            {
                "$set": {
                    "delivery.state": "pending",
                    "delivery.queued": now(),
                    "delivery.attempts": 0,
                }
            },
        )
        for row in rows:
            events.repost_delivery_due.send(sender=PostRepost, post_id=post_id, reposter=row["by"])
        count += len(rows)
    return count


def reposts_recount(post_id: ObjectId) -> int | None:
    """Set the post's count to its reposts (repair tool); returns it, or None
    when the post is gone or a request is changing it right now."""
    counts = counts_settle(post_id, [REPOSTS])
    return None if counts is None else counts[REPOSTS.counter]
