"""A person's mark on a post: a like or a repost (as Takahe's PostInteraction).

Each mark is a document of its own collection (`post_like`, `post_repost`),
unique on (post, by); its count lives on the post (`likes_count`,
`reposts_count`), so showing it costs nothing beyond loading the post. The
two are kept in step without transactions, with the unique index as the
arbiter:

- marking: insert the mark first. Only the request whose insert lands (no
  E11000) adds 1, so racing marks by one person count once and racing marks
  by many count each.
- taking it back: delete it. Only the request whose delete removed a
  document takes 1 away, so the count never goes below the marks.

The `$inc`s carry the post's liveness (a kind's `live_on_add` and
`live_on_remove`): a post a moderator removed is frozen (docs/architecture.md,
visibility rules). A removal landing between the two writes makes the `$inc`
miss, and the caller undoes its mark. Should a process die between the two
writes, `recount` rebuilds the count from the marks.

What differs per kind (who may mark what, the repost's delivery, what the
messages say) stays in feeds/services/likes.py and feeds/services/reposts.py.
"""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bson import ObjectId
from django.dispatch import Signal
from mongoengine import Document
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from feeds import tasks
from feeds.documents import Post
from profiles import selectors as people
from profiles.documents import User
from socialsite.clock import now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

log = logging.getLogger(__name__)


class InteractionError(Exception):
    """A mark we refuse; the message can be shown to the user."""


@dataclass(frozen=True)
class Mark:
    """Where one person's mark on a post stands after a call."""

    on: bool  # the person's mark is on the post now
    count: int  # the post's count, as the last write left it
    changed: bool  # this call made the change (False: it was so already)


class Interaction[S: Mark]:
    """The mechanics one kind of mark shares with the others."""

    def __init__(
        self,
        *,
        document: type[Document],
        counter: str,
        verb: str,
        error: type[InteractionError],
        state: type[S],
        live_on_add: dict,
        live_on_remove: dict,
        marked: Signal,
    ) -> None:
        self.document = document
        self.counter = counter  # the post's field that counts the marks
        self.verb = verb  # "like", "repost": what the refusals say
        self.error = error
        self.state = state
        self.live_on_add = live_on_add
        self.live_on_remove = live_on_remove
        self.marked = marked  # announced when a mark lands (socialsite/events.py)

    def collection(self) -> Collection:
        return self.document._get_collection()

    def refuse_across_blocks(self, user: User, author: str) -> None:
        """The author's blocks apply, both ways: one point read of the author's
        document; the marker's own list is on theirs."""
        if user.handle == author:
            return
        if author in user.blocked:
            raise self.error(f"You blocked @{author}. Unblock them to {self.verb} their posts.")
        if people.blocks(author, user.handle):
            raise self.error(f"You can't {self.verb} @{author}'s posts.")

    def insert(self, post_id: ObjectId, handle: str, **fields: Any) -> bool:
        """Put the mark down; False when it was there already."""
        try:
            self.collection().insert_one({"post": post_id, "by": handle, "ts": now(), **fields})
        except DuplicateKeyError:
            return False
        return True

    def take_back(self, post_id: ObjectId, handle: str, **more: Any) -> bool:
        """Remove the mark; False when there was none (to remove)."""
        mine = {"post": post_id, "by": handle, **more}
        return self.collection().delete_one(mine).deleted_count > 0

    def count(self, post_id: ObjectId, delta: int) -> int | None:
        """Apply `delta` to the count of a post that is still live; its new
        count, or None when the post changed meanwhile (deleted, removed)."""
        condition: dict = {"_id": post_id}
        if delta > 0:
            condition.update(self.live_on_add)
        else:
            condition.update(self.live_on_remove)
            condition[self.counter] = {"$gt": 0}
        after = Post._get_collection().find_one_and_update(
            condition,
            {"$inc": {self.counter: delta}},
            projection={self.counter: 1, "_id": 0},
            return_document=ReturnDocument.AFTER,
        )
        return None if after is None else after[self.counter]

    def changed(self, post_id: ObjectId, *, on: bool, count: int) -> S:
        """After a mark landed or went: embedded copies get the new count."""
        tasks.refresh_copies.enqueue(str(post_id), [self.counter])
        return self.state(on=on, count=count, changed=True)

    def announce(self, *, post_id: ObjectId, author: str, actor: str) -> None:
        # Receivers (notifications) swallow their own failures; this guard
        # keeps the mark standing even if that contract is ever broken.
        try:
            self.marked.send(sender=self.document, post_id=post_id, author=author, actor=actor)
        except Exception:
            log.exception("%s_notification_failed", self.verb)

    def marked_by(
        self, viewer: "User | AnonymousVisitor", post_ids: Iterable[ObjectId]
    ) -> set[str]:
        """Which of a page's posts the viewer marked (their ids as strings), in
        one query on the (post, by) index; none for a signed-out viewer."""
        ids = sorted({pid for pid in post_ids if isinstance(pid, ObjectId)})
        if not ids or not getattr(viewer, "is_authenticated", False):
            return set()
        rows = self.collection().find(
            {"post": {"$in": ids}, "by": viewer.handle}, {"post": 1, "_id": 0}
        )
        return {str(row["post"]) for row in rows}

    def delete_for(self, post_id: ObjectId) -> None:
        """Forget a deleted post's marks."""
        self.collection().delete_many({"post": post_id})

    def recount(self, post_id: ObjectId) -> int:
        """Set the post's count to its marks (repair tool); returns it."""
        count = self.collection().count_documents({"post": post_id})
        Post._get_collection().update_one({"_id": post_id}, {"$set": {self.counter: count}})
        return count
