"""The `embedded` store's byte budget: a post holds at most
COMMENTS_EMBEDDED_MAX_BYTES of comments, well under the 16 MB document limit.

A MongoDB write that takes a document past 16 MB fails (error 17419); the
discussion would then take no comment, edit or vote ever again, with a 500 each
time. So every write that grows a discussion first reserves its growth in
`comment_budget` (one document per post, `bytes`): one `$inc` whose filter
holds the guard "still within the budget", atomic on the server, no read.
Only a successful reservation lets the write go ahead; a write that then does
not happen (a slug taken, the post gone) gives its reservation back.

The count is an upper bound of what the post's `comments` and `comment_tree`
take: a new comment costs its element's BSON size in each array (`cost`), an
edit its text's growth, and a soft delete gives nothing back. A crash between
the reservation and the write leaves the count high, never low.
"""

import bson
from bson import ObjectId
from django.conf import settings
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from comments.documents import CommentBudget
from comments.stores.base import DiscussionFull

#: An array element's bytes besides its value: the type byte, its index as a
#: key (up to 7 digits) and the key's NUL.
ELEMENT_OVERHEAD = 9
#: What `edited` grows by when it first changes from null to a date.
DATETIME_BYTES = 8


def _budgets() -> Collection:
    return CommentBudget._get_collection()


def cost(comment: dict, node: dict) -> int:
    """Bytes a new comment adds to the post: its element in `comments` and its
    node in `comment_tree`."""
    return len(bson.encode(comment)) + len(bson.encode(node)) + 2 * ELEMENT_OVERHEAD


def edit_growth(old_text: str, new_text: str, *, edited_before: bool) -> int:
    growth = max(0, len(new_text.encode()) - len(old_text.encode()))
    return growth + (0 if edited_before else DATETIME_BYTES)


def reserve(discussion_id: ObjectId, growth: int) -> None:
    """Count `growth` more bytes for the post, or raise DiscussionFull."""
    if growth <= 0:
        return
    limit = settings.COMMENTS_EMBEDDED_MAX_BYTES
    if growth > limit:
        raise DiscussionFull(f"{growth} bytes do not fit a budget of {limit}")
    query = {"_id": discussion_id, "bytes": {"$not": {"$gt": limit - growth}}}
    update = {"$inc": {"bytes": growth}}
    try:
        # The first comment creates the count; a full one makes the upsert
        # try to insert a second `_id`, which fails with E11000.
        _budgets().update_one(query, update, upsert=True)
        return
    except DuplicateKeyError:
        pass
    # Full, or another first comment created it meanwhile: once more without
    # the upsert (the server's advice for racing upserts), which tells them apart.
    if not _budgets().update_one(query, update).matched_count:
        raise DiscussionFull(f"post {discussion_id} is at its comment byte budget")


def release(discussion_id: ObjectId, growth: int) -> None:
    """Give back a reservation whose write did not happen."""
    if growth:
        _budgets().update_one({"_id": discussion_id}, {"$inc": {"bytes": -growth}})


def used(discussion_id: ObjectId) -> int:
    doc = _budgets().find_one({"_id": discussion_id})
    return (doc or {}).get("bytes", 0)


def forget(discussion_id: ObjectId) -> None:
    _budgets().delete_one({"_id": discussion_id})


def forget_many(discussion_ids: list[ObjectId]) -> None:
    _budgets().delete_many({"_id": {"$in": list(discussion_ids)}})
