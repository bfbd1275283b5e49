"""Edits, soft deletes and restores for the stores that keep comments as
array elements (embedded in the post, or in buckets): one positional `$set`
on the document that holds the comment."""

from abc import ABC, abstractmethod

from comments.stores import slugs
from comments.stores.base import check_deleted_by
from socialsite.clock import now


class ArrayCommentUpdates(ABC):
    @abstractmethod
    def _holder(self, discussion_id) -> tuple:
        """(collection, filter) of the documents that hold this discussion's comments."""

    def _set(self, discussion_id, slug, fields: dict, *, deleted_by: str | None = None) -> bool:
        """One positional `$set` on the comment `slug`, if its `deleted_by`
        is `deleted_by` (None: not deleted), checked in the same write."""
        if not slugs.is_slug(slug):  # request data never becomes an operator
            return False
        collection, holder = self._holder(discussion_id)
        match = {"slug": slug, "deleted_by": deleted_by}
        result = collection.update_one(
            {**holder, "comments": {"$elemMatch": match}},
            {"$set": {f"comments.$.{k}": v for k, v in fields.items()}},
        )
        return result.modified_count == 1

    def edit(self, discussion_id, slug, *, text) -> bool:
        return self._set(discussion_id, slug, {"text": text, "edited": now()})

    def soft_delete(self, discussion_id, slug, *, by) -> bool:
        return self._set(discussion_id, slug, {"text": "", "deleted_by": check_deleted_by(by)})

    def restore(self, discussion_id, slug, *, text) -> bool:
        return self._set(
            discussion_id, slug, {"text": text, "deleted_by": None}, deleted_by="moderator"
        )
