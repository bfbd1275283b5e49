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
  document takes 1 away.

Every landed insert adds exactly 1 and every landed delete takes exactly 1
away, so the count equals the marks whatever order the `$inc`s land in. It
may dip below 0 for a moment (a like and its unlike racing: the unlike's -1
first): pages and answers show at least 0, and the arithmetic comes out
right once both land. (A floor on the `$inc`, `$gt: 0`, would skip that -1
and leave a permanent +1.) A request that changed nothing answers with the
marks counted on the (post, by) index, never with a count read before a
racing request's write landed.

A request that may change a count first puts a token on the post
(`counting`, an ObjectId, so it carries its time) in the read it needs
anyway, and takes it off with its `$inc`: a token older than
FEED_PENDING_SECONDS belongs to a process that died between its two writes,
and the sweeper (`counts_settle`, run by `redeliver_pending`) recounts that
post from its marks (docs/operations.md#sweepers-run-by-themselves).

The `$inc`s carry the post's liveness (a kind's `live_on_add` and
`live_on_remove`): a post a moderator removed is frozen (docs/architecture.md,
visibility rules). A removal landing between the two writes makes the `$inc`
miss, and the caller undoes its mark. Each `$inc` also steps `counts_v`, the
version of the post's counts that the embedded copies are refreshed to
(timelines/delivery/upkeep.py `refresh_counts`, a task).

What differs per kind (who may mark what, the repost's delivery, what the
messages say) stays in feeds/services/likes.py and feeds/services/reposts.py.
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bson import ObjectId
from django.conf import settings
from django.dispatch import Signal
from mongoengine import Document, NotUniqueError
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError, PyMongoError

from feeds.documents import COUNTING, Post
from profiles import selectors as people
from profiles.documents import User
from socialsite import events
from socialsite.clock import now

log = logging.getLogger(__name__)


class InteractionError(Exception):
    """A mark we refuse; the message can be shown to the user."""


@dataclass(frozen=True)
class Mark:
    """Where one person's mark on a post stands after a call."""

    on: bool  # the person's mark is on the post now
    count: int  # the post's count, as the last write left it
    changed: bool  # this call made the change (False: it was so already)


@dataclass
class Turn:
    """One request's turn at a post's count: its token, and the post as the
    token's write found it (None: no such post)."""

    post_id: ObjectId
    token: ObjectId = field(default_factory=ObjectId)
    post: dict | None = None
    marked: bool = False  # this request's mark landed or went: the count must follow
    done: bool = False  # the token is off the post again


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

    @contextmanager
    def turn(self, post_id: ObjectId, projection: dict) -> Iterator[Turn]:
        """Read the post (`projection`) while putting this request's token on
        it, in one write. `count` takes it off; so does leaving the block
        when the mark did not change (a refusal, nothing to do). A failure
        between the mark and its `$inc` (an error, a dead process) leaves it,
        and the sweeper recounts the post."""
        turn = Turn(post_id)
        turn.post = Post._get_collection().find_one_and_update(
            {"_id": post_id}, {"$push": {COUNTING: turn.token}}, projection=projection
        )
        failed = False
        try:
            yield turn
        except BaseException:
            failed = True
            raise
        finally:
            if turn.post is not None and not turn.done and not (failed and turn.marked):
                try:
                    Post._get_collection().update_one(
                        {"_id": post_id}, {"$pull": {COUNTING: turn.token}}
                    )
                except PyMongoError:  # the sweeper takes it off, after a recount
                    log.warning("count token left on post %s", post_id, exc_info=True)

    def refuse_across_blocks(self, user: User, author: str, known: User | None = None) -> None:
        """The author's blocks apply, both ways: the marker's own list is on
        their document; the author's is on `known` when the caller read the
        author's document already (with the session), else one point read."""
        if user.handle == author:
            return
        if author in user.blocked:
            raise self.error(f"You blocked @{author}. Unblock them to {self.verb} their posts.")
        if known is not None and known.handle == author:
            blocked_by_author = user.handle in (known.blocked or [])
        else:
            blocked_by_author = people.blocks(author, user.handle)
        if blocked_by_author:
            raise self.error(f"You can't {self.verb} @{author}'s posts.")

    def insert(self, post_id: ObjectId, handle: str, **fields: Any) -> bool:
        """Put the mark down; False when it was there already (E11000 on the
        unique (post, by) index, however the driver or MongoEngine names it)."""
        try:
            self.collection().insert_one({"post": post_id, "by": handle, "ts": now(), **fields})
        except (DuplicateKeyError, NotUniqueError):
            return False
        return True

    def take_back(self, post_id: ObjectId, handle: str, **more: Any) -> bool:
        """Remove the mark; False when there was none (to remove)."""
        mine = {"post": post_id, "by": handle, **more}
        return self.collection().delete_one(mine).deleted_count > 0

    def put(self, turn: Turn, handle: str, **fields: Any) -> bool:
        """`insert`, within a turn: once it lands, the count must follow."""
        turn.marked = self.insert(turn.post_id, handle, **fields)
        return turn.marked

    def remove(self, turn: Turn, handle: str, **more: Any) -> bool:
        """`take_back`, within a turn: once it lands, the count must follow."""
        turn.marked = self.take_back(turn.post_id, handle, **more)
        return turn.marked

    def tally(self, post_id: ObjectId) -> int:
        """The post's marks, counted on the (post, by) index: what a request
        that changed nothing answers."""
        return self.collection().count_documents({"post": post_id})

    def count(self, turn: Turn, delta: int) -> int | None:
        """Apply `delta` to the count of a post that is still live, and take
        the turn's token off; the new count (at least 0), or None when the
        post changed meanwhile (deleted, removed).

        No floor on the `$inc`: see the module's docstring."""
        condition: dict = {"_id": turn.post_id}
        condition.update(self.live_on_add if delta > 0 else self.live_on_remove)
        after = Post._get_collection().find_one_and_update(
            condition,
            {"$inc": {self.counter: delta, "counts_v": 1}, "$pull": {COUNTING: turn.token}},
            projection={self.counter: 1, "_id": 0},
            return_document=ReturnDocument.AFTER,
        )
        if after is None:
            return None
        turn.done = True
        return max(after.get(self.counter) or 0, 0)

    def changed(self, post_id: ObjectId, *, on: bool, count: int) -> S:
        """After a mark landed or went: embedded copies get the new count, in
        a task (timelines/delivery/upkeep.py `refresh_counts`)."""
        events.post_counts_changed.send(sender=Post, post_id=post_id)
        return self.state(on=on, count=count, changed=True)

    def unchanged(self, post_id: ObjectId, *, on: bool) -> S:
        """Nothing to do (marked already, or not marked): the marks as they are."""
        return self.state(on=on, count=self.tally(post_id), changed=False)

    def announce(
        self, *, post_id: ObjectId, author: str, actor: str, user: User | None = None
    ) -> None:
        """`user`: the actor's document, when the request has it (federation
        reads their count of remote followers there instead of the edges)."""
        # Receivers (notifications) swallow their own failures; this guard
        # keeps the mark standing even if that contract is ever broken.
        try:
            self.marked.send(
                sender=self.document, post_id=post_id, author=author, actor=actor, user=user
            )
        except Exception:
            log.exception("%s_notification_failed", self.verb)

    def delete_for(self, post_id: ObjectId) -> None:
        """Forget a deleted post's marks."""
        self.collection().delete_many({"post": post_id})


def _cutoff(older_than_seconds: int | None) -> ObjectId:
    """The smallest token that is not old yet. A token's time is to the
    second, so the cutoff is rounded up: 0 takes every token made so far."""
    seconds = settings.FEED_PENDING_SECONDS if older_than_seconds is None else older_than_seconds
    return ObjectId.from_datetime(now() - timedelta(seconds=seconds - 1))


def counts_settle(
    post_id: ObjectId, kinds: list[Interaction], *, older_than_seconds: int | None = None
) -> dict[str, int] | None:
    """Set the post's counts of `kinds` to their marks and take off the tokens
    older than `older_than_seconds` (default FEED_PENDING_SECONDS): what a
    request that died between its two writes left. Returns the counts, or
    None when the post is gone or a request is at it (a younger token): the
    next sweep settles it.

    Safe beside live requests: the write lands only if no younger token came
    and the counts are still those read before the marks were counted, so a
    request whose `$inc` lands meanwhile makes this one miss, and one that
    starts after it changes marks after they were counted."""
    cutoff = _cutoff(older_than_seconds)
    posts = Post._get_collection()
    fields = {COUNTING: 1, **{kind.counter: 1 for kind in kinds}}
    row = posts.find_one({"_id": post_id}, fields)
    if row is None or any(token >= cutoff for token in row.get(COUNTING) or []):
        return None
    counts = {kind.counter: kind.tally(post_id) for kind in kinds}
    stale = bool(row.get(COUNTING))
    drifted = any(row.get(name) != value for name, value in counts.items())
    if not (stale or drifted):
        return counts
    update: dict = {"$pull": {COUNTING: {"$lt": cutoff}}}
    if drifted:
        update.update({"$set": counts, "$inc": {"counts_v": 1}})
    guard = {"_id": post_id, COUNTING: {"$not": {"$gte": cutoff}}}
    guard.update({name: row.get(name) for name in counts})
    if not posts.update_one(guard, update).matched_count:
        return None
    if drifted:
        events.post_counts_changed.send(sender=Post, post_id=post_id)
    return counts


def counts_sweep(kinds: list[Interaction], *, older_than_seconds: int | None = None) -> int:
    """The sweeper: settle every post that holds a token older than
    `older_than_seconds`, found on the `counting` index. Returns how many."""
    rows = Post._get_collection().find(
        {COUNTING: {"$lt": _cutoff(older_than_seconds)}}, {"_id": 1}
    )
    settled = [
        counts_settle(row["_id"], kinds, older_than_seconds=older_than_seconds)
        for row in list(rows)
    ]
    return sum(result is not None for result in settled)
