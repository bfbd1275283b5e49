"""`embedded`: the whole discussion inside the post (*Storing Comments*, "Embedding All Comments").

The `post` document carries two fields:

- `comments`: every comment, in the order posted (*Storing Comments*'s chronological
  `comments` array). Chronological pages read it with `$slice`, one round trip.
- `comment_tree`: *Storing Comments*'s nested `replies`, for threading. Its nodes are
  `{slug, replies: [...]}`: the structure only, the comment itself lives once,
  in `comments`. One copy of each text keeps an edit or a soft delete a single
  positional `$set`, and the post grows by one comment per comment, not two.

A reply is pushed with *Storing Comments*'s own update: a plain `$push` on a field path
built from the parent's positions, "comment_tree.3.replies.0.replies". Both
arrays only ever grow (deletion is soft), so a position, once taken, never
changes, and reading the positions before the `$push` is race-free.

Threaded pages follow *Storing Comments* too: read the whole document and paginate in
the application (siblings sorted by full slug, so the order equals `documents`'
even when two replies arrive out of time order). The price is the seed's: the
post holds the discussion, and every read of the post that does not project
these fields away carries it.

A MongoDB document is at most 16 MB and 100 levels deep, and a write past
either fails. So the store refuses, with DiscussionFull or ReplyTooDeep, what
would pass its own smaller limits:

- bytes: every write that grows the discussion first reserves its growth in
  the post's byte budget (`comments.stores.budget`, one atomic guarded `$inc`).
- depth: each level of replies costs the post two levels of nesting (the
  node and its `replies` array, see `nesting`), so the deepest reply kept is
  COMMENTS_MAX_STORED_DEPTH or DEPTH_CEILING, whichever is lower.

Each stored comment also gets a line in `comment_log` (`ledger`), which the
moderation pages read by time and by author with an index.
"""

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from bson import ObjectId
from django.conf import settings
from pymongo.collection import Collection

from comments.stores import budget, ledger, slugs
from comments.stores.arrays import ArrayCommentUpdates
from comments.stores.base import (
    Comment,
    CommentError,
    CommentPage,
    CommentStore,
    DiscussionFull,
    DiscussionNotFound,
    UnknownParent,
    check_order,
    page_size,
    parent_of,
)
from comments.stores.paging import keyset_in_memory, offset_page
from feeds.documents import discussion_host
from socialsite.clock import now

ATTEMPTS = 8
TREE = "comment_tree"
# `$slice` alone would be an exclusion projection (every other field comes
# back); naming one small field makes it an inclusion projection.
SMALL = {"ts": 1}
#: MongoDB's documented limit on nested documents and arrays, and the levels
#: kept free of it (the rest of the post, and room for error).
MAX_NESTING = 100
NESTING_MARGIN = 10


def nesting(depth: int) -> int:
    """Levels of nesting of a post holding a reply at `depth` (top level 0):
    the post 1, `comment_tree` 2, then per level the node and its `replies`."""
    return 4 + 2 * depth


#: The deepest reply whose nesting stays within MAX_NESTING - NESTING_MARGIN.
DEPTH_CEILING = (MAX_NESTING - NESTING_MARGIN - nesting(0)) // 2


def _posts() -> Collection:
    return discussion_host()


def _positions(tree: list[dict], slug: str) -> list[int] | None:
    """Positions of the node for `slug` in the nested replies, or None."""
    parts, nodes, positions = slug.split("/"), tree, []
    for depth in range(len(parts)):
        wanted = "/".join(parts[: depth + 1])
        for i, node in enumerate(nodes):
            if node.get("slug") == wanted:
                positions.append(i)
                nodes = node.get("replies") or []
                break
        else:
            return None
    return positions


def _node(tree: list[dict], positions: list[int]) -> dict:
    node = {"replies": tree}
    for i in positions:
        node = node["replies"][i]
    return node


def _replies_path(positions: list[int]) -> str:
    """Seed 004's `str_path`: "comment_tree.3.replies.0.replies"."""
    return TREE + "".join(f".{i}.replies" for i in positions)


def _walk(nodes: list[dict], by_slug: dict[str, dict]) -> Iterator[dict]:
    """Seed 004's `iter_comments`, siblings in full-slug order."""
    known = [n for n in nodes if n.get("slug") in by_slug]
    for node in sorted(known, key=lambda n: by_slug[n["slug"]]["full_slug"]):
        yield by_slug[node["slug"]]
        yield from _walk(node.get("replies") or [], by_slug)


class EmbeddedStore(ArrayCommentUpdates, CommentStore):
    name = "embedded"

    @property
    def max_stored_depth(self) -> int:
        return min(settings.COMMENTS_MAX_STORED_DEPTH, DEPTH_CEILING)

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
        parent, path = None, TREE
        if parent_slug is not None:
            if not slugs.is_slug(parent_slug):
                raise UnknownParent(discussion_id, parent_slug)
            self.check_reply_depth(parent_slug)
            doc = _posts().find_one(
                {"_id": discussion_id},
                {TREE: 1, "comments": {"$elemMatch": {"slug": parent_slug}}},
            )
            if doc is None:
                raise DiscussionNotFound(f"no post {discussion_id}")
            positions = _positions(doc.get(TREE) or [], parent_slug)
            if not doc.get("comments") or positions is None:
                raise UnknownParent(discussion_id, parent_slug)
            parent, path = doc["comments"][0], _replies_path(positions)
        comment = slugs.new_comment(posted=posted, parent=parent, author=author, text=text)
        # Every candidate slug has the same length, so the same cost.
        size = budget.cost(comment, {"slug": comment["slug"], "replies": []})
        budget.reserve(discussion_id, size)
        try:
            stored = self._push(discussion_id, path, comment, parent, author, text)
        except CommentError:  # surely not written (any other error: maybe written)
            budget.release(discussion_id, size)
            raise
        ledger.record(discussion_id, stored)
        return Comment.from_dict(stored, discussion_id)

    def _push(
        self,
        discussion_id: ObjectId,
        path: str,
        comment: dict[str, Any],
        parent: dict[str, Any] | None,
        author: dict,
        text: str,
    ) -> dict[str, Any]:
        for _ in range(ATTEMPTS):
            result = _posts().update_one(
                # The guard keeps slugs unique within the discussion, atomically.
                {"_id": discussion_id, "comments.slug": {"$ne": comment["slug"]}},
                {"$push": {"comments": comment, path: {"slug": comment["slug"], "replies": []}}},
            )
            if result.matched_count:
                return comment
            if _posts().find_one({"_id": discussion_id}, {"_id": 1}) is None:
                raise DiscussionNotFound(f"no post {discussion_id}")
            comment = slugs.new_comment(
                posted=comment["posted"], parent=parent, author=author, text=text
            )
        raise CommentError("could not find a free slug")

    def edit(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        """Reserve the text's growth in the byte budget first."""
        current = self.get(discussion_id, slug)
        if current is None or current.deleted:
            return False
        growth = budget.edit_growth(current.text, text, edited_before=current.edited is not None)
        budget.reserve(discussion_id, growth)
        mentions = slugs.mentioned(text)
        done = self._set(
            discussion_id, slug, {"text": text, "mentions": mentions, "edited": now()}
        )
        if not done:  # deleted meanwhile
            budget.release(discussion_id, growth)
        else:
            ledger.mentions_set(discussion_id, slug, mentions)
        return done

    def _whole(self, discussion_id: ObjectId) -> tuple[list[dict], dict[str, dict]]:
        doc = _posts().find_one({"_id": discussion_id}, {"comments": 1, TREE: 1}) or {}
        return doc.get(TREE) or [], {c["slug"]: c for c in doc.get("comments") or []}

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
        limit = page_size(limit)
        if order == "threaded":
            tree, by_slug = self._whole(discussion_id)
            flat = [Comment.from_dict(c, discussion_id) for c in _walk(tree, by_slug)]
            return keyset_in_memory(flat, after=after, before=before, limit=limit)

        def fetch(start: int, n: int) -> list[dict]:
            doc = _posts().find_one(
                {"_id": discussion_id}, {**SMALL, "comments": {"$slice": [start, n]}}
            )
            return (doc or {}).get("comments") or []

        def tail(n: int) -> tuple[int, list[dict]]:
            # The newest page needs the length too: one aggregation, $size + $slice.
            array = {"$ifNull": ["$comments", []]}
            pipeline: list[dict[str, Any]] = [
                {"$match": {"_id": discussion_id}},
                {"$project": {"n": {"$size": array}, "page": {"$slice": [array, -n]}}},
            ]
            rows = list(_posts().aggregate(pipeline))
            return (rows[0]["n"], rows[0]["page"]) if rows else (0, [])

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

    def get(self, discussion_id: ObjectId, slug: str) -> Comment | None:
        if not slugs.is_slug(slug):
            return None
        doc = _posts().find_one(
            {"_id": discussion_id}, {**SMALL, "comments": {"$elemMatch": {"slug": slug}}}
        )
        found = (doc or {}).get("comments") or []
        return Comment.from_dict(found[0], discussion_id) if found else None

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
        tree, by_slug = self._whole(discussion_id)
        positions = _positions(tree, slug)
        if positions is None or slug not in by_slug:
            return None
        node = _node(tree, positions)
        flat = [by_slug[slug], *_walk(node.get("replies") or [], by_slug)]
        comments = [Comment.from_dict(c, discussion_id) for c in flat]
        return keyset_in_memory(comments, after=after, before=before, limit=limit)

    def count(self, discussion_id: ObjectId) -> int:
        pipeline: list[dict[str, Any]] = [
            {"$match": {"_id": discussion_id}},
            {"$project": {"n": {"$size": {"$ifNull": ["$comments", []]}}}},
        ]
        rows = list(_posts().aggregate(pipeline))
        return rows[0]["n"] if rows else 0

    def _holder(self, discussion_id: ObjectId, slug: str) -> tuple:
        # The post's shard key is its `_id`; the `$elemMatch` of the write
        # checks that it holds the comment.
        return _posts(), {"_id": discussion_id}

    def _holders(self) -> tuple:
        return _posts(), "_id"

    def last(self, discussion_id: ObjectId, n: int) -> list[Comment]:
        if n <= 0:
            return []
        doc = _posts().find_one({"_id": discussion_id}, {**SMALL, "comments": {"$slice": -n}})
        return [Comment.from_dict(c, discussion_id) for c in (doc or {}).get("comments") or []]

    def delete_discussion(self, discussion_id: ObjectId) -> None:
        _posts().update_one({"_id": discussion_id}, {"$unset": {"comments": "", TREE: ""}})
        ledger.forget(discussion_id)
        budget.forget(discussion_id)

    def delete_discussions(self, discussion_ids: list[ObjectId]) -> None:
        # The posts are deleted, and the discussions with them.
        if discussion_ids:
            ledger.forget_many(discussion_ids)
            budget.forget_many(discussion_ids)

    def put(self, discussion_id: ObjectId, comment: dict[str, Any]) -> bool:
        path = TREE
        parent_slug = parent_of(comment["slug"])
        if parent_slug is not None:
            doc = _posts().find_one({"_id": discussion_id}, {TREE: 1})
            if doc is None:
                raise DiscussionNotFound(f"no post {discussion_id}")
            positions = _positions(doc.get(TREE) or [], parent_slug)
            if positions is None:
                raise UnknownParent(discussion_id, parent_slug)
            path = _replies_path(positions)
        size = budget.cost(comment, {"slug": comment["slug"], "replies": []})
        budget.reserve(discussion_id, size)
        result = _posts().update_one(
            {"_id": discussion_id, "comments.slug": {"$ne": comment["slug"]}},
            {"$push": {"comments": comment, path: {"slug": comment["slug"], "replies": []}}},
        )
        if not result.matched_count:  # there already (or the post is gone)
            budget.release(discussion_id, size)
            return False
        ledger.record(discussion_id, comment)
        return True

    def replace_thread(self, discussion_id: ObjectId, comments: list[dict[str, Any]]) -> None:
        """One `$set` of both arrays, after the byte budget is counted anew."""
        tree: list[dict] = []
        nodes: dict[str, dict] = {}
        for comment in sorted(comments, key=lambda c: c["full_slug"]):  # parents first
            node = {"slug": comment["slug"], "replies": []}
            parent = nodes.get(parent_of(comment["slug"]) or "")
            (parent["replies"] if parent else tree).append(node)
            nodes[comment["slug"]] = node
        size = sum(budget.cost(c, {"slug": c["slug"], "replies": []}) for c in comments)
        if size > settings.COMMENTS_EMBEDDED_MAX_BYTES:  # refused before anything changes
            raise DiscussionFull(f"post {discussion_id}: {size} bytes of comments")
        budget.forget(discussion_id)
        budget.reserve(discussion_id, size)
        _posts().update_one(
            {"_id": discussion_id}, {"$set": {"comments": list(comments), TREE: tree}}
        )
        ledger.forget(discussion_id)
        ledger.record_many(discussion_id, comments)
