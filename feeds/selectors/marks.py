"""Which of a page's posts the reader marked: liked, reposted, bookmarked.

Each is one query on its collection's index with the post first or the
person first (`post_like` and `post_repost` on `(post, by)`, `bookmark` on
`(owner, post)`), for the posts a timeline's own read did not look them up
for (feeds/selectors/lookups.py). Nothing is asked for a signed-out reader.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from bson import ObjectId
from mongoengine import Document

from feeds.documents import Bookmark, PostLike, PostRepost

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User


def _marked(
    document: type[Document], viewer: "User | AnonymousVisitor", post_ids: Iterable[ObjectId]
) -> set[str]:
    ids = sorted({pid for pid in post_ids if isinstance(pid, ObjectId)})
    if not ids or not getattr(viewer, "is_authenticated", False):
        return set()
    rows = document._get_collection().find(
        {"post": {"$in": ids}, "by": viewer.handle}, {"post": 1, "_id": 0}
    )
    return {str(row["post"]) for row in rows}


def liked_by(viewer: "User | AnonymousVisitor", post_ids: Iterable[ObjectId]) -> set[str]:
    """The posts the viewer likes, their ids as strings."""
    return _marked(PostLike, viewer, post_ids)


def reposted_by(viewer: "User | AnonymousVisitor", post_ids: Iterable[ObjectId]) -> set[str]:
    """The posts the viewer reposted, their ids as strings."""
    return _marked(PostRepost, viewer, post_ids)


def bookmarked_among(owner: str, post_ids: list[ObjectId]) -> set[ObjectId]:
    """Which of the posts `owner` bookmarked: one covered read of `(owner, post)`."""
    if not post_ids:
        return set()
    rows = Bookmark._get_collection().find(
        {"owner": owner, "post": {"$in": post_ids}}, {"_id": 0, "post": 1}
    )
    return {row["post"] for row in rows}


def markers_page(
    kind: str, post_id: ObjectId, *, after: str | None, before: str | None, size: int
) -> tuple[list[str], bool]:
    """Who liked (`kind` "like") or reposted ("repost") a post, in handle
    order on the `(post, by)` index: `size` handles after `after` (or the
    `size` right before `before`), and whether more follow."""
    document: type[Document] = PostLike if kind == "like" else PostRepost
    query: dict = {"post": post_id}
    if before is not None:
        query["by"] = {"$lt": before}
        rows = document._get_collection().find(query, {"_id": 0, "by": 1})
        handles = [row["by"] for row in rows.sort("by", -1).limit(size)]
        return handles[::-1], True
    if after is not None:
        query["by"] = {"$gt": after}
    rows = document._get_collection().find(query, {"_id": 0, "by": 1})
    handles = [row["by"] for row in rows.sort("by", 1).limit(size + 1)]
    return handles[:size], len(handles) > size


def repost_time(repost_id: ObjectId) -> dict | None:
    """A repost's time, reposter and post by its own id (a timeline
    entry's id): a point read of `_id`."""
    return PostRepost._get_collection().find_one({"_id": repost_id}, {"ts": 1, "by": 1, "post": 1})


def repost_by(post_id: ObjectId, handle: str) -> dict | None:
    """`handle`'s repost of the post (its own id and time), or None: a
    point read of the `(post, by)` index."""
    return PostRepost._get_collection().find_one(
        {"post": post_id, "by": handle}, {"_id": 1, "ts": 1}
    )
