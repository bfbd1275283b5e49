"""What the stores that keep comments as array elements (embedded in the
post, or in buckets) share: edits, soft deletes and restores as one
positional `$set` on the document that holds the comment, vote counts as one
positional `$inc`, and a batch read of comments by (discussion, slug).

On a sharded cluster an update of one document must carry the collection's
whole shard key (docs/performance.md), so `_holder` names the exact document: the
post by `_id` (embedded), the bucket by (discussion_id, bucket).
"""

from abc import ABC, abstractmethod

from bson import ObjectId

from comments.stores import ledger, slugs
from comments.stores.base import ERASED, Comment, check_deleted_by
from socialsite.clock import now


class ArrayCommentUpdates(ABC):
    @abstractmethod
    def _holder(self, discussion_id: ObjectId, slug: str) -> tuple | None:
        """(collection, filter with the full shard key) of the document that
        holds the comment `slug`, or None when no document holds it."""

    @abstractmethod
    def _holders(self) -> tuple:
        """(collection, field naming the discussion) of the holding documents."""

    def _set(
        self,
        discussion_id: ObjectId,
        slug: str,
        fields: dict,
        *,
        deleted_by: str | None = None,
        any_state: bool = False,
    ) -> bool:
        """One positional `$set` on the comment `slug`, if its `deleted_by`
        is `deleted_by` (None: not deleted; `any_state`: whatever it is),
        checked in the same write."""
        if not slugs.is_slug(slug):  # request data never becomes an operator
            return False
        found = self._holder(discussion_id, slug)
        if found is None:
            return False
        collection, holder = found
        match = {"slug": slug} if any_state else {"slug": slug, "deleted_by": deleted_by}
        result = collection.update_one(
            {**holder, "comments": {"$elemMatch": match}},
            {"$set": {f"comments.$.{k}": v for k, v in fields.items()}},
        )
        return result.modified_count == 1

    def tally(
        self,
        discussion_id: ObjectId,
        slug: str,
        *,
        ups: int,
        downs: int,
        expect: tuple[int, int] | None = None,
    ) -> bool:
        """One positional `$inc` of the comment's counts. No ranking field:
        an array store has no index to rank by (it offers no `best`)."""
        if not slugs.is_slug(slug):
            return False
        found = self._holder(discussion_id, slug)
        if found is None:
            return False
        collection, holder = found
        match: dict = {"slug": slug}
        if expect is not None:
            match.update(ups=expect[0], downs=expect[1])
        result = collection.update_one(
            {**holder, "comments": {"$elemMatch": match}},
            {"$inc": {"comments.$.ups": ups, "comments.$.downs": downs}},
        )
        return result.modified_count == 1

    def edit(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        mentions = slugs.mentioned(text)
        done = self._set(
            discussion_id, slug, {"text": text, "mentions": mentions, "edited": now()}
        )
        if done:
            ledger.mentions_set(discussion_id, slug, mentions)
        return done

    def mentioning(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        return ledger.mentioning(handle, limit)

    def rewrite(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        mentions = slugs.mentioned(text)
        done = self._set(discussion_id, slug, {"text": text, "mentions": mentions}, any_state=True)
        ledger.mentions_set(discussion_id, slug, mentions)
        return done

    def soft_delete(self, discussion_id: ObjectId, slug: str, *, by: str) -> bool:
        return self._set(discussion_id, slug, {"text": "", "deleted_by": check_deleted_by(by)})

    def authored(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        # The array stores find a person's comments through their log lines.
        return ledger.authored(handle, limit)

    def erase_author(self, discussion_id: ObjectId, slug: str) -> bool:
        return self._set(discussion_id, slug, ERASED, any_state=True)

    def restore(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        return self._set(
            discussion_id, slug, {"text": text, "deleted_by": None}, deleted_by="moderator"
        )

    def many(self, keys: list[tuple[ObjectId, str]]) -> dict[tuple[ObjectId, str], Comment]:
        """The comments named by (discussion_id, slug) pairs, in one aggregation
        that returns only them (`$filter`), never the whole arrays."""
        if not keys:
            return {}
        collection, field = self._holders()
        discussions = sorted({d for d, _ in keys})
        wanted = sorted({s for _, s in keys})
        rows = collection.aggregate(
            [
                {"$match": {field: {"$in": discussions}, "comments.slug": {"$in": wanted}}},
                {
                    "$project": {
                        field: 1,
                        "comments": {
                            "$filter": {
                                "input": "$comments",
                                "cond": {"$in": ["$$this.slug", wanted]},
                            }
                        },
                    }
                },
            ]
        )
        asked, found = set(keys), {}
        for row in rows:
            for c in row["comments"]:
                if (row[field], c["slug"]) in asked:
                    found[(row[field], c["slug"])] = Comment.from_dict(c, row[field])
        return found
