"""Comment votes: up or down, one per person per comment
(docs/discovery.md#comment-votes-and-ranked-orders).

Each vote is a `comment_vote` document, unique on (discussion, slug, voter);
its counts live on the comment in every store (`ups`, `downs`; the documents
store also keeps the `score` and `best` it ranks by, comments/ranking.py),
so a thread page shows them with no read of its own. The two are kept in
step without transactions:

- the vote's write changes it only if it differs (`dir: {$ne: value}`) and
  returns what it was, so each request knows the change it made. Racing
  votes by one person land one at a time on the unique document: twenty
  "up"s in parallel find it up already but for the first, and count once.
- the comment's counts then take that change by `$inc` (`CommentStore.tally`),
  so racing changes all add up, in any order.

A vote's write leaves a token on it (`pending`, an ObjectId, so it carries
its time) that comes off once the counts followed. A token older than
FEED_PENDING_SECONDS belongs to a process that died in between: the sweeper
(`votes_settle`, on `redeliver_pending`'s round) counts that comment again
from its votes. Taking a vote back first marks it `dir: 0` with a token, and
deletes it once counted, for the same reason.
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bson import ObjectId
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from comments import services
from comments.documents import CommentVote
from comments.stores import shadows
from profiles.documents import User
from socialsite.clock import now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

#: What the form's `dir` says, as stored.
DIRECTIONS = {"up": 1, "down": -1, "none": 0}
NAMES = {1: "up", -1: "down"}


class UnknownComment(LookupError):
    """No comment has this slug under the post: the route answers 404
    (docs/discovery.md#comment-votes-and-ranked-orders), unlike a deleted
    one, which exists and is refused."""


@dataclass(frozen=True)
class VoteState:
    """Where one person's vote on a comment stands after a call."""

    value: int  # 1, -1, or 0 (no vote)
    changed: bool  # this call changed it (False: it was so already)


def _votes() -> Collection:
    return CommentVote._get_collection()


def comment_vote(*, post: dict, slug: str, voter: User, direction: str) -> VoteState:
    """`voter` votes `direction` ("up", "down", "none": take it back) on
    the comment `slug` of `post`, a post they may see (the caller checked).

    UnknownComment if no comment has that slug. Refused (CommentRefused) on
    a removed post, a deleted comment, one's own comment, and across a block
    with the post's or the comment's author."""
    value = DIRECTIONS[direction]
    post_id = post["_id"]
    # One read, before any refusal: an unknown slug is told apart from a
    # deleted comment (`services.alive` calls both "gone", a refusal that
    # answers 302 as if the comment were there) and is a 404 in every store,
    # with nothing written (docs/discovery.md#comment-votes-and-ranked-orders).
    comment = shadows.primary().get(post_id, slug)
    if comment is None:
        raise UnknownComment(slug)
    services.refuse_if_frozen(post)
    if comment.deleted:
        raise services.CommentRefused("That comment is gone.")
    author = comment.author.get("id")
    if author == voter.handle:
        raise services.CommentRefused("That's your own comment: others vote on it.")
    services.refuse_across_blocks(
        voter, owner=post["by"]["id"], replying_to=author or None, action="vote"
    )
    token = ObjectId()
    before = _record(post_id, slug, voter.handle, value, token)
    if before == value:
        return VoteState(value=value, changed=False)
    _count(post_id, slug, ups=(value == 1) - (before == 1), downs=(value == -1) - (before == -1))
    _settled(post_id, slug, voter.handle, value, token)
    return VoteState(value=value, changed=True)


def _record(post_id: ObjectId, slug: str, voter: str, value: int, token: ObjectId) -> int:
    """Make the vote `value` if it is not, in one write; what it was before."""
    key = {"discussion_id": post_id, "slug": slug, "voter": voter}
    for _ in range(2):
        try:
            was = _votes().find_one_and_update(
                {**key, "dir": {"$ne": value}},
                {"$set": {"dir": value, "ts": now(), "pending": token}},
                projection={"dir": 1},
                upsert=value != 0,  # taking back a vote never creates one
                return_document=ReturnDocument.BEFORE,
            )
        except DuplicateKeyError:
            # The upsert found no vote to change and tried to insert one:
            # either a racing first vote inserted it meanwhile (the retry
            # changes it), or the vote is `value` already.
            continue
        return was["dir"] if was else 0
    return value  # the vote is `value` already: no change


def _count(post_id: ObjectId, slug: str, *, ups: int, downs: int) -> None:
    """The change, on the comment in the store of record and its shadows."""
    shadows.primary().tally(post_id, slug, ups=ups, downs=downs)
    shadows.replay("tally", post_id, slug, ups=ups, downs=downs)


def _settled(post_id: ObjectId, slug: str, voter: str, value: int, token: ObjectId) -> None:
    """The counts followed: the token comes off (a taken-back vote goes),
    unless a later change of the same vote holds the document already."""
    key = {"discussion_id": post_id, "slug": slug, "voter": voter, "pending": token}
    if value == 0:
        _votes().delete_one(key)
    else:
        _votes().update_one(key, {"$unset": {"pending": ""}})


# --- reads ------------------------------------------------------------------


def votes_of(
    viewer: "User | AnonymousVisitor | None", post_id: ObjectId, slugs_shown: Iterable[str]
) -> dict[str, int]:
    """The viewer's votes on the comments shown ({slug: 1 or -1}): one read
    on the (discussion, slug, voter) index, none for an anonymous visitor
    or an empty page."""
    wanted = sorted(set(slugs_shown))
    if not wanted or viewer is None or not viewer.is_authenticated:
        return {}
    rows = _votes().find(
        {"discussion_id": post_id, "slug": {"$in": wanted}, "voter": viewer.handle},
        {"slug": 1, "dir": 1, "_id": 0},
    )
    return {row["slug"]: row["dir"] for row in rows if row["dir"]}


def votes_export(handle: str) -> Iterator[dict]:
    """The person's comment votes, newest first (docs/accounts.md#export)."""
    rows = _votes().find({"voter": handle, "dir": {"$ne": 0}}).sort("ts", -1)
    for row in rows:
        yield {
            "post": row["discussion_id"],
            "slug": row["slug"],
            "vote": NAMES[row["dir"]],
            "ts": row["ts"],
        }


# --- upkeep -------------------------------------------------------------------


def votes_erase(handle: str, limit: int) -> int:
    """Erasure (docs/accounts.md#erasure): take back up to `limit` of the
    person's votes, as their own "none" would, so the counts follow.
    Returns how many."""
    rows = list(_votes().find({"voter": handle}, {"discussion_id": 1, "slug": 1}).limit(limit))
    for row in rows:
        post_id, slug = row["discussion_id"], row["slug"]
        token = ObjectId()
        before = _record(post_id, slug, handle, 0, token)
        if before:
            _count(post_id, slug, ups=-(before == 1), downs=-(before == -1))
        _votes().delete_one({"discussion_id": post_id, "slug": slug, "voter": handle})
    return len(rows)


def votes_seed(post_id: ObjectId, ballots: dict[str, list[tuple[str, int]]], ts: datetime) -> int:
    """The demo's votes on one discussion ({slug: [(voter, 1 or -1)]}): one
    insert for all of them, then each comment's counts in the store of
    record (the demo copies its threads into the shadows afterwards)."""
    rows = [
        {"discussion_id": post_id, "slug": slug, "voter": voter, "dir": value, "ts": ts}
        for slug, cast in ballots.items()
        for voter, value in cast
    ]
    if not rows:
        return 0
    _votes().insert_many(rows, ordered=False)
    store = shadows.primary()
    for slug, cast in ballots.items():
        ups = sum(1 for _, value in cast if value == 1)
        store.tally(post_id, slug, ups=ups, downs=len(cast) - ups)
    return len(rows)


def discussions_forget(post_ids: list[ObjectId]) -> None:
    """Deleted posts' votes go with their discussions."""
    if post_ids:
        _votes().delete_many({"discussion_id": {"$in": list(post_ids)}})


def votes_settle(*, older_than_seconds: int | None = None) -> int:
    """Count again, from their votes, the comments whose votes carry a token
    older than `older_than_seconds` (default FEED_PENDING_SECONDS): a
    process died between a vote and its count. Returns how many comments.

    Safe beside votes in flight, as the likes' sweeper is
    (feeds/services/interactions.py `counts_settle`): per comment and store,
    the counts are read first, the votes counted next, then a comment with a
    younger token (a vote whose count may not have landed) is left for the
    next sweep, and the write is conditional on the counts read. A vote
    counted here whose `$inc` lands before the write makes the write miss;
    one recorded after the votes were counted adds its own `$inc` to the
    recount's result."""
    seconds = settings.FEED_PENDING_SECONDS if older_than_seconds is None else older_than_seconds
    cutoff = ObjectId.from_datetime(now() - timedelta(seconds=seconds))
    rows = list(
        _votes().find(
            {"pending": {"$lt": cutoff}}, {"discussion_id": 1, "slug": 1, "voter": 1, "pending": 1}
        )
    )
    comments = sorted({(row["discussion_id"], row["slug"]) for row in rows})
    settled = set()
    for post_id, slug in comments:
        if _recount(post_id, slug, cutoff):
            settled.add((post_id, slug))
    for row in rows:
        if (row["discussion_id"], row["slug"]) not in settled:
            continue
        # The whole shard key (docs/performance.md), and the token seen: a
        # vote changed since keeps its newer token.
        key = {field: row[field] for field in ("discussion_id", "slug", "voter", "pending")}
        _votes().delete_one({**key, "dir": 0})
        _votes().update_one(key, {"$unset": {"pending": ""}})
    return len(settled)


def _recount(post_id: ObjectId, slug: str, cutoff: ObjectId) -> bool:
    """Set the comment's counts in every store to its votes, unless a vote
    is in flight; False when it is left for the next sweep."""
    stores = [
        (store, comment)
        for store in shadows.write_stores()
        if (comment := store.get(post_id, slug)) is not None
    ]
    counted = _counted(post_id, slug)
    in_flight = {"discussion_id": post_id, "slug": slug, "pending": {"$gte": cutoff}}
    if _votes().find_one(in_flight, {"_id": 1}) is not None:
        return False
    done = True
    for store, comment in stores:
        ups, downs = counted.get(1, 0) - comment.ups, counted.get(-1, 0) - comment.downs
        if (ups or downs) and not store.tally(
            post_id, slug, ups=ups, downs=downs, expect=(comment.ups, comment.downs)
        ):
            done = False  # a vote's count landed meanwhile: the next sweep
    return done


def _counted(post_id: ObjectId, slug: str) -> dict[int, int]:
    """{1: ups, -1: downs} of one comment, counted on the unique index."""
    rows = _votes().aggregate(
        [
            {"$match": {"discussion_id": post_id, "slug": slug, "dir": {"$ne": 0}}},
            {"$group": {"_id": "$dir", "n": {"$sum": 1}}},
        ]
    )
    return {row["_id"]: row["n"] for row in rows}


def is_direction(value: object) -> bool:
    return isinstance(value, str) and value in DIRECTIONS
