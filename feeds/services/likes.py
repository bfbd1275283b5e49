"""Likes: one per (post, person), counted atomically on the post; the shared
mechanics are feeds/services/interactions.py's.

Callers check that the person may see the post (the post page's rule,
docs/architecture.md) before liking; `like_create` itself refuses removed
posts and likes across a block, in either direction. Both `$inc`s carry
`removed: None`: a removed post is frozen, likes and unlikes alike.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bson import ObjectId

from feeds.documents import Post, PostLike
from feeds.services.interactions import Interaction, InteractionError, Mark
from profiles.documents import User
from socialsite import events

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

REMOVED = "This post was removed by a moderator: it can't be liked."


class LikeError(InteractionError):
    """A like or unlike we refuse; the message can be shown to the user."""


class NoSuchPost(LikeError):
    """No such post (a 404 for the views)."""


@dataclass(frozen=True)
class LikeState(Mark):
    @property
    def liked(self) -> bool:
        return self.on

    @property
    def likes(self) -> int:
        return self.count


LIKES = Interaction(
    document=PostLike,
    counter="likes_count",
    verb="like",
    error=LikeError,
    state=LikeState,
    live_on_add={"removed": None},
    live_on_remove={"removed": None},
    marked=events.post_liked,
)


def _post(post_id: ObjectId) -> dict:
    post = Post._get_collection().find_one(
        {"_id": post_id}, {"by.id": 1, "removed": 1, "likes_count": 1}
    )
    if post is None:
        raise NoSuchPost(post_id)
    if post.get("removed") is not None:
        raise LikeError(REMOVED)
    return post


def like_create(*, post_id: ObjectId, user: User) -> LikeState:
    """`user` likes the post. Liking again changes nothing."""
    post = _post(post_id)
    author = post["by"]["id"]
    LIKES.refuse_across_blocks(user, author)
    if not LIKES.insert(post_id, user.handle):
        return LikeState(on=True, count=post.get("likes_count") or 0, changed=False)
    likes = LIKES.count(post_id, +1)
    if likes is None:
        LIKES.take_back(post_id, user.handle)
        raise LikeError(REMOVED)
    state = LIKES.changed(post_id, on=True, count=likes)
    LIKES.announce(post_id=post_id, author=author, actor=user.handle)
    return state


def like_delete(*, post_id: ObjectId, user: User) -> LikeState:
    """`user` takes their like back. Unliking again changes nothing."""
    post = _post(post_id)
    if not LIKES.take_back(post_id, user.handle):
        return LikeState(on=False, count=post.get("likes_count") or 0, changed=False)
    likes = LIKES.count(post_id, -1)
    if likes is None:
        now_post = Post._get_collection().find_one({"_id": post_id}, {"removed": 1})
        if now_post is None:
            raise NoSuchPost(post_id)
        if now_post.get("removed") is not None:
            # Removed meanwhile: frozen, so the like stays as it was counted.
            LIKES.insert(post_id, user.handle)
            raise LikeError(REMOVED)
        likes = 0  # the count was already 0: a crash left it short (likes_recount)
    state = LIKES.changed(post_id, on=False, count=likes)
    events.post_unliked.send(
        sender=PostLike, post_id=post_id, author=post["by"]["id"], actor=user.handle
    )
    return state


def liked_by(viewer: "User | AnonymousVisitor", post_ids: Iterable[ObjectId]) -> set[str]:
    """Which of a page's posts the viewer likes (their ids as strings), in
    one query on the `post_by` index; none for a signed-out viewer."""
    return LIKES.marked_by(viewer, post_ids)


def likes_delete_for(post_id: ObjectId) -> None:
    """Forget a deleted post's likes."""
    LIKES.delete_for(post_id)


def likes_recount(post_id: ObjectId) -> int:
    """Set the post's count to its likes (repair tool); returns it."""
    return LIKES.recount(post_id)
