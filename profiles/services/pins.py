"""Pinned posts: up to MAX_PINS post ids on their author's document, shown
first on the author's wall (docs/discovery.md#pins).

The list lives on the user document, which the wall loads with the session
already. This module keeps it, bounded by the update itself: one atomic
update refuses a pin past the limit and a second pin of the same post, so
two racing pins can never make four. The feeds decide which posts may be
pinned (feeds/services/pins.py); the wall decides again what it shows.
"""

from bson import ObjectId

from profiles.documents import User

MAX_PINS = 3


class PinsFull(Exception):
    """The list holds MAX_PINS already; `pinned` is the list as read."""

    def __init__(self, pinned: list[ObjectId]) -> None:
        super().__init__(f"You can pin at most {MAX_PINS} posts. Unpin one first.")
        self.pinned = pinned


def pin_add(*, handle: str, post_id: ObjectId) -> bool:
    """Pin `post_id` first. True when pinned now, False when it was already.

    One update whose filter holds both rules (not pinned yet, fewer than
    MAX_PINS), so nothing reads the list before writing it. Only a refusal
    costs a read, to tell "already pinned" from "full" (PinsFull); if a
    racing unpin freed a place in between, the update is tried once more."""
    users = User._get_collection()
    pinned: list[ObjectId] = []
    for _ in range(2):
        changed = users.update_one(
            {
                "_id": handle,
                "pinned": {"$ne": post_id},
                f"pinned.{MAX_PINS - 1}": {"$exists": False},
            },
            {"$push": {"pinned": {"$each": [post_id], "$position": 0}}},
        )
        if changed.matched_count:
            return True
        found = users.find_one({"_id": handle}, {"pinned": 1})
        if found is None:
            return False  # no such user: nothing to pin to
        pinned = list(found.get("pinned") or [])
        if post_id in pinned:
            return False
        if len(pinned) >= MAX_PINS:
            break
    raise PinsFull(pinned)


def pin_remove(*, handle: str, post_id: ObjectId) -> bool:
    """Unpin `post_id`. True when it was pinned; otherwise nothing changes."""
    changed = User._get_collection().update_one(
        {"_id": handle, "pinned": post_id}, {"$pull": {"pinned": post_id}}
    )
    return changed.modified_count == 1


def pins_drop(*, handle: str, post_ids: list[ObjectId]) -> None:
    """Take pins that can no longer show (deleted, removed, no longer public)
    out of the list, so that they do not hold a place in it."""
    if post_ids:
        User._get_collection().update_one(
            {"_id": handle}, {"$pullAll": {"pinned": list(post_ids)}}
        )
