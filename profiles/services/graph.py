"""The follower graph and blocks.

The graph follows the Socialite user-graph service (Socialite's user graph service): an edge is one
small document in `following` and its mirror in `followers`. Counters live on
the user documents and are changed with `$inc`.

Concurrency: the `following` edge is the arbiter. Its unique `(_f, _t)` index
lets exactly one of several racing follows insert it, and its `state` field
(adding -> active -> removing) lets exactly one racing unfollow claim it, only
once the follow's increments have landed. So each counted edge is incremented
once and decremented at most once, after its increment: the counters end equal
to the number of edges and never go negative. `repair_graph` finishes edges
left half-done by a crashed process.
"""

from collections.abc import Sequence
from datetime import timedelta

from pymongo import DeleteOne, UpdateOne
from pymongo.errors import DuplicateKeyError

from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.services.circles import known_circles
from profiles.services.users import GraphError, UnknownUser
from socialsite import events
from socialsite.clock import now


def _counters(follower: str, followee: str, delta: int) -> None:
    # A follower on another server is counted apart too (docs/federation.md).
    followee_counts = {"followers_count": delta}
    if "@" in follower:
        followee_counts["remote_followers_count"] = delta
    # Both counters in one round trip.
    User._get_collection().bulk_write(
        [
            UpdateOne({"_id": follower}, {"$inc": {"following_count": delta}}),
            UpdateOne({"_id": followee}, {"$inc": followee_counts}),
        ],
        ordered=False,
    )


def follow_create(
    *, follower: User, followee: str, circles: Sequence[str] = (), target: User | None = None
) -> bool:
    """`follower` follows `followee`, placed in `circles` (names of the follower's).

    Idempotent: following again only adds the given circles. Returns True when
    a new edge was made. `target`: `followee`'s active document when the
    caller read it in this request already (with the session); else one read.
    """
    if follower.handle == followee:
        raise GraphError("You can't follow yourself.")
    if target is None or target.handle != followee or not target.is_active:
        target = User.objects(handle=followee, status="active").only("handle", "blocked").first()
    if target is None:
        raise UnknownUser(followee)
    if follower.handle in target.blocked:
        raise GraphError("You can't follow this account.")
    if followee in follower.blocked:
        raise GraphError("You blocked this account. Unblock it first.")
    circles = known_circles(follower, circles)

    edges = FollowingEdge._get_collection()
    try:
        edges.insert_one(
            {
                "_f": follower.handle,
                "_t": followee,
                "_g": circles,
                "state": "adding",
                "since": now(),
                "changed": now(),
            }
        )
    except DuplicateKeyError:
        if circles:
            edges.update_one(
                {"_f": follower.handle, "_t": followee}, {"$addToSet": {"_g": {"$each": circles}}}
            )
        return False
    _finish_adding(follower.handle, followee)
    events.followed.send(sender=User, follower=follower.handle, followee=followee)
    return True


def _finish_adding(follower: str, followee: str) -> None:
    FollowerEdge._get_collection().update_one(
        {"_f": followee, "_t": follower}, {"$setOnInsert": {"since": now()}}, upsert=True
    )
    _counters(follower, followee, +1)
    FollowingEdge._get_collection().update_one(
        {"_f": follower, "_t": followee, "state": "adding"}, {"$set": {"state": "active"}}
    )


def follow_delete(*, follower: str, followee: str) -> bool:
    """Unfollow (and so leave every circle). Idempotent; True when an edge went."""
    claimed = FollowingEdge._get_collection().find_one_and_update(
        {"_f": follower, "_t": followee, "state": "active"},
        {"$set": {"state": "removing", "changed": now()}},
        projection={"_id": 1},
    )
    if claimed is None:
        return False
    _finish_removing(follower, followee)
    events.unfollowed.send(sender=User, follower=follower, followee=followee)
    return True


def _finish_removing(follower: str, followee: str) -> None:
    FollowerEdge._get_collection().delete_one({"_f": followee, "_t": follower})
    _counters(follower, followee, -1)
    FollowingEdge._get_collection().delete_one(
        {"_f": follower, "_t": followee, "state": "removing"}
    )


def graph_repair(*, older_than_seconds: int = 300) -> int:
    """Finish edges a crashed process left half-added or half-removed.

    A half-done edge may or may not have had its counters changed, so the
    counters of everyone involved are recounted from the edges afterwards.
    Every write names its edge by `{_f, _t}`, the edge collections' shard key;
    the sweep itself has no `_f` to go by and asks every shard, which is fine
    for a repair command run now and then, never for a page.
    """
    cutoff = now() - timedelta(seconds=older_than_seconds)
    stuck = list(
        FollowingEdge._get_collection().find(
            {"state": {"$in": ["adding", "removing"]}, "changed": {"$lt": cutoff}},
            {"_id": 0, "_f": 1, "_t": 1, "state": 1},
        )
    )
    if not stuck:
        return 0
    mirror_ops: list[UpdateOne | DeleteOne] = []
    edge_ops: list[UpdateOne | DeleteOne] = []
    for edge in stuck:
        f, t, state = edge["_f"], edge["_t"], edge["state"]
        if state == "adding":
            mirror_ops.append(
                UpdateOne({"_f": t, "_t": f}, {"$setOnInsert": {"since": now()}}, upsert=True)
            )
            edge_ops.append(
                UpdateOne({"_f": f, "_t": t, "state": state}, {"$set": {"state": "active"}})
            )
        else:
            mirror_ops.append(DeleteOne({"_f": t, "_t": f}))
            edge_ops.append(DeleteOne({"_f": f, "_t": t, "state": state}))
    # The mirror first, as follow_create and follow_delete do.
    FollowerEdge._get_collection().bulk_write(mirror_ops, ordered=False)
    FollowingEdge._get_collection().bulk_write(edge_ops, ordered=False)
    counters_recount(handles={h for edge in stuck for h in (edge["_f"], edge["_t"])})
    return len(stuck)


def counters_recount(*, handles: set[str]) -> None:
    """Set the users' counters to their edge counts: three round trips in all."""
    wanted = sorted(handles)

    def edge_counts(document: type[FollowingEdge | FollowerEdge]) -> dict[str, int]:
        rows = document._get_collection().aggregate(
            [{"$match": {"_f": {"$in": wanted}}}, {"$group": {"_id": "$_f", "n": {"$sum": 1}}}]
        )
        return {row["_id"]: row["n"] for row in rows}

    following, followers = edge_counts(FollowingEdge), edge_counts(FollowerEdge)
    User._get_collection().bulk_write(
        [
            UpdateOne(
                {"_id": handle},
                {
                    "$set": {
                        "following_count": following.get(handle, 0),
                        "followers_count": followers.get(handle, 0),
                    },
                    # Not known again: federation reads the edges instead.
                    "$unset": {"remote_followers_count": ""},
                },
            )
            for handle in wanted
        ],
        ordered=False,
    )


def block_create(*, blocker: User, blocked: str) -> None:
    """Block: on the blocker's document (*Storing Updates and Profiles*); follows both ways end."""
    if blocker.handle == blocked:
        raise GraphError("You can't block yourself.")
    if not User.objects(handle=blocked).only("handle").first():
        raise UnknownUser(blocked)
    User._get_collection().update_one({"_id": blocker.handle}, {"$addToSet": {"blocked": blocked}})
    if blocked not in blocker.blocked:
        blocker.blocked.append(blocked)
    follow_delete(follower=blocker.handle, followee=blocked)
    follow_delete(follower=blocked, followee=blocker.handle)
    events.blocked.send(sender=User, blocker=blocker.handle, blocked=blocked)


def block_delete(*, blocker: User, blocked: str) -> None:
    User._get_collection().update_one({"_id": blocker.handle}, {"$pull": {"blocked": blocked}})
    if blocked in blocker.blocked:
        blocker.blocked.remove(blocked)


def follows_erase(handle: str, limit: int) -> int:
    """Erasure (profiles/services/erasure.py): up to `limit` of the person's
    edges, both ways and both collections, then the other sides' counters
    recounted. No follow events: the person's timelines go whole, and their
    posts leave the others' timelines with the posts themselves."""
    following, followers = FollowingEdge._get_collection(), FollowerEdge._get_collection()
    followed = [row["_t"] for row in following.find({"_f": handle}, {"_t": 1}).limit(limit)]
    fans = [row["_t"] for row in followers.find({"_f": handle}, {"_t": 1}).limit(limit)]
    # A half-done edge has one side only: the reverse index finds it.
    fans += [row["_f"] for row in following.find({"_t": handle}, {"_f": 1}).limit(limit)]
    others = set(followed) | set(fans)
    if not others:
        return 0
    if followed:
        following.delete_many({"_f": handle, "_t": {"$in": followed}})
        followers.delete_many({"_f": {"$in": followed}, "_t": handle})
    if fans:
        followers.delete_many({"_f": handle, "_t": {"$in": fans}})
        following.delete_many({"_f": {"$in": fans}, "_t": handle})
    counters_recount(handles=others)
    return len(others)
