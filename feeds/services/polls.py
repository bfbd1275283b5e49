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

A poll ends at `detail.expires` (a UTC datetime, set once when it is posted
from a duration in seconds, `poll_detail`; a poll without one, from before
polls ended, stays open). After it no vote counts, and before it only those
who voted and the author see the counts (`poll_results` in
feeds/selectors/polls.py; docs/features.md#polls).

Callers check that the voter may see the post (docs/privacy.md) before voting;
`poll_vote` itself refuses removed posts, ended polls and votes across a block.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bson import ObjectId
from pymongo import ReturnDocument, UpdateOne
from pymongo.errors import DuplicateKeyError

from feeds.documents import PollVote, Post
from feeds.selectors.polls import ends_of
from profiles import selectors as people
from socialsite import events
from socialsite.clock import aware, now, to_millis

MIN_OPTIONS = 2
MAX_OPTIONS = 6

# How long a poll stays open, in seconds: Mastodon's choices (the composer's
# "Poll ends in" select, and the coming API's `poll[expires_in]`).
DURATIONS = {
    5 * 60: "5 minutes",
    30 * 60: "30 minutes",
    60 * 60: "1 hour",
    6 * 60 * 60: "6 hours",
    24 * 60 * 60: "1 day",
    3 * 24 * 60 * 60: "3 days",
    7 * 24 * 60 * 60: "7 days",
}
DEFAULT_DURATION = 24 * 60 * 60
# Any duration in between is accepted from a caller other than the composer
# (Mastodon's bounds: 5 minutes to a month).
MIN_DURATION = 5 * 60
MAX_DURATION = 2_629_746


class PollError(ValueError):
    """A vote we refuse; the message can be shown to the user."""


REMOVED = "This post was removed by a moderator: its poll is closed."
ENDED = "This poll has ended."


def poll_detail(
    *, question: str, options: list[str], expires_in: int, start: datetime | None = None
) -> dict:
    """A new poll's `detail`: no votes yet, ending `expires_in` seconds after
    `start` (the post's time, now unless backdated), to the millisecond."""
    if isinstance(expires_in, bool) or not isinstance(expires_in, int):
        raise PollError("Choose how long the poll stays open.")
    if not MIN_DURATION <= expires_in <= MAX_DURATION:
        raise PollError("A poll stays open from 5 minutes to a month.")
    begins = to_millis(aware(start)) if start is not None else now()
    return {
        "question": question,
        "options": list(options),
        "votes": [0] * len(options),
        "expires": begins + timedelta(seconds=expires_in),
    }


def poll_vote(*, post_id: ObjectId, voter: str, option: int) -> None:
    """Record `voter`'s choice of `option` (an index into the options).

    Refused on a post a moderator removed (removed means frozen, docs/privacy.md)
    and on a poll past its end; the count's `$inc` carries both conditions,
    so a removal or the end racing this vote leaves the counts unchanged and
    the vote undone. Refused across a block in either direction too (one read
    by `_id`).
    """
    post = Post._get_collection().find_one(
        {"_id": post_id},
        {"type": 1, "detail.options": 1, "detail.expires": 1, "by.id": 1, "removed": 1},
    )
    if post is None or post.get("type") != "poll":
        raise PollError("This post is not a poll.")
    if post.get("removed") is not None:
        raise PollError(REMOVED)
    ends = ends_of(post.get("detail") or {})
    if ends is not None and now() >= ends:
        raise PollError(ENDED)
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
    # The server decides as it counts: not removed, and no end or not yet.
    still_open = [{"detail.expires": None}, {"detail.expires": {"$gt": now()}}]
    counted = Post._get_collection().update_one(
        {"_id": post_id, "type": "poll", "removed": None, "$or": still_open}, {"$inc": inc}
    )
    if counted.matched_count == 0:
        _undo_vote(post_id, voter, option, previous)
        raise PollError(ENDED if ends is not None and now() >= ends else REMOVED)
    events.poll_voted.send(
        sender=Post, post_id=post_id, author=post["by"]["id"], voter=voter, choice=options[option]
    )


def polls_seed(*, votes: list[tuple[ObjectId, str, int]]) -> int:
    """The demo's first votes, `(poll, voter, option)` each, in one insert
    and one count per poll: what `poll_vote` leaves for each in turn, with
    its refusals (not a poll, removed, ended, no such option, a block either
    way), on polls nobody voted in yet and nothing else writes meanwhile
    (a vote already there fails the insert on the unique index). Returns
    the votes counted."""
    polls = {
        post["_id"]: post
        for post in Post._get_collection().find(
            {"_id": {"$in": sorted({post_id for post_id, _, _ in votes})}, "type": "poll"},
            {"detail.options": 1, "detail.expires": 1, "by.id": 1, "removed": 1},
        )
    }
    authors = {post["by"]["id"] for post in polls.values()}
    people_found = people.users_read({voter for _, voter, _ in votes} | authors, {"blocked": 1})
    blocked = {row["_id"]: set(row.get("blocked") or ()) for row in people_found}
    moment, rows = now(), []
    counts: dict[ObjectId, dict[str, int]] = {}
    for post_id, voter, option in votes:
        post = polls.get(post_id)
        if post is None or post.get("removed") is not None:
            continue
        ends = ends_of(post.get("detail") or {})
        if ends is not None and moment >= ends:
            continue
        options = (post.get("detail") or {}).get("options") or []
        if isinstance(option, bool) or not isinstance(option, int):
            continue
        author = post["by"]["id"]
        if not 0 <= option < len(options) or (
            voter != author
            and (author in blocked.get(voter, ()) or voter in blocked.get(author, ()))
        ):
            continue
        # As the upsert makes it: the filter's fields, then the `$set`.
        rows.append({"post": post_id, "voter": voter, "option": option, "ts": moment})
        tally = counts.setdefault(post_id, {})
        tally[f"detail.votes.{option}"] = tally.get(f"detail.votes.{option}", 0) + 1
    if rows:
        PollVote._get_collection().insert_many(rows, ordered=False)
        still_open = [{"detail.expires": None}, {"detail.expires": {"$gt": moment}}]
        Post._get_collection().bulk_write(
            [
                UpdateOne(
                    {"_id": post_id, "type": "poll", "removed": None, "$or": still_open},
                    {"$inc": inc},
                )
                for post_id, inc in counts.items()
            ],
            ordered=False,
        )
    return len(rows)


def _refuse_across_blocks(voter: str, author: str) -> None:
    if voter == author:
        return
    if people.block_between(voter, author):
        raise PollError(f"You can't vote in @{author}'s polls.")


def _undo_vote(post_id: ObjectId, voter: str, option: int, previous: int | None) -> None:
    """Take back a vote whose count could not land (the post was removed or
    the poll ended meanwhile); conditional on the vote still being ours."""
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


def poll_counts_set(*, post_id: ObjectId, author: str, votes: list[int]) -> bool:
    """A remote poll's counts, as its server reports them (docs/federation.md):
    the votes are counted there, so the post shows that server's figures.
    Only the same number of options, and never a poll of ours."""
    if "@" not in author or not all(isinstance(v, int) and v >= 0 for v in votes):
        return False
    changed = Post._get_collection().update_one(
        {"_id": post_id, "by.id": author, "type": "poll", "detail.options": {"$size": len(votes)}},
        {"$set": {"detail.votes": votes}},
    )
    return changed.modified_count > 0
