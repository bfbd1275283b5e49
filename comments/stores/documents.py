"""`documents`: one document per comment (*Storing Comments*, "One Document per Comment").

Each comment is a document in `comments` with its `slug` path and `full_slug`.
Threaded pages sort on `full_slug`, chronological pages on (`posted`, `_id`);
both page by keyset (`full_slug > cursor`, not a growing `skip`), so page 40
reads what page 1 reads: one indexed range scan, one round trip. A
sub-discussion is *Storing Comments*'s prefix query on `full_slug`, as a string range
(`slugs.subtree_range`) so that the index bounds it.

The `best` and `top` orders rank the top-level comments by their votes
(comments/ranking.py) on the (discussion_id, depth, best|score, _id) indexes:
each comment keeps `ups`, `downs`, `score` and `best`, and counts its direct
`replies` so a ranked page can say how many wait under each.

Every write of one comment filters on (discussion_id, slug), the collection's
shard key, so a sharded cluster routes it to one shard.
"""

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bson import ObjectId
from pymongo import ASCENDING, DESCENDING, ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from comments import ranking
from comments.documents import CommentDocument
from comments.stores import cursors, slugs
from comments.stores.base import (
    ERASED,
    Comment,
    CommentError,
    CommentPage,
    CommentStore,
    UnknownParent,
    check_deleted_by,
    check_order,
    page_size,
    parent_of,
)
from socialsite.clock import now

ATTEMPTS = 8  # fresh random slug parts tried before giving up


def _collection() -> Collection:
    return CommentDocument._get_collection()


def _beyond(fields: tuple[str, ...], key: tuple, ascending: bool) -> dict:
    """The filter "strictly after `key` in (fields) order", index-friendly: a
    range on the first field, the tie-break on the second as a residual."""
    op = "$gt" if ascending else "$lt"
    if len(fields) == 1:
        return {fields[0]: {op: key[0]}}
    first, second = fields
    return {
        first: {op + "e": key[0]},
        "$or": [{first: {op: key[0]}}, {second: {op: key[1]}}],
    }


def _ranked(comment: dict) -> dict:
    """The stored comment with its ranking fields, from its vote counts."""
    ups, downs = comment.get("ups") or 0, comment.get("downs") or 0
    return {
        **comment,
        "ups": ups,
        "downs": downs,
        "score": ranking.score(ups, downs),
        "best": ranking.wilson_lower_bound(ups, downs),
    }


#: The ranked orders: the field each sorts on, highest first.
RANK_FIELDS = {"best": "best", "top": "score"}


class DocumentsStore(CommentStore):
    name = "documents"
    orders = ("threaded", "oldest", "newest", "best", "top")

    def post(
        self,
        discussion_id: ObjectId,
        *,
        author: dict,
        text: str,
        parent_slug: str | None = None,
        posted: datetime | None = None,
    ) -> Comment:
        posted = slugs.posted_time(posted)
        parent = None
        if parent_slug is not None:
            if not slugs.is_slug(parent_slug):
                raise UnknownParent(discussion_id, parent_slug)
            self.check_reply_depth(parent_slug)
            # Seed 004: load the parent by slug to extend its paths.
            parent = _collection().find_one(
                {"discussion_id": discussion_id, "slug": parent_slug},
                {"slug": 1, "full_slug": 1},
            )
            if parent is None:
                raise UnknownParent(discussion_id, parent_slug)
        for _ in range(ATTEMPTS):
            doc = _ranked(
                slugs.new_comment(posted=posted, parent=parent, author=author, text=text)
            )
            doc["discussion_id"] = discussion_id
            doc["parent_id"] = parent["_id"] if parent else None
            try:
                _collection().insert_one(doc)
            except DuplicateKeyError:
                continue  # a sibling holds this slug already
            if parent is not None:
                self._replied(discussion_id, parent["slug"])
            return Comment.from_dict(doc, discussion_id)
        raise CommentError("could not find a free slug")

    def page(
        self,
        discussion_id: ObjectId,
        *,
        order: str = "threaded",
        after: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> CommentPage:
        check_order(order)
        limit = page_size(limit)
        fields: tuple[str, ...]
        after_key: tuple | None
        before_key: tuple | None
        if order in RANK_FIELDS:
            return self._ranked_page(discussion_id, order, after, before, limit)
        if order == "threaded":
            after_slug, before_slug = cursors.decode_optional(
                cursors.decode_threaded, after, before
            )
            fields = ("full_slug",)
            after_key = None if after_slug is None else (after_slug,)
            before_key = None if before_slug is None else (before_slug,)
            encode = self._threaded_cursor
        else:
            after_key, before_key = cursors.decode_optional(cursors.decode_chrono, after, before)
            fields = ("posted", "_id")
            encode = self._chrono_cursor
        return self._keyset(
            {"discussion_id": discussion_id},
            fields=fields,
            ascending=order != "newest",
            after=after_key,
            before=before_key,
            limit=limit,
            order=order,
            encode=encode,
        )

    def _ranked_page(
        self,
        discussion_id: ObjectId,
        order: str,
        after: str | None,
        before: str | None,
        limit: int,
    ) -> CommentPage:
        """Top-level comments, highest `best` (or score) first, the newest
        first among equals: a keyset on (rank, _id), both descending, read
        in the order of the rank's index."""
        field = RANK_FIELDS[order]
        after_key, before_key = cursors.decode_optional(cursors.decode_ranked, after, before)

        def encode(c: Comment) -> str:
            rank = ranking.wilson_lower_bound(c.ups, c.downs) if order == "best" else c.score
            return cursors.ranked(rank, c.id)

        return self._keyset(
            {"discussion_id": discussion_id, "depth": 0},
            fields=(field, "_id"),
            ascending=False,
            after=after_key,
            before=before_key,
            limit=limit,
            order=order,
            encode=encode,
        )

    def _replied(self, discussion_id: ObjectId, parent_slug: str) -> None:
        """Count a reply on its parent (a ranked page says how many wait)."""
        _collection().update_one(
            {"discussion_id": discussion_id, "slug": parent_slug}, {"$inc": {"replies": 1}}
        )

    @staticmethod
    def _threaded_cursor(c: Comment) -> str:
        return cursors.threaded(c.full_slug)

    @staticmethod
    def _chrono_cursor(c: Comment) -> str:
        return cursors.chrono(c.posted, c.id)

    def _keyset(
        self,
        query: dict[str, Any],
        *,
        fields: tuple[str, ...],
        ascending: bool,
        after: tuple | None,
        before: tuple | None,
        limit: int,
        order: str,
        encode: Callable[[Comment], str],
    ) -> CommentPage:
        """One query: limit + 1 rows past the cursor, in index order."""
        forward = before is None
        direction = ascending if forward else not ascending
        boundary = after if forward else before
        if boundary is not None:
            query = dict(query)
            for key, cond in _beyond(fields, boundary, direction).items():
                if key in query:
                    # The subtree's own range on the same field: both must
                    # hold (the server intersects the bounds), so a forged
                    # cursor cannot widen the subtree.
                    query.setdefault("$and", []).append({key: cond})
                else:
                    query[key] = cond
        sort = [(f, ASCENDING if direction else DESCENDING) for f in fields]
        rows = list(_collection().find(query).sort(sort).limit(limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        if not forward:
            rows.reverse()
        discussion_id = query["discussion_id"]
        comments = [Comment.from_dict(r, discussion_id) for r in rows]
        has_next = more if forward else bool(comments)
        has_prev = (after is not None and bool(comments)) if forward else more
        return CommentPage(
            comments=comments,
            order=order,
            next=encode(comments[-1]) if has_next else None,
            prev=encode(comments[0]) if has_prev else None,
        )

    def get(self, discussion_id: ObjectId, slug: str) -> Comment | None:
        if not slugs.is_slug(slug):
            return None
        doc = _collection().find_one({"discussion_id": discussion_id, "slug": slug})
        return Comment.from_dict(doc, discussion_id) if doc else None

    def subtree(
        self,
        discussion_id: ObjectId,
        slug: str,
        *,
        after: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> CommentPage | None:
        limit = page_size(limit)
        root = self.get(discussion_id, slug)
        if root is None:
            return None
        after_key, before_key = cursors.decode_optional(cursors.decode_threaded, after, before)
        # A range, not *Storing Comments*'s regex: index bounds (see slugs.subtree_range).
        query = {"discussion_id": discussion_id, "full_slug": slugs.subtree_range(root.full_slug)}
        return self._keyset(
            query,
            fields=("full_slug",),
            ascending=True,
            after=None if after_key is None else (after_key,),
            before=None if before_key is None else (before_key,),
            limit=limit,
            order="threaded",
            encode=self._threaded_cursor,
        )

    def count(self, discussion_id: ObjectId) -> int:
        return _collection().count_documents({"discussion_id": discussion_id})

    def edit(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        if not slugs.is_slug(slug):
            return False
        result = _collection().update_one(
            {"discussion_id": discussion_id, "slug": slug, "deleted_by": None},
            {"$set": {"text": text, "mentions": slugs.mentioned(text), "edited": now()}},
        )
        return result.modified_count == 1

    def soft_delete(self, discussion_id: ObjectId, slug: str, *, by: str) -> bool:
        check_deleted_by(by)
        if not slugs.is_slug(slug):
            return False
        result = _collection().update_one(
            {"discussion_id": discussion_id, "slug": slug, "deleted_by": None},
            {"$set": {"text": "", "deleted_by": by}},
        )
        return result.modified_count == 1

    def authored(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        rows = _collection().find({"author.id": handle}, {"discussion_id": 1, "slug": 1})
        return [(row["discussion_id"], row["slug"]) for row in rows.limit(limit)]

    def mentioning(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        rows = _collection().find({"mentions": handle}, {"discussion_id": 1, "slug": 1})
        return [(row["discussion_id"], row["slug"]) for row in rows.limit(limit)]

    def rewrite(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        if not slugs.is_slug(slug):
            return False
        result = _collection().update_one(
            {"discussion_id": discussion_id, "slug": slug},
            {"$set": {"text": text, "mentions": slugs.mentioned(text)}},
        )
        return result.modified_count == 1

    def erase_author(self, discussion_id: ObjectId, slug: str) -> bool:
        if not slugs.is_slug(slug):
            return False
        result = _collection().update_one(
            {"discussion_id": discussion_id, "slug": slug}, {"$set": ERASED}
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
        """The counts by `$inc`, so racing votes all count; then `best`,
        which no `$inc` can compute, set only if the counts are still the
        ones it was computed from. A vote landing in between fails that
        check, and its own tally sets `best` from the newer counts: the last
        `$inc` to land always writes the `best` of the final counts."""
        if not slugs.is_slug(slug):
            return False
        key = {"discussion_id": discussion_id, "slug": slug}
        expected = {} if expect is None else {"ups": expect[0], "downs": expect[1]}
        counts = _collection().find_one_and_update(
            {**key, **expected},
            {"$inc": {"ups": ups, "downs": downs, "score": ups - downs}},
            projection={"ups": 1, "downs": 1},
            return_document=ReturnDocument.AFTER,
        )
        if counts is None:
            return False
        _collection().update_one(
            {**key, "ups": counts["ups"], "downs": counts["downs"]},
            {"$set": {"best": ranking.wilson_lower_bound(counts["ups"], counts["downs"])}},
        )
        return True

    def restore(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        if not slugs.is_slug(slug):
            return False
        result = _collection().update_one(
            {"discussion_id": discussion_id, "slug": slug, "deleted_by": "moderator"},
            {"$set": {"text": text, "deleted_by": None}},
        )
        return result.modified_count == 1

    def last(self, discussion_id: ObjectId, n: int) -> list[Comment]:
        if n <= 0:
            return []
        rows = (
            _collection()
            .find({"discussion_id": discussion_id})
            .sort([("posted", DESCENDING), ("_id", DESCENDING)])
            .limit(n)
        )
        return [Comment.from_dict(r, discussion_id) for r in rows][::-1]

    def delete_discussion(self, discussion_id: ObjectId) -> None:
        _collection().delete_many({"discussion_id": discussion_id})

    def delete_discussions(self, discussion_ids: list[ObjectId]) -> None:
        if discussion_ids:
            _collection().delete_many({"discussion_id": {"$in": list(discussion_ids)}})

    def put(self, discussion_id: ObjectId, comment: dict[str, Any]) -> bool:
        parent_id = None
        parent_slug = parent_of(comment["slug"])
        if parent_slug:
            # Seed 004's `parent_id`: the parent's id, which every store shares.
            parent = _collection().find_one(
                {"discussion_id": discussion_id, "slug": parent_slug}, {"_id": 1}
            )
            if parent is None:
                raise UnknownParent(discussion_id, parent_slug)
            parent_id = parent["_id"]
        try:
            _collection().insert_one(
                {**_ranked(comment), "discussion_id": discussion_id, "parent_id": parent_id}
            )
        except DuplicateKeyError:  # the unique (discussion_id, slug): there already
            return False
        if parent_slug:
            self._replied(discussion_id, parent_slug)
        return True

    def replace_thread(self, discussion_id: ObjectId, comments: list[dict[str, Any]]) -> None:
        _collection().delete_many({"discussion_id": discussion_id})
        ids = {c["slug"]: c["_id"] for c in comments}
        replies = Counter(parent_of(c["slug"]) for c in comments)
        docs = [
            {
                **_ranked(c),
                "discussion_id": discussion_id,
                "parent_id": ids.get(parent_of(c["slug"])),
                "replies": replies[c["slug"]],
            }
            for c in comments
        ]
        if docs:
            _collection().insert_many(docs)
