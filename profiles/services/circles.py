"""Circles: the owner's names on the user document, membership on the edges
(Socialite's user graph service's `_g` annotation)."""

import re
from collections.abc import Iterable

from profiles.documents import FollowingEdge, User
from profiles.services.users import GraphError
from socialsite import events

MAX_CIRCLES = 30
CIRCLE_NAME_RE = re.compile(r"^[\w][\w \-]{0,29}$")


def clean_circle_name(name: object) -> str:
    name = re.sub(r"\s+", " ", str(name or "")).strip()
    if not CIRCLE_NAME_RE.fullmatch(name):
        raise GraphError(
            "A circle name is 1 to 30 letters, digits, spaces, '-' or '_', "
            "starting with a letter or digit."
        )
    return name


def known_circles(owner: User, circles: Iterable[str] | None) -> list[str]:
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
    events.circle_renamed.send(sender=User, owner=owner.handle, old=old, new=new)
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
        events.circle_members_changed.send(sender=User, owner=owner, members=members)


def circle_add_member(*, owner: User, name: str, member: str) -> None:
    known_circles(owner, [name])
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
    circles = known_circles(owner, circles)
    result = FollowingEdge._get_collection().update_one(
        {"_f": owner.handle, "_t": member}, {"$set": {"_g": circles}}
    )
    if result.matched_count == 0:
        raise GraphError(f"Follow @{member} first to add them to a circle.")
    _members_changed(owner.handle, [member])
