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

    def _set(self, discussion_id, slug, fields: dict, *, deleted: bool = False) -> bool:
        if not slugs.is_slug(slug):  # request data never becomes an operator
            return False
        collection, holder = self._holder(discussion_id)
        match = {"slug": slug, "deleted_by": {"$ne": None} if deleted else None}
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
        return self._set(discussion_id, slug, {"text": text, "deleted_by": None}, deleted=True)
