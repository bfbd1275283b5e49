"""`buckets`: about COMMENTS_BUCKET_SIZE comments per document (*Storing Comments*, "Hybrid Schema
Design").

`comment_buckets` holds `{discussion_id, bucket, count, comments: [...]}`;
the post keeps `num_buckets`, the number of the bucket being filled (missing
means 0), where *Storing Comments* keeps it: on the discussion.

Posting is *Storing Comments*'s: a find-and-modify upsert on the last known bucket
(`$inc` count, `$push` the comment); when that bucket has reached its size,
bump `num_buckets` with an update whose query includes the number just used,
so of several racers only one advances it (socialsite/buckets.py, which the
conversations' messages share). Therefore:

- no comment is lost: every comment is one atomic `$push`;
- no bucket is empty: a bucket only comes into being by the upsert that
  pushes a comment into it;
- a bucket holds at most its size plus the writers that read the old number
  before the bump (*Storing Comments*'s "soft" limit).

It is chronological only, as the seed says of it ("storing threaded comments
[in the hybrid format] is complex"): replies are stored with their slug paths
but `page(order="threaded")` raises ThreadingUnsupported. Pages use the
seed's skip/limit across buckets: one query for the bucket counts, then a
`$slice` on each bucket the page overlaps. A sub-discussion is found with
the (discussion_id, comments.slug) index by a slug range (`$elemMatch`, so
the bounds hold on the multikey index), then filtered and sorted in the
application: it reads the buckets that hold any of it.

Every write of one bucket carries the collection's whole shard key,
(discussion_id, bucket): an edit, a soft delete or a restore first looks up
which bucket holds the comment (by slug, with the index above; a comment
never moves, so the answer stays true) and then updates that bucket.

Each stored comment also gets a line in `comment_log` (`ledger`), which the
moderation pages read by time and by author with an index.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from bson import ObjectId
from django.conf import settings
from pymongo import ASCENDING, DESCENDING
from pymongo.collection import Collection

from comments.documents import CommentBucket
from comments.stores import ledger, slugs
from comments.stores.arrays import ArrayCommentUpdates
from comments.stores.base import (
    Comment,
    CommentError,
    CommentPage,
    CommentStore,
    DiscussionNotFound,
    ThreadingUnsupported,
    UnknownParent,
    check_order,
    page_size,
)
from comments.stores.paging import keyset_in_memory, offset_page
from feeds.documents import discussion_host
from socialsite.buckets import AppendFailed, Buckets, BucketsMissing

ATTEMPTS = 16  # fresh slugs / retried upserts before giving up
COUNTER = "num_buckets"


def _buckets() -> Collection:
    return CommentBucket._get_collection()


def _posts() -> Collection:
    return discussion_host()


BUCKETS = Buckets(
    buckets=_buckets,
    parents=_posts,
    owner="discussion_id",
    items="comments",
    counter=COUNTER,
    size=lambda: settings.COMMENTS_BUCKET_SIZE,
)


class BucketsStore(ArrayCommentUpdates, CommentStore):
    name = "buckets"
    threaded = False
    orders = ("oldest", "newest")

    @property
    def bucket_size(self) -> int:
        return settings.COMMENTS_BUCKET_SIZE

    # --- writing ----------------------------------------------------------

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
            parent = self._find(discussion_id, parent_slug)
            if parent is None:
                raise UnknownParent(discussion_id, parent_slug)
        stored = self._push(
            discussion_id,
            self._fresh(discussion_id, posted, parent, author, text),
            redraw=lambda: self._fresh(discussion_id, posted, parent, author, text),
        )
        assert stored is not None  # a redraw always gives a comment, never None
        return Comment.from_dict(stored, discussion_id)

    def put(self, discussion_id: ObjectId, comment: dict[str, Any]) -> bool:
        # The `$ne` guard sees one bucket: look in all of them first.
        if self._find(discussion_id, comment["slug"]) is not None:
            return False
        return self._push(discussion_id, comment, redraw=lambda: None) is not None

    def replace_thread(self, discussion_id: ObjectId, comments: list[dict[str, Any]]) -> None:
        """Full buckets in order, the last one being filled: two writes and the post's counter."""
        _buckets().delete_many({"discussion_id": discussion_id})
        n = self.bucket_size
        chunks = [list(comments[i : i + n]) for i in range(0, len(comments), n)]
        buckets: list[dict[str, Any]] = [
            {"discussion_id": discussion_id, "bucket": i, "count": len(c), "comments": c}
            for i, c in enumerate(chunks)
        ]
        if buckets:
            _buckets().insert_many(buckets)
        last = len(buckets) - 1 if buckets else 0
        # A full last bucket is moved past, as `post` moves past it.
        if buckets and buckets[-1]["count"] >= n:
            last += 1
        _posts().update_one({"_id": discussion_id}, {"$set": {COUNTER: last}})
        ledger.forget(discussion_id)
        ledger.record_many(discussion_id, comments)

    def _push(
        self,
        discussion_id: ObjectId,
        comment: dict[str, Any],
        *,
        redraw: Callable[[], dict[str, Any] | None],
    ) -> dict[str, Any] | None:
        """Seed 004's find-and-modify upsert into the bucket being filled,
        with its race-safe rollover (socialsite/buckets.py). When a racer took
        the comment's slug, `redraw()` gives a new comment (a new post) or
        None (a copy: it is there already, stop)."""

        def conflict(tried: dict) -> dict | None:
            # A racer created the bucket first (the same comment again), or
            # took our slug in it (draw a new one).
            if self._find(discussion_id, tried["slug"]) is None:
                return tried
            return redraw()

        try:
            appended = BUCKETS.append(
                discussion_id,
                comment,
                # The $ne guard: no duplicate slug in this bucket, atomically.
                guard=lambda c: {"comments.slug": {"$ne": c["slug"]}},
                on_conflict=conflict,
            )
        except BucketsMissing as exc:
            raise DiscussionNotFound(f"no post {discussion_id}") from exc
        except AppendFailed as exc:
            raise CommentError("could not store the comment") from exc
        if appended is None:
            return None
        _, stored = appended
        ledger.record(discussion_id, stored)
        return stored

    def _fresh(
        self,
        discussion_id: ObjectId,
        posted: datetime,
        parent: dict[str, Any] | None,
        author: dict,
        text: str,
    ) -> dict[str, Any]:
        """A new comment whose slug no bucket of the discussion holds yet."""
        for _ in range(ATTEMPTS):
            comment = slugs.new_comment(posted=posted, parent=parent, author=author, text=text)
            if self._find(discussion_id, comment["slug"]) is None:
                return comment
        raise CommentError("could not find a free slug")

    def _holder(self, discussion_id: ObjectId, slug: str) -> tuple | None:
        row = _buckets().find_one(
            {"discussion_id": discussion_id, "comments.slug": slug}, {"bucket": 1}
        )
        if row is None:
            return None
        return _buckets(), {"discussion_id": discussion_id, "bucket": row["bucket"]}

    def _holders(self) -> tuple:
        return _buckets(), "discussion_id"

    def delete_discussion(self, discussion_id: ObjectId) -> None:
        _buckets().delete_many({"discussion_id": discussion_id})
        _posts().update_one({"_id": discussion_id}, {"$unset": {COUNTER: ""}})
        ledger.forget(discussion_id)

    def delete_discussions(self, discussion_ids: list[ObjectId]) -> None:
        # The posts are deleted: no counter to unset on them.
        if discussion_ids:
            _buckets().delete_many({"discussion_id": {"$in": list(discussion_ids)}})
            ledger.forget_many(discussion_ids)

    # --- reading ----------------------------------------------------------

    def headers(self, discussion_id: ObjectId) -> list[tuple[int, int]]:
        """(bucket, count) of every bucket, in order: one small query."""
        rows = _buckets().find({"discussion_id": discussion_id}, {"bucket": 1, "count": 1})
        return [(r["bucket"], r["count"]) for r in rows.sort("bucket", ASCENDING)]

    def find_comments(
        self,
        discussion_id: ObjectId,
        skip: int,
        limit: int,
        headers: list[tuple[int, int]] | None = None,
    ) -> list[tuple[int, list[dict]]]:
        """Seed 004's `find_comments`: [(bucket, its comments in the window)].

        Walk the buckets in order; a bucket wholly before `skip` only lowers
        `skip` by its count (known from the headers, so it is not read); the
        others are read with `$slice: [skip, limit]` until `limit` is met.
        """
        result: list[tuple[int, list[dict]]] = []
        if limit <= 0:
            return result
        for number, count in self.headers(discussion_id) if headers is None else headers:
            if skip >= count:
                skip -= count
                continue
            doc = _buckets().find_one(
                {"discussion_id": discussion_id, "bucket": number},
                {"count": 1, "comments": {"$slice": [skip, limit]}},
            )
            comments = (doc or {}).get("comments") or []
            result.append((number, comments))
            skip = max(0, skip - (doc or {}).get("count", count))
            limit -= len(comments)
            if limit <= 0:
                break
        return result

    def page(
        self,
        discussion_id: ObjectId,
        *,
        order: str = "threaded",
        after: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> CommentPage:
        check_order(order, self.orders)
        if order == "threaded":
            raise ThreadingUnsupported(
                "Threaded view is not available with the buckets store: "
                "comments are shown in the order they were posted."
            )
        limit = page_size(limit)
        headers = self.headers(discussion_id)

        def fetch(start: int, n: int) -> list[dict]:
            chunks = self.find_comments(discussion_id, start, n, headers)
            return [c for _, comments in chunks for c in comments]

        def tail(n: int) -> tuple[int, list[dict]]:
            total = sum(count for _, count in headers)
            return total, fetch(max(0, total - n), n)

        placed, next_cursor, prev_cursor = offset_page(
            newest=order == "newest",
            after=after,
            before=before,
            limit=limit,
            fetch=fetch,
            tail=tail,
        )
        return CommentPage(
            comments=[Comment.from_dict(c, discussion_id) for _, c in placed],
            order=order,
            next=next_cursor,
            prev=prev_cursor,
        )

    def _find(self, discussion_id: ObjectId, slug: str) -> dict[str, Any] | None:
        doc = _buckets().find_one(
            {"discussion_id": discussion_id, "comments.slug": slug},
            {"comments": {"$elemMatch": {"slug": slug}}},
        )
        found = (doc or {}).get("comments") or []
        return found[0] if found else None

    def get(self, discussion_id: ObjectId, slug: str) -> Comment | None:
        if not slugs.is_slug(slug):
            return None
        found = self._find(discussion_id, slug)
        return Comment.from_dict(found, discussion_id) if found else None

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
        if not slugs.is_slug(slug):
            return None
        rows = _buckets().find(
            {
                "discussion_id": discussion_id,
                "comments": {"$elemMatch": {"slug": slugs.subtree_range(slug)}},
            },
            {"comments": 1},
        )
        found = [c for r in rows for c in r["comments"] if slugs.in_subtree(c["slug"], slug)]
        if not any(c["slug"] == slug for c in found):
            return None
        found.sort(key=lambda c: c["full_slug"])
        comments = [Comment.from_dict(c, discussion_id) for c in found]
        return keyset_in_memory(comments, after=after, before=before, limit=limit)

    def count(self, discussion_id: ObjectId) -> int:
        return sum(count for _, count in self.headers(discussion_id))

    def last(self, discussion_id: ObjectId, n: int) -> list[Comment]:
        if n <= 0:
            return []
        # Buckets are never empty, so the newest n buckets hold the newest n comments.
        rows = (
            _buckets()
            .find({"discussion_id": discussion_id}, {"bucket": 1, "comments": {"$slice": -n}})
            .sort("bucket", DESCENDING)
            .limit(n)
        )
        newest: list[dict] = []
        for row in rows:
            newest = row["comments"] + newest
            if len(newest) >= n:
                break
        return [Comment.from_dict(c, discussion_id) for c in newest[-n:]]
