"""Likes: one per (post, person), counted atomically on the post.

The like itself is a `post_like` document, unique on (post, by); the count
lives on the post (`likes_count`), so showing it costs nothing beyond loading
the post. The two are kept in step without transactions, with the unique
index as the arbiter:

- like: insert the like first. Only the request whose insert lands (no
  E11000) adds 1, so racing likes by one person count once and racing likes
  by many count each.
- unlike: delete it. Only the request whose delete removed a document takes
  1 away, so the count never goes below the likes.

Both `$inc`s carry `removed: None`: a post a moderator removed is frozen
(DESIGN.md §4). A removal landing between the two writes makes the `$inc`
miss, and the like (or unlike) is undone. Should a process die between the
two writes, `likes_recount` rebuilds the count from the likes.

Callers check that the person may see the post (DESIGN.md §4, the post
page's rule) before liking; `like_create` itself refuses removed posts and
likes across a block, in either direction.
"""

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from feeds import tasks
from feeds.documents import Post, PostLike
from profiles.documents import User
from socialsite import events
from socialsite.clock import now

log = logging.getLogger(__name__)

REMOVED = "This post was removed by a moderator: it can't be liked."


class LikeError(Exception):
    """A like or unlike we refuse; the message can be shown to the user."""


class NoSuchPost(LikeError):
    """No such post (a 404 for the views)."""


@dataclass(frozen=True)
class LikeState:
    liked: bool  # the person likes the post now
    likes: int  # the post's count, as the last write left it
    changed: bool  # this call made the change (False: it was so already)


def _post(post_id: ObjectId) -> dict:
    post = Post._get_collection().find_one(
        {"_id": post_id}, {"by.id": 1, "removed": 1, "likes_count": 1}
    )
    if post is None:
        raise NoSuchPost(post_id)
    if post.get("removed") is not None:
        raise LikeError(REMOVED)
    return post


def _refuse_across_blocks(user: User, author: str) -> None:
    """The author's blocks apply (DESIGN.md §4): one point read of the
    author's document; the liker's own list is on theirs."""
    if user.handle == author:
        return
    if author in user.blocked:
        raise LikeError(f"You blocked @{author}. Unblock them to like their posts.")
    blocked = User._get_collection().find_one({"_id": author, "blocked": user.handle}, {"_id": 1})
    if blocked is not None:
        raise LikeError(f"You can't like @{author}'s posts.")


def _count(post_id: ObjectId, delta: int) -> int | None:
    """Apply `delta` to the count of a post that is not removed; its new
    count, or None when the post was removed (or deleted) meanwhile."""
    condition = {"_id": post_id, "removed": None}
    if delta < 0:
        condition["likes_count"] = {"$gt": 0}
    after = Post._get_collection().find_one_and_update(
        condition,
        {"$inc": {"likes_count": delta}},
        projection={"likes_count": 1, "_id": 0},
        return_document=ReturnDocument.AFTER,
    )
    return None if after is None else after["likes_count"]


def like_create(*, post_id: ObjectId, user: User) -> LikeState:
    """`user` likes the post. Liking again changes nothing."""
    post = _post(post_id)
    author = post["by"]["id"]
    _refuse_across_blocks(user, author)
    mine = {"post": post_id, "by": user.handle}
    try:
        PostLike._get_collection().insert_one({**mine, "ts": now()})
    except DuplicateKeyError:
        return LikeState(liked=True, likes=post.get("likes_count") or 0, changed=False)
    likes = _count(post_id, +1)
    if likes is None:
        PostLike._get_collection().delete_one(mine)
        raise LikeError(REMOVED)
    tasks.refresh_copies.enqueue(str(post_id), ["likes_count"])
    _notify(recipient=author, actor=user.handle, post_id=post_id)
    return LikeState(liked=True, likes=likes, changed=True)


def like_delete(*, post_id: ObjectId, user: User) -> LikeState:
    """`user` takes their like back. Unliking again changes nothing."""
    post = _post(post_id)
    mine = {"post": post_id, "by": user.handle}
    deleted = PostLike._get_collection().delete_one(mine)
    if deleted.deleted_count == 0:
        return LikeState(liked=False, likes=post.get("likes_count") or 0, changed=False)
    likes = _count(post_id, -1)
    if likes is None:
        now_post = Post._get_collection().find_one({"_id": post_id}, {"removed": 1})
        if now_post is None:
            raise NoSuchPost(post_id)
        if now_post.get("removed") is not None:
            # Removed meanwhile: frozen, so the like stays as it was counted.
            PostLike._get_collection().insert_one({**mine, "ts": now()})
            raise LikeError(REMOVED)
        likes = 0  # the count was already 0: a crash left it short (likes_recount)
    tasks.refresh_copies.enqueue(str(post_id), ["likes_count"])
    events.post_unliked.send(
        sender=PostLike, post_id=post_id, author=post["by"]["id"], actor=user.handle
    )
    return LikeState(liked=False, likes=likes, changed=True)


def _notify(*, recipient: str, actor: str, post_id: ObjectId) -> None:
    # Receivers (notifications) swallow their own failures; this guard keeps
    # the like standing even if that contract is ever broken (it is counted).
    try:
        events.post_liked.send(sender=PostLike, post_id=post_id, author=recipient, actor=actor)
    except Exception:
        log.exception("like_notification_failed")


def liked_by(viewer, post_ids: Iterable[ObjectId]) -> set[str]:
    """Which of a page's posts the viewer likes (their ids as strings), in
    one query on the `post_by` index; none for a signed-out viewer."""
    ids = sorted({pid for pid in post_ids if isinstance(pid, ObjectId)})
    if not ids or not getattr(viewer, "is_authenticated", False):
        return set()
    rows = PostLike._get_collection().find(
        {"post": {"$in": ids}, "by": viewer.handle}, {"post": 1, "_id": 0}
    )
    return {str(row["post"]) for row in rows}


def likes_delete_for(post_id: ObjectId) -> None:
    """Forget a deleted post's likes."""
    PostLike._get_collection().delete_many({"post": post_id})


def likes_recount(post_id: ObjectId) -> int:
    """Set the post's count to its likes (repair tool); returns it."""
    count = PostLike._get_collection().count_documents({"post": post_id})
    Post._get_collection().update_one({"_id": post_id}, {"$set": {"likes_count": count}})
    return count
