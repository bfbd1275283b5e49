"""Reads of polls (feeds/services/polls.py writes them): when one ends,
the reader's votes on a page, and what a card shows of a poll to whom
(docs/features.md#polls)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bson import ObjectId

from feeds.documents import PollVote, Post
from socialsite.clock import aware, now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User


def ends_of(detail: Mapping[str, Any]) -> datetime | None:
    """When the poll ends, or None (an old poll that never does)."""
    expires = detail.get("expires")
    return aware(expires) if isinstance(expires, datetime) else None


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
    """What a template needs to show a poll, as `voter` may see it.

    The counts are `shown` to whoever voted, to the author, and to everyone
    once the poll has ended (as Mastodon does); before that, the options and
    the total only: the options then carry no `count`, `percent` or
    `winner` at all, so no template can leak them. Once ended, the options
    with the most votes are the `winner`s (a tie has several).

    Pass `choice` (from `votes_of`, None when the voter has not voted) when
    rendering many posts; without it this reads the voter's vote itself.
    """
    post_id, detail, author = _id_detail_author(post)
    if choice is _UNKNOWN:
        # Without a voter or an id there is no vote to read.
        choice = votes_of(voter, [post_id]).get(post_id) if voter and post_id is not None else None
    labels = list(detail.get("options") or [])
    raw = list(detail.get("votes") or [])
    counts = [max(int(raw[i]), 0) if i < len(raw) else 0 for i in range(len(labels))]
    total = sum(counts)
    expires = ends_of(detail)
    expired = expires is not None and now() >= expires
    voted = choice is not None
    shown = voted or expired or (voter is not None and voter == author)
    most = max(counts, default=0)
    options = []
    for i, (label, count) in enumerate(zip(labels, counts, strict=True)):
        option = {"index": i, "label": label, "chosen": i == choice}
        if shown:
            option.update(
                count=count,
                percent=round(100 * count / total) if total else 0,
                winner=expired and most > 0 and count == most,
            )
        options.append(option)
    return {
        "question": detail.get("question", ""),
        "total": total,
        "voted": voted,
        "choice": choice,
        "expires": expires,
        "expired": expired,
        "shown": shown,
        "options": options,
    }


def _id_detail_author(post: Mapping[str, Any] | Post) -> tuple[ObjectId | None, Mapping, str]:
    if isinstance(post, Post):
        return post.id, post.detail or {}, post.by.id if post.by else ""
    author = (post.get("by") or {}).get("id", "")
    return post.get("_id", post.get("id")), post.get("detail") or {}, author


def viewer_votes(viewer: User | AnonymousVisitor, posts: list[dict]) -> dict:
    """The viewer's vote on each poll of the page: one query, only if there are polls."""
    poll_ids = [p["_id"] for p in posts if p.get("type") == "poll"]
    if not poll_ids or not viewer.is_authenticated:
        return {}
    return votes_of(viewer.handle, poll_ids)
