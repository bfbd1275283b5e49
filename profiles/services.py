"""Every write to users, profiles, the follower graph, circles and blocks.

The graph follows the Socialite user-graph service (seed 003): an edge is one
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

import re
import unicodedata

from django.contrib.auth.hashers import make_password
from mongoengine.errors import NotUniqueError
from pymongo import UpdateOne
from pymongo.errors import DuplicateKeyError

from profiles import signals
from profiles.documents import FollowerEdge, FollowingEdge, Profile, User
from socialsite.clock import now
from socialsite.ids import parse_handle
from socialsite.sessions import end_sessions_of

MAX_CIRCLES = 30
CIRCLE_NAME_RE = re.compile(r"^[\w][\w \-]{0,29}$")


class GraphError(Exception):
    """A graph change that is refused, with a message for the user."""


class HandleTaken(Exception):
    """The handle belongs to someone already."""


class UnknownUser(Exception):
    """No active user has that handle (a 404 for the views)."""


def name_terms(name: str) -> list[str]:
    """Lower-cased words of the name plus the whole name, for prefix search."""
    folded = unicodedata.normalize("NFKC", name).casefold().strip()
    words = [w for w in re.split(r"\s+", folded) if w]
    return sorted({folded, *words}) if folded else []


# --- users -------------------------------------------------------------------


def user_create(
    *, handle: str, name: str, password: str, role: str = "user", profile: Profile | None = None
) -> User:
    """Create a user; `password` is the raw password (validated by the caller)."""
    parsed = parse_handle(handle)
    if parsed is None or parsed != handle:
        raise ValueError(f"invalid handle: {handle!r}")
    user = User(
        handle=handle,
        name=name,
        name_terms=name_terms(name),
        password=make_password(password),
        role=role,
        profile=profile or Profile(),
    )
    try:
        user.save(force_insert=True)
    except (DuplicateKeyError, NotUniqueError) as exc:
        raise HandleTaken(handle) from exc
    signals.user_created.send(sender=User, handle=handle)
    return user


def user_touch(*, user: User) -> None:
    t, previous = now(), user.last_seen
    User.objects(handle=user.handle).update_one(set__last_seen=t)
    user.last_seen = t
    signals.user_seen.send(sender=User, user=user, previous=previous)


def password_change(*, user: User, new_password: str, keep_session: str | None = None) -> None:
    """Set a new password and end every other session of the user."""
    user.password = make_password(new_password)
    User.objects(handle=user.handle).update_one(set__password=user.password)
    end_sessions_of(user.handle, keep=keep_session)


def profile_update(
    *, user: User, name: str, bio: str, location: str, interests: list[str], website: str
) -> None:
    profile = Profile(bio=bio, location=location, interests=interests, website=website)
    User.objects(handle=user.handle).update_one(
        set__name=name, set__name_terms=name_terms(name), set__profile=profile
    )
    user.name, user.name_terms, user.profile = name, name_terms(name), profile


# --- follower graph ------------------------------------------------------------


def _counters(follower: str, followee: str, delta: int) -> None:
    # Both counters in one round trip.
    User._get_collection().bulk_write(
        [
            UpdateOne({"_id": follower}, {"$inc": {"following_count": delta}}),
            UpdateOne({"_id": followee}, {"$inc": {"followers_count": delta}}),
        ],
        ordered=False,
    )


def follow_create(*, follower: User, followee: str, circles: list[str] = ()) -> bool:
    """`follower` follows `followee`, placed in `circles` (names of the follower's).

    Idempotent: following again only adds the given circles. Returns True when
    a new edge was made.
    """
    if follower.handle == followee:
        raise GraphError("You can't follow yourself.")
    target = User.objects(handle=followee, status="active").only("handle", "blocked").first()
    if target is None:
        raise UnknownUser(followee)
    if follower.handle in target.blocked:
        raise GraphError("You can't follow this account.")
    if followee in follower.blocked:
        raise GraphError("You blocked this account. Unblock it first.")
    circles = _known_circles(follower, circles)

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
    signals.followed.send(sender=User, follower=follower.handle, followee=followee)
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
    signals.unfollowed.send(sender=User, follower=follower, followee=followee)
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
    """
    from datetime import timedelta

    cutoff = now() - timedelta(seconds=older_than_seconds)
    stuck = list(
        FollowingEdge._get_collection().find(
            {"state": {"$in": ["adding", "removing"]}, "changed": {"$lt": cutoff}}
        )
    )
    touched: set[str] = set()
    for edge in stuck:
        f, t = edge["_f"], edge["_t"]
        if edge["state"] == "adding":
            FollowerEdge._get_collection().update_one(
                {"_f": t, "_t": f}, {"$setOnInsert": {"since": now()}}, upsert=True
            )
            FollowingEdge._get_collection().update_one(
                {"_id": edge["_id"]}, {"$set": {"state": "active"}}
            )
        else:
            FollowerEdge._get_collection().delete_one({"_f": t, "_t": f})
            FollowingEdge._get_collection().delete_one({"_id": edge["_id"]})
        touched.update((f, t))
    for handle in touched:
        counters_recount(handle=handle)
    return len(stuck)


def counters_recount(*, handle: str) -> None:
    User._get_collection().update_one(
        {"_id": handle},
        {
            "$set": {
                "following_count": FollowingEdge._get_collection().count_documents({"_f": handle}),
                "followers_count": FollowerEdge._get_collection().count_documents({"_f": handle}),
            }
        },
    )


# --- circles -------------------------------------------------------------------


def clean_circle_name(name) -> str:
    name = re.sub(r"\s+", " ", str(name or "")).strip()
    if not CIRCLE_NAME_RE.fullmatch(name):
        raise GraphError(
            "A circle name is 1 to 30 letters, digits, spaces, '-' or '_', "
            "starting with a letter or digit."
        )
    return name


def _known_circles(owner: User, circles) -> list[str]:
    wanted = list(dict.fromkeys(circles or ()))
    unknown = [c for c in wanted if c not in owner.circles]
    if unknown:
        raise GraphError(f"Unknown circle: {unknown[0]}")
    return wanted


def circle_create(*, owner: User, name: str) -> str:
    name = clean_circle_name(name)
    if name.casefold() in {c.casefold() for c in owner.circles}:
        raise GraphError(f"You already have a circle named “{name}”.")
    if len(owner.circles) >= MAX_CIRCLES:
        raise GraphError(f"You can have at most {MAX_CIRCLES} circles.")
    User._get_collection().update_one(
        {"_id": owner.handle, "circles": {"$ne": name}}, {"$push": {"circles": name}}
    )
    owner.circles.append(name)
    return name


def circle_rename(*, owner: User, old: str, new: str) -> str:
    if old not in owner.circles:
        raise GraphError(f"Unknown circle: {old}")
    new = clean_circle_name(new)
    if new == old:
        return new
    if new.casefold() in {c.casefold() for c in owner.circles if c != old}:
        raise GraphError(f"You already have a circle named “{new}”.")
    # Edges first, the owner's list last: re-running a rename that died
    # halfway finishes it. ($addToSet + $pull rather than a positional $set,
    # so an edge already holding both names ends with one.)
    edges = FollowingEdge._get_collection()
    edges.update_many({"_f": owner.handle, "_g": old}, {"$addToSet": {"_g": new}})
    edges.update_many({"_f": owner.handle, "_g": old}, {"$pull": {"_g": old}})
    renamed = [new if c == old else c for c in owner.circles]
    User._get_collection().update_one(
        {"_id": owner.handle, "circles": old}, {"$set": {"circles": renamed}}
    )
    owner.circles = renamed
    signals.circle_renamed.send(sender=User, owner=owner.handle, old=old, new=new)
    return new


def circle_delete(*, owner: User, name: str) -> None:
    if name not in owner.circles:
        raise GraphError(f"Unknown circle: {name}")
    members = [
        row["_t"]
        for row in FollowingEdge._get_collection().find(
            {"_f": owner.handle, "_g": name}, {"_id": 0, "_t": 1}
        )
    ]
    User._get_collection().update_one({"_id": owner.handle}, {"$pull": {"circles": name}})
    FollowingEdge._get_collection().update_many(
        {"_f": owner.handle, "_g": name}, {"$pull": {"_g": name}}
    )
    owner.circles.remove(name)
    _members_changed(owner.handle, members)


def _members_changed(owner: str, members: list[str]) -> None:
    if members:
        signals.circle_members_changed.send(sender=User, owner=owner, members=members)


def circle_add_member(*, owner: User, name: str, member: str) -> None:
    _known_circles(owner, [name])
    result = FollowingEdge._get_collection().update_one(
        {"_f": owner.handle, "_t": member}, {"$addToSet": {"_g": name}}
    )
    if result.matched_count == 0:
        raise GraphError(f"Follow @{member} first to add them to a circle.")
    _members_changed(owner.handle, [member])


def circle_remove_member(*, owner: User, name: str, member: str) -> None:
    """Take `member` out of one circle; the follow itself stays."""
    result = FollowingEdge._get_collection().update_one(
        {"_f": owner.handle, "_t": member}, {"$pull": {"_g": name}}
    )
    if result.modified_count:
        _members_changed(owner.handle, [member])


def circles_set_for(*, owner: User, member: str, circles: list[str]) -> None:
    """Place a followed account in exactly these circles."""
    circles = _known_circles(owner, circles)
    result = FollowingEdge._get_collection().update_one(
        {"_f": owner.handle, "_t": member}, {"$set": {"_g": circles}}
    )
    if result.matched_count == 0:
        raise GraphError(f"Follow @{member} first to add them to a circle.")
    _members_changed(owner.handle, [member])


# --- blocks --------------------------------------------------------------------


def block_create(*, blocker: User, blocked: str) -> None:
    """Block: on the blocker's document (seed 000); follows both ways end."""
    if blocker.handle == blocked:
        raise GraphError("You can't block yourself.")
    if not User.objects(handle=blocked).only("handle").first():
        raise UnknownUser(blocked)
    User._get_collection().update_one({"_id": blocker.handle}, {"$addToSet": {"blocked": blocked}})
    if blocked not in blocker.blocked:
        blocker.blocked.append(blocked)
    follow_delete(follower=blocker.handle, followee=blocked)
    follow_delete(follower=blocked, followee=blocker.handle)
    signals.blocked.send(sender=User, blocker=blocker.handle, blocked=blocked)


def block_delete(*, blocker: User, blocked: str) -> None:
    User._get_collection().update_one({"_id": blocker.handle}, {"$pull": {"blocked": blocked}})
    if blocked in blocker.blocked:
        blocker.blocked.remove(blocked)
