"""Poll votes: one per (poll, voter), changeable, counted atomically.

The vote itself is a `PollVote` document (unique on post+voter); the counts
live on the post, in `detail.votes` (parallel to `detail.options`), so showing
results costs nothing beyond loading the post. The two are kept in step
without transactions:

1. `find_one_and_update` (upsert) on the vote, returning the document as it
   was *before*. The server applies it atomically, so concurrent changes by
   one voter form a chain of transitions (none -> 0, 0 -> 2, 2 -> 1...) and
   each request learns exactly the transition it made.
2. One `$inc` on the post applies that transition: +1 for the new option and
   -1 for the previous one in the same update. Summed over the chain the
   counts equal the votes, whatever the interleaving.

Should a process die between the two steps, `poll_recount` rebuilds the
counts from the votes.

Callers check that the voter may see the post (docs/privacy.md) before voting;
`poll_vote` itself refuses removed posts and votes across a block.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bson import ObjectId
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from feeds.documents import PollVote, Post
from profiles import selectors as people
from socialsite.clock import now

MIN_OPTIONS = 2
MAX_OPTIONS = 6


class PollError(ValueError):
    """A vote we refuse; the message can be shown to the user."""


REMOVED = "This post was removed by a moderator: its poll is closed."


def poll_vote(*, post_id: ObjectId, voter: str, option: int) -> None:
    """Record `voter`'s choice of `option` (an index into the options).

    Refused on a post a moderator removed (removed means frozen, docs/privacy.md; the count's
    `$inc` carries the condition, so a removal racing this
    vote leaves the counts unchanged and the vote undone) and across a block
    in either direction (one read by `_id`).
    """
    post = Post._get_collection().find_one(
        {"_id": post_id}, {"type": 1, "detail.options": 1, "by.id": 1, "removed": 1}
    )
    if post is None or post.get("type") != "poll":
        raise PollError("This post is not a poll.")
    if post.get("removed") is not None:
        raise PollError(REMOVED)
    options = (post.get("detail") or {}).get("options") or []
    if isinstance(option, bool) or not isinstance(option, int):
        raise PollError("Choose one of the poll's options.")
    if not 0 <= option < len(options):
        raise PollError("Choose one of the poll's options.")
    _refuse_across_blocks(voter, post["by"]["id"])

    previous = _swap_vote(post_id, voter, option)
    if previous == option:
        return  # the same vote again: nothing changes
    inc = {f"detail.votes.{option}": 1}
    if previous is not None:
        inc[f"detail.votes.{previous}"] = -1
    counted = Post._get_collection().update_one(
        {"_id": post_id, "type": "poll", "removed": None}, {"$inc": inc}
    )
    if counted.matched_count == 0:
        _undo_vote(post_id, voter, option, previous)
        raise PollError(REMOVED)


def _refuse_across_blocks(voter: str, author: str) -> None:
    if voter == author:
        return
    if people.block_between(voter, author):
        raise PollError(f"You can't vote in @{author}'s polls.")


def _undo_vote(post_id: ObjectId, voter: str, option: int, previous: int | None) -> None:
    """Take back a vote whose count could not land (the post was removed
    meanwhile); conditional on the vote still being ours."""
    votes = PollVote._get_collection()
    mine = {"post": post_id, "voter": voter, "option": option}
    if previous is None:
        votes.delete_one(mine)
    else:
        votes.update_one(mine, {"$set": {"option": previous}})


def _swap_vote(post_id: ObjectId, voter: str, option: int) -> int | None:
    """Set the voter's option; returns the option it replaced (None: first vote)."""
    votes = PollVote._get_collection()
    for attempt in range(2):
        try:
            before = votes.find_one_and_update(
                {"post": post_id, "voter": voter},
                {"$set": {"option": option, "ts": now()}},
                projection={"option": 1, "_id": 0},
                upsert=True,
                return_document=ReturnDocument.BEFORE,
            )
        except DuplicateKeyError:
            # Two first votes raced and the other one inserted: now it's an
            # update. (Servers since 4.2 usually retry this themselves.)
            if attempt:
                raise
            continue
        return None if before is None else before["option"]
    raise AssertionError("unreachable")


def poll_recount(post_id: ObjectId) -> list[int]:
    """Rebuild `detail.votes` from the PollVote documents (repair tool)."""
    post = Post._get_collection().find_one({"_id": post_id, "type": "poll"}, {"detail": 1})
    if post is None:
        raise PollError("This post is not a poll.")
    counts = [0] * len(post["detail"].get("options") or [])
    pipeline = [
        {"$match": {"post": post_id}},
        {"$group": {"_id": "$option", "n": {"$sum": 1}}},
    ]
    for row in PollVote._get_collection().aggregate(pipeline):
        if isinstance(row["_id"], int) and 0 <= row["_id"] < len(counts):
            counts[row["_id"]] = row["n"]
    Post._get_collection().update_one({"_id": post_id}, {"$set": {"detail.votes": counts}})
    return counts


def votes_of(voter: str | None, post_ids: Iterable[ObjectId]) -> dict[ObjectId, int]:
    """The voter's choices on a page of posts, in one query (post_voter index)."""
    ids = list({pid for pid in post_ids if isinstance(pid, ObjectId)})
    if not voter or not ids:
        return {}
    cursor = PollVote._get_collection().find(
        {"post": {"$in": ids}, "voter": voter}, {"post": 1, "option": 1, "_id": 0}
    )
    return {row["post"]: row["option"] for row in cursor}


_UNKNOWN: Any = object()


def poll_results(
    post: Mapping[str, Any] | Post, voter: str | None, *, choice: int | None = _UNKNOWN
) -> dict:
    """What a template needs to show a poll.

    Pass `choice` (from `votes_of`, None when the voter has not voted) when
    rendering many posts; without it this reads the voter's vote itself.
    """
    post_id, detail = _id_and_detail(post)
    if choice is _UNKNOWN:
        # Without a voter or an id there is no vote to read.
        choice = votes_of(voter, [post_id]).get(post_id) if voter and post_id is not None else None
    labels = list(detail.get("options") or [])
    raw = list(detail.get("votes") or [])
    counts = [max(int(raw[i]), 0) if i < len(raw) else 0 for i in range(len(labels))]
    total = sum(counts)
    return {
        "question": detail.get("question", ""),
        "total": total,
        "voted": choice is not None,
        "choice": choice,
        "options": [
            {
                "index": i,
                "label": label,
                "count": count,
                "percent": round(100 * count / total) if total else 0,
                "chosen": i == choice,
            }
            for i, (label, count) in enumerate(zip(labels, counts, strict=True))
        ],
    }


def _id_and_detail(post: Mapping[str, Any] | Post) -> tuple[ObjectId | None, Mapping]:
    if isinstance(post, Post):
        return post.id, post.detail or {}
    return post.get("_id", post.get("id")), post.get("detail") or {}
