"""Likes: one per (post, person), counted atomically on the post; the shared
mechanics are feeds/services/interactions.py's.

Callers check that the person may see the post (the post page's rule,
docs/architecture.md) before liking; `like_create` itself refuses removed
posts and likes across a block, in either direction. Both `$inc`s carry
`removed: None`: a removed post is frozen, likes and unlikes alike.
Each takes three round trips: the post with this request's count token, the
mark, and the `$inc` that takes the token off.
"""

from dataclasses import dataclass

from bson import ObjectId

from feeds.documents import Post, PostLike
from feeds.services.interactions import Interaction, InteractionError, Mark, Turn, counts_settle
from profiles.documents import User
from socialsite import events

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


POST_FIELDS = {"by.id": 1, "removed": 1}


def _post(turn: Turn) -> dict:
    post = turn.post
    if post is None:
        raise NoSuchPost(turn.post_id)
    if post.get("removed") is not None:
        raise LikeError(REMOVED)
    return post


def like_create(*, post_id: ObjectId, user: User, author: User | None = None) -> LikeState:
    """`user` likes the post. Liking again changes nothing. `author`: the
    post's author's document, when the caller read it already."""
    with LIKES.turn(post_id, POST_FIELDS) as turn:
        author_handle = _post(turn)["by"]["id"]
        LIKES.refuse_across_blocks(user, author_handle, known=author)
        if not LIKES.put(turn, user.handle):
            return LIKES.unchanged(post_id, on=True)
        likes = LIKES.count(turn, +1)
        if likes is None:  # removed meanwhile: undone, so nothing to count
            turn.marked = not LIKES.take_back(post_id, user.handle)
            raise LikeError(REMOVED)
    state = LIKES.changed(post_id, on=True, count=likes)
    LIKES.announce(post_id=post_id, author=author_handle, actor=user.handle)
    return state


def like_delete(*, post_id: ObjectId, user: User, author: User | None = None) -> LikeState:
    """`user` takes their like back. Unliking again changes nothing (and
    needs no block check: `author` is taken for the views' one signature)."""
    with LIKES.turn(post_id, POST_FIELDS) as turn:
        author_handle = _post(turn)["by"]["id"]
        if not LIKES.remove(turn, user.handle):
            return LIKES.unchanged(post_id, on=False)
        likes = LIKES.count(turn, -1)
        if likes is None:
            now_post = Post._get_collection().find_one({"_id": post_id}, {"removed": 1})
            if now_post is None:
                raise NoSuchPost(post_id)
            # Removed meanwhile: frozen, so the like stays as it was counted.
            # E11000: the same person liked again at that moment and put it
            # back first; that like's `$inc` misses too and takes it away,
            # so the token stays (`marked`) for the sweeper to recount.
            turn.marked = not LIKES.insert(post_id, user.handle)
            raise LikeError(REMOVED)
    state = LIKES.changed(post_id, on=False, count=likes)
    events.post_unliked.send(
        sender=PostLike, post_id=post_id, author=author_handle, actor=user.handle
    )
    return state


def likes_delete_for(post_id: ObjectId) -> None:
    """Forget a deleted post's likes."""
    LIKES.delete_for(post_id)


def likes_delete_for_many(post_ids: list[ObjectId]) -> None:
    """Forget many deleted posts' likes (an erasure's batch)."""
    if post_ids:
        PostLike._get_collection().delete_many({"post": {"$in": post_ids}})


def likes_recount(post_id: ObjectId) -> int | None:
    """Set the post's count to its likes (repair tool); returns it, or None
    when the post is gone or a request is changing it right now."""
    counts = counts_settle(post_id, [LIKES])
    return None if counts is None else counts[LIKES.counter]
