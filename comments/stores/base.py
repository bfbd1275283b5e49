"""The interface every comment store implements, and the values it returns.

Seed 004 ("Storing Comments") gives three ways to keep a discussion; each
store module implements one behind `CommentStore`. A discussion is a post:
`discussion_id` is the post's ObjectId.

Every comment has a `slug` path ("34db/8bda": the parent's slug plus a random
part) and a `full_slug` (each part prefixed with its posting time), so that
sorting on `full_slug` gives the threaded order (*Storing Comments*, "One Document per
Comment"). All three stores keep both, so a comment has the same permalink
under every store.

Authorisation (who may edit or delete) and input validation belong to the
services that call a store; a store only stores.
"""

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bson import ObjectId
from django.conf import settings

from comments import ranking

# The slug rules' module itself, not `from comments.stores import slugs`: the
# package's __init__ imports this module, and a module it imports must not
# import the package back.
from comments.stores.slugs import mentioned
from socialsite.clock import aware

Order = Literal["threaded", "oldest", "newest", "best", "top"]
ORDERS: tuple[str, ...] = ("threaded", "oldest", "newest", "best", "top")
#: The orders that rank conversations by their votes (comments/ranking.py):
#: top-level comments only, each leading to its replies.
RANKED: tuple[str, ...] = ("best", "top")
#: Who soft-deleted a comment: its author, a moderator, or the author of the
#: post it is on (who keeps their threads clean, docs/privacy.md).
#: "erased": its author's account was erased (docs/accounts.md#erasure); the
#: author is gone from it too, so it names no one and replies keep their place.
DeletedBy = Literal["author", "moderator", "post_author", "erased"]
DELETED_BY: tuple[str, ...] = ("author", "moderator", "post_author", "erased")
#: What an erased comment holds instead of its author and text.
ERASED = {"author": {"id": "", "name": ""}, "text": "", "deleted_by": "erased"}
#: What others see of a suspended author's comment (threads and feed cards).
HIDDEN_TEXT = "[hidden: the author's account is suspended]"
#: What a viewer sees of a comment by someone they blocked (docs/privacy.md:
#: blocks hide in both directions). Neutral: it names nobody.
BLOCKED_TEXT = "[hidden: you blocked its author]"
#: What a soft-deleted comment shows instead of its text.
TOMBSTONES = {
    "author": "[deleted]",
    "moderator": "[removed by a moderator]",
    "post_author": "[removed by the author]",
    "erased": "[deleted]",  # under a "[deleted account]" author
}


class CommentError(Exception):
    """Base class of the errors a store raises."""


class UnknownParent(CommentError, LookupError):
    """A reply names a parent slug that the discussion does not hold."""

    def __init__(self, discussion_id: ObjectId, parent_slug: str) -> None:
        super().__init__(f"discussion {discussion_id} has no comment {parent_slug!r} to reply to")
        self.discussion_id = discussion_id
        self.parent_slug = parent_slug


class DiscussionNotFound(CommentError, LookupError):
    """The post to comment on does not exist (embedded and buckets check)."""


class ThreadingUnsupported(CommentError):
    """The store keeps comments chronologically only (buckets): the view shows
    a notice and offers the chronological orders instead."""


class RankingUnsupported(CommentError):
    """The store keeps comments in arrays (embedded, buckets): no index ranks
    them by votes, so it offers no `best` or `top` order."""


class DiscussionFull(CommentError):
    """The discussion cannot take this comment (or edit) without passing the
    store's size budget (`embedded`: COMMENTS_EMBEDDED_MAX_BYTES)."""


class ReplyTooDeep(CommentError):
    """A reply below the deepest level the store keeps (`max_stored_depth`)."""

    def __init__(self, depth: int, limit: int):
        super().__init__(f"a reply at depth {depth} is deeper than the {limit} this store keeps")
        self.depth = depth
        self.limit = limit


class InvalidCursor(CommentError, ValueError):
    """A cursor that this store and order did not produce (or a forged one)."""


@dataclass(frozen=True, slots=True)
class Comment:
    id: str
    discussion_id: ObjectId
    slug: str
    full_slug: str
    depth: int  # top level is 0; stored without limit, see display_depth
    posted: datetime
    author: dict  # {"id": handle, "name": display name}
    text: str  # "" once soft-deleted
    edited: datetime | None = None
    deleted_by: str | None = None  # one of DELETED_BY, or None
    ups: int = 0  # votes (comments/votes.py), counted on the comment
    downs: int = 0
    replies: int = 0  # direct replies, where the store counts them (documents)

    @property
    def score(self) -> int:
        return ranking.score(self.ups, self.downs)

    @property
    def collapsed(self) -> bool:
        """Voted down far enough to be shown folded (ranking.COLLAPSE_AT)."""
        return self.score <= ranking.COLLAPSE_AT

    @property
    def parent_slug(self) -> str | None:
        return self.slug.rpartition("/")[0] or None

    @property
    def deleted(self) -> bool:
        return self.deleted_by is not None

    @property
    def display_text(self) -> str:
        """The text a page shows once soft-deleted: a TOMBSTONES placeholder."""
        return TOMBSTONES.get(self.deleted_by, self.text) if self.deleted_by else self.text

    @property
    def display_depth(self) -> int:
        """Indentation for the page: replies deeper than COMMENTS_MAX_DEPTH
        are stored (and linkable) but indented no further."""
        return min(self.depth, settings.COMMENTS_MAX_DEPTH)

    @classmethod
    def from_dict(cls, doc: dict, discussion_id: ObjectId) -> "Comment":
        """From a stored comment: a `comments` document or an array element."""
        author = doc.get("author") or {}
        return cls(
            id=str(doc["_id"]),
            discussion_id=discussion_id,
            slug=doc["slug"],
            full_slug=doc["full_slug"],
            depth=doc.get("depth", doc["slug"].count("/")),
            posted=aware(doc["posted"]),
            author={"id": author.get("id"), "name": author.get("name")},
            text=doc.get("text") or "",
            edited=aware(doc.get("edited")),
            deleted_by=doc.get("deleted_by"),
            ups=doc.get("ups") or 0,
            downs=doc.get("downs") or 0,
            replies=doc.get("replies") or 0,
        )


@dataclass(slots=True)
class CommentPage:
    """One page in display order. `next` continues it (pass as `after=`),
    `prev` goes back (pass as `before=`); None when there is nothing there."""

    comments: list[Comment]
    order: str
    next: str | None = None
    prev: str | None = None

    def __iter__(self) -> Iterator[Comment]:
        return iter(self.comments)

    def __len__(self) -> int:
        return len(self.comments)


class CommentStore(ABC):
    name: str
    #: False for `buckets`: page(order="threaded") raises ThreadingUnsupported.
    threaded: bool = True
    #: The orders `page` serves from an index, its default first. A store
    #: offers `best` and `top` only where an index ranks the comments.
    orders: tuple[str, ...] = ("threaded", "oldest", "newest")

    @property
    def max_stored_depth(self) -> int:
        """The deepest reply `post` stores (top level is 0); deeper raises ReplyTooDeep."""
        return settings.COMMENTS_MAX_STORED_DEPTH

    def check_reply_depth(self, parent_slug: str) -> None:
        """Refuse a reply to `parent_slug` (a well-formed slug path) before
        any read: its depth is the parent's number of parts."""
        depth = parent_slug.count("/") + 1
        if depth > self.max_stored_depth:
            raise ReplyTooDeep(depth, self.max_stored_depth)

    @abstractmethod
    def post(
        self,
        discussion_id: ObjectId,
        *,
        author: dict,
        text: str,
        parent_slug: str | None = None,
        posted: datetime | None = None,
    ) -> Comment:
        """Store a comment (a reply when `parent_slug` is given).

        Raises UnknownParent for a parent the discussion does not hold,
        ReplyTooDeep past `max_stored_depth`, DiscussionFull past the store's
        size budget.
        """

    @abstractmethod
    def page(
        self,
        discussion_id: ObjectId,
        *,
        order: str = "threaded",
        after: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> CommentPage:
        """A page of the discussion in `order` (limit: COMMENTS_PAGE_SIZE).

        Raises InvalidCursor for a bad cursor and ThreadingUnsupported when
        the store cannot thread.
        """

    @abstractmethod
    def get(self, discussion_id: ObjectId, slug: str) -> Comment | None:
        """One comment by its slug path, or None."""

    @abstractmethod
    def subtree(
        self,
        discussion_id: ObjectId,
        slug: str,
        *,
        after: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> CommentPage | None:
        """The comment and all its descendants, in threaded order; None when
        the slug is unknown."""

    @abstractmethod
    def count(self, discussion_id: ObjectId) -> int:
        """Comments in the discussion, soft-deleted ones included."""

    @abstractmethod
    def edit(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        """Replace the text and mark the comment edited. False when there is
        no such comment or it is deleted."""

    @abstractmethod
    def soft_delete(self, discussion_id: ObjectId, slug: str, *, by: str) -> bool:
        """Blank the text and record who deleted it; replies stay. False when
        there is no such comment or it is deleted already."""

    @abstractmethod
    def restore(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        """Undo a moderator's soft delete, putting back `text` (the audit log
        kept it). The write itself matches only `deleted_by == "moderator"`,
        so a comment its author deleted since (even after an earlier restore)
        stays deleted, whatever races. False when nothing was restored."""

    @abstractmethod
    def last(self, discussion_id: ObjectId, n: int) -> list[Comment]:
        """The newest `n` comments, oldest of them first (a feed card's
        `comments_shown`)."""

    @abstractmethod
    def authored(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        """(discussion_id, slug) of up to `limit` comments `handle` wrote
        that still name them (erasure), read on an author index."""

    @abstractmethod
    def mentioning(self, handle: str, limit: int) -> list[tuple[ObjectId, str]]:
        """(discussion_id, slug) of up to `limit` comments whose text
        mentions `handle`, read on a `mentions` index (erasure)."""

    @abstractmethod
    def rewrite(self, discussion_id: ObjectId, slug: str, *, text: str) -> bool:
        """Set the comment's text, whatever its state, unmarked as an edit:
        the erasure of someone it mentions."""

    @abstractmethod
    def erase_author(self, discussion_id: ObjectId, slug: str) -> bool:
        """Make the comment an ERASED placeholder, whatever its state."""

    @abstractmethod
    def tally(
        self,
        discussion_id: ObjectId,
        slug: str,
        *,
        ups: int,
        downs: int,
        expect: tuple[int, int] | None = None,
    ) -> bool:
        """Add `ups` and `downs` (a vote's change: -1, 0 or 1 each; a
        recount's difference) to the comment's vote counts in one atomic
        write (comments/votes.py), whatever its state. With `expect`, only
        if the counts are still those (ups, downs): a recount's write that a
        vote's count overtook misses. False when the store does not hold the
        comment, or `expect` did not hold."""

    @abstractmethod
    def delete_discussion(self, discussion_id: ObjectId) -> None:
        """Drop every comment of the discussion (the post is being deleted)."""

    def delete_discussions(self, discussion_ids: list[ObjectId]) -> None:
        """`delete_discussion` for many (deleted posts): a store may do it in one write."""
        for discussion_id in discussion_ids:
            self.delete_discussion(discussion_id)

    # --- copies from another store (comments/stores/shadows.py) -------------

    @abstractmethod
    def put(self, discussion_id: ObjectId, comment: dict) -> bool:
        """Store a comment another store holds (`stored_form`: same id,
        slugs and time) if this store does not hold it yet: a shadow write,
        idempotent. False when it was there already. Its parent must be here."""

    @abstractmethod
    def replace_thread(self, discussion_id: ObjectId, comments: list[dict]) -> None:
        """Make the discussion hold exactly `comments` (stored forms, oldest
        first by (posted, id)): `convert_comments`, a few writes per thread."""


def stored_form(comment: Comment) -> dict:
    """What the stores keep of a comment (`slugs.new_comment`'s shape), to
    copy it into another store under the same id and slugs."""
    return {
        "_id": ObjectId(comment.id),
        "slug": comment.slug,
        "full_slug": comment.full_slug,
        "depth": comment.depth,
        "posted": comment.posted,
        "author": {"id": comment.author.get("id"), "name": comment.author.get("name")},
        "text": comment.text,
        "mentions": mentioned(comment.text),
        "edited": comment.edited,
        "deleted_by": comment.deleted_by,
        "ups": comment.ups,
        "downs": comment.downs,
    }


def parent_of(slug: str) -> str | None:
    return slug.rpartition("/")[0] or None


def page_size(limit: int | None) -> int:
    limit = settings.COMMENTS_PAGE_SIZE if limit is None else limit
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive int, not {limit!r}")
    return limit


def check_order(order: str, offered: tuple[str, ...] = ORDERS) -> str:
    """`order`, if it is an order at all (ValueError) that ranks only where
    the store's index can (RankingUnsupported)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    if order in RANKED and order not in offered:
        raise RankingUnsupported(f"this store keeps no index to rank comments by {order!r}")
    return order


def check_deleted_by(by: str) -> str:
    if by not in DELETED_BY:
        raise ValueError(f"by must be one of {', '.join(DELETED_BY)}, not {by!r}")
    return by
