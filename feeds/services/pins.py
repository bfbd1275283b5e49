"""Pinning one's own public posts to the top of one's wall
(docs/discovery.md#pins).

The list is the author's, on their user document (profiles/services/pins.py
keeps it, bounded and race-safe); this module decides which posts may go
in it: one's own, public and not removed. The wall decides again when it
is read, so a pin that was deleted, removed or made non-public since simply
stops showing.
"""

from bson import ObjectId

from feeds.documents import LIVE, PUBLIC, Post
from profiles.documents import User
from profiles.services import pins


class PinError(Exception):
    """A pin that is refused, with a message for the author."""


class NotYours(Exception):
    """Not the actor's post (a 404 for the views, as for an edit)."""


def pinnable(post: dict) -> bool:
    """Whether a post may be pinned: public, live, by an active author."""
    return (
        PUBLIC in (post.get("circles") or [])
        and post.get("removed") is None
        and not post.get("author_suspended")
    )


def post_pin(*, user: User, post: dict) -> bool:
    """Pin `post` (as read for the request) to `user`'s wall. True when
    pinned now, False when it was already; PinError when refused.

    At the limit, pins that can no longer show (a moderator removed the
    post, or it is no longer public) are dropped first: the author cannot
    see them to unpin them, and they must not hold a place forever."""
    if post["by"]["id"] != user.handle:
        raise NotYours(post["_id"])
    if not pinnable(post):
        raise PinError("Only your public posts can be pinned to your wall.")
    try:
        return pins.pin_add(handle=user.handle, post_id=post["_id"])
    except pins.PinsFull as full:
        stale = _unshowable(user.handle, full.pinned)
        if not stale:
            raise PinError(str(full)) from full
    pins.pins_drop(handle=user.handle, post_ids=stale)
    try:
        return pins.pin_add(handle=user.handle, post_id=post["_id"])
    except pins.PinsFull as full:
        raise PinError(str(full)) from full


def post_unpin(*, user: User, post_id: ObjectId) -> bool:
    """Unpin. True when it was pinned; otherwise nothing changes."""
    return pins.pin_remove(handle=user.handle, post_id=post_id)


def _unshowable(author: str, post_ids: list[ObjectId]) -> list[ObjectId]:
    """The pins of `author` the wall would not show: one read by `_id`."""
    shown = Post._get_collection().find(
        {"_id": {"$in": list(post_ids)}, "by.id": author, "circles": PUBLIC, **LIVE}, {"_id": 1}
    )
    showing = {row["_id"] for row in shown}
    return [post_id for post_id in post_ids if post_id not in showing]
