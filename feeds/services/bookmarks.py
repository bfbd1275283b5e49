"""Bookmarks: a private list of posts to come back to (docs/discovery.md#bookmarks).
The caller shows the button only on a post the person may see; the list
decides visibility again when it is read."""

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from feeds.documents import Bookmark
from profiles.services import standing
from socialsite.clock import now


def bookmark_create(*, owner: str, post_id: ObjectId) -> bool:
    """Keep the post. Again: nothing (the unique index says so, races too)."""
    try:
        Bookmark._get_collection().insert_one({"owner": owner, "post": post_id, "ts": now()})
    except DuplicateKeyError:
        return False
    standing.bookmarks_count_add(handle=owner, delta=1)
    return True


def bookmark_delete(*, owner: str, post_id: ObjectId) -> bool:
    deleted = Bookmark._get_collection().delete_one({"owner": owner, "post": post_id})
    if deleted.deleted_count != 1:
        return False
    standing.bookmarks_count_add(handle=owner, delta=-1)
    return True


def bookmarks_delete_for(post_ids: list[ObjectId]) -> None:
    """Deleted posts leave everyone's bookmarks. (Their owners' counts stay:
    the count only says whether a page may have bookmarks to look up.)"""
    if post_ids:
        Bookmark._get_collection().delete_many({"post": {"$in": post_ids}})


def bookmarks_erase(handle: str, limit: int) -> int:
    """Erasure: the person's own list (docs/accounts.md#erasure)."""
    return Bookmark._get_collection().delete_many({"owner": handle}).deleted_count


def bookmarked(*, owner: str, post_id: ObjectId) -> bool:
    return (
        Bookmark._get_collection().count_documents({"owner": owner, "post": post_id}, limit=1) > 0
    )
