"""Authors pulled instead of pushed: their public posts are merged into their
followers' news when it is read (docs/performance.md#celebrities-are-pulled).

The fan-out article's celebrity problem: pushing one post of an author with
millions of followers writes millions of timelines. Past FEED_PULL_THRESHOLD
followers an author is pulled (feeds/delivery/pulled.py decides, once): a
public post of theirs goes to their own wall and news only, and each reader's
news page reads the newest public posts of the pulled authors they follow
beside the page's stored entries. Their circle posts reach few readers and
are still pushed; so are their reposts (a reposted entry is one more entry,
not an audience).

The pulled authors are few, so each process keeps the whole list
(`authors()`, read again every FEED_PULL_GRACE_SECONDS): a page that has
none costs nothing more. A page under `cache` reads the pulled posts in its
one aggregate (`stages`: `$lookup`s of the reader's edges to the pulled
authors and of those authors' posts, on the `(_t, _f)` and `by_ts`
indexes); the other stored models, which do not take lookups, read them in
one aggregate of their own (`read`). `merge` then puts them among the
stored entries in (ts, id) order, each post once: a post pushed before its
author was pulled may be in the timeline too, and is the same entry.
"""

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from feeds.documents import LIVE, PUBLIC, Post, PulledAuthor, card_exclusion
from feeds.selectors.entries import entry_for
from feeds.timelines.base import Chunk
from profiles import selectors as people
from socialsite.cursors import Cursor, sort_key

# (when read, by time.monotonic(); handle -> since)
_known: tuple[float, dict[str, datetime]] = (float("-inf"), {})


def authors() -> dict[str, datetime]:
    """Every pulled author, with the time they were pulled: read whole at
    most every FEED_PULL_GRACE_SECONDS by each process (the list is short)."""
    global _known
    read_at, known = _known
    if time.monotonic() - read_at >= settings.FEED_PULL_GRACE_SECONDS:
        rows = PulledAuthor._get_collection().find({}, {"since": 1})
        known = {row["_id"]: row["since"] for row in rows}
        _known = (time.monotonic(), known)
    return known


def forget() -> None:
    """Read the list again on the next page (after this process pulled someone)."""
    global _known
    _known = (float("-inf"), {})


@dataclass(frozen=True)
class Window:
    """Which pulled posts a read wants: older than `before` (a page) or newer
    than `after` (the new-posts count), at most `limit` of them, newest first,
    never by the `hidden` authors (the reader's blocks and mutes)."""

    limit: int
    before: Cursor | None = None
    after: Cursor | None = None
    hidden: frozenset[str] = frozenset()

    def candidates(self) -> list[str]:
        return sorted(set(authors()) - self.hidden)

    def match(self) -> dict:
        conditions: list[dict] = [{"circles": PUBLIC}, LIVE]
        if self.before is not None:
            # As the read model bounds a page (feeds/timelines/read.py `_page_filter`).
            conditions.append({"ts": {"$lte": self.before.ts}})
            conditions.append(
                {"$or": [{"ts": {"$lt": self.before.ts}}, {"_id": {"$lt": self.before.id}}]}
            )
        if self.after is not None:
            conditions.append({"ts": {"$gte": self.after.ts}})
            conditions.append(
                {"$or": [{"ts": {"$gt": self.after.ts}}, {"_id": {"$gt": self.after.id}}]}
            )
        return {"$and": conditions}


def _posts_lookup(authors_field: str, window: Window, projection: dict, into: str) -> dict:
    """The newest public posts of the authors in the array at `authors_field`,
    in `window`: on a server, one `by_ts` index scan per author merged in
    (ts, _id) order (the authors are few: the pulled ones the reader follows)."""
    return {
        "$lookup": {
            "from": Post._get_collection_name(),
            "localField": authors_field,
            "foreignField": "by.id",
            "pipeline": [
                {"$match": window.match()},
                {"$sort": {"ts": -1, "_id": -1}},
                {"$limit": window.limit},
                {"$project": projection},
            ],
            "as": into,
        }
    }


def stages(reader: str, window: Window, into: str, projection: dict | None = None) -> list[dict]:
    """Stages for an aggregate whose rows are one document (a timeline's):
    `into` holds the pulled posts `reader` follows in `window`, as cards
    unless `projection` says otherwise. None when there is no pulled author
    the reader could follow: nothing to read."""
    candidates = window.candidates()
    if not candidates:
        return []
    return [
        {"$addFields": {"_pull_from": {"$literal": candidates}}},
        people.followed_lookup("_pull_from", reader, "_pull_edges"),
        {"$addFields": {"_pull_authors": "$_pull_edges._t"}},
        _posts_lookup("_pull_authors", window, projection or card_exclusion(), into),
    ]


def read(reader: str, window: Window, projection: dict | None = None) -> list[dict]:
    """The same posts for a store that takes no lookups: one aggregate on the
    reader's edges to the pulled authors (`(_f, _t)` index) that looks
    their posts up."""
    candidates = window.candidates()
    if not candidates:
        return []
    then = [_posts_lookup("followed", window, projection or card_exclusion(), "posts")]
    row = people.followed_among_joined(reader, candidates, then)
    return _newest((row or {}).get("posts") or [])


def posts_of(row: dict, into: str) -> list[dict] | None:
    """The pulled posts `stages` put at `into`, newest first; None when the
    row was read without them."""
    if into not in row and "_pull_from" not in row:
        return None
    return _newest(row.get(into) or [])


def _newest(posts: list[dict]) -> list[dict]:
    return sorted(posts, key=lambda p: (p["ts"], p["_id"]), reverse=True)


def entries(posts: list[dict]) -> list[dict]:
    """Pulled posts as timeline entries that carry the post (as the read
    model's do: it is loaded already)."""
    return [entry_for(post, embed=True, stored=False) for post in posts]


def merge(chunk: Chunk, pulled: list[dict], limit: int, *, asked: int) -> Chunk:
    """The stored chunk with the pulled entries among its own, newest first,
    at most `limit`: `pulled` are the newest pulled entries older than the
    chunk's cursor, at most `asked` (all there are when fewer).

    Each side answers only as far as it read: where the stored chunk is not
    the end of its timeline, pulled entries older than its oldest entry wait
    for the next chunk (the stored entries between are not read yet); where
    the pulled read stopped at `asked`, stored entries older than its oldest
    wait likewise. A page never takes more than a chunk's worth of pulled
    posts, each a post of its own, so `asked` need not be the chunk's size."""
    more_pulled = len(pulled) >= asked
    held = {entry["id"] for entry in chunk.entries}
    fresh = [entry for entry in pulled if entry["id"] not in held]
    merged = sorted(chunk.entries + fresh, key=sort_key, reverse=True)
    if not chunk.exhausted:
        if not chunk.entries:
            return chunk  # nothing stored here to merge with: the read model answers
        oldest = sort_key(chunk.entries[-1])
        merged = [entry for entry in merged if sort_key(entry) >= oldest]
    if more_pulled:
        last = sort_key(pulled[-1])
        merged = [entry for entry in merged if sort_key(entry) >= last]
    exhausted = chunk.exhausted and not more_pulled and len(merged) <= limit
    return Chunk(merged[:limit], exhausted=exhausted, complete=chunk.complete)
