"""Authors pulled instead of pushed: their public posts are merged into their
followers' news when it is read (docs/performance.md#celebrities-are-pulled).

The fan-out article's celebrity problem: pushing one post of an author with
millions of followers writes millions of timelines. Past FEED_PULL_THRESHOLD
followers an author is pulled (timelines/delivery/pulled.py decides, once): a
public post of theirs goes to their own wall and news only, and each reader's
news page reads the newest public posts of the pulled authors they follow
beside the page's stored entries (timelines/selectors/beside.py). Their
circle posts reach few readers and are still pushed; so are their reposts
(a reposted entry is one more entry, not an audience).

The pulled authors are few, so each process keeps the whole list
(`authors()`, read again every FEED_PULL_GRACE_SECONDS): a page that has
none costs nothing more. Their posts are read by one pipeline
(`author_branches`), as `$lookup`s in a timeline's aggregate
(`author_stages`) or after the reader's edges (`author_read`); a reader who
follows more than BRANCH pulled authors has their posts read in branches of
BRANCH, each in the index's order.
"""

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from feeds.documents import LIVE, PUBLIC, Post
from profiles import selectors as people
from socialsite.cursors import Cursor
from timelines.documents import PulledAuthor

# The most pulled authors one `$lookup` reads: past 200 points an `$in` no
# longer keeps the `by_ts` index's order (the planner stops exploding it into
# merged index scans and sorts every post of every author), so a longer list
# is read in branches of this many, each in index order, as the read model
# splits a long `$in` (feeds/selectors/streams.py).
BRANCH = 200

# (when read, by time.monotonic(); handle -> since)
_known: tuple[float, dict[str, datetime]] = (float("-inf"), {})


def authors() -> dict[str, datetime]:
    """Every pulled author, with the time they were pulled: read whole at
    most every FEED_PULL_GRACE_SECONDS by each process (the list is short)."""
    global _known
    read_at, known = _known
    if time.monotonic() - read_at >= settings.FEED_PULL_GRACE_SECONDS:
        # A walk of the `_id` index: a short list, read whole once a period
        # by each process, never by each page.
        rows = PulledAuthor._get_collection().find({"_id": {"$gte": ""}}, {"since": 1})
        rows = rows.batch_size(100_000)  # one round trip: no `getMore` past 101
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
    # The reader's followed tags, and everyone who blocked the reader (read
    # once per page with `timelines.stores.read.news_blockers`), whose posts
    # the tags' read leaves out.
    tags: tuple[str, ...] = ()
    blockers: frozenset[str] = frozenset()

    def candidates(self) -> list[str]:
        return sorted(set(authors()) - self.hidden)

    def match(self) -> dict:
        conditions: list[dict] = [{"circles": PUBLIC}, LIVE]
        if self.before is not None:
            # As the read model bounds a page (timelines/stores/read.py `_page_filter`).
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


def author_branches(
    authors_field: str, count: int, window: Window, projection: dict, into: str
) -> list[dict]:
    """The `$lookup`s of the newest posts of the authors at `authors_field`,
    BRANCH authors each (`count` authors at most): the first branch's posts
    at `into`, the next ones' at `<into>__<n>`."""
    stages: list[dict] = []
    for n in range(max(1, -(-count // BRANCH))):
        field = f"{authors_field}__{n}"
        stages.append(
            {"$addFields": {field: {"$slice": [f"${authors_field}", n * BRANCH, BRANCH]}}}
        )
        stages.append(_posts_lookup(field, window, projection, _branch(into, n)))
    return stages


def _branch(into: str, n: int) -> str:
    return into if n == 0 else f"{into}__{n}"


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


def author_stages(reader: str, window: Window, into: str, projection: dict) -> list[dict]:
    """Stages for an aggregate whose rows are one document (a timeline's):
    `into` (and `<into>__<n>`, one per branch) holds the newest posts in
    `window` of the pulled authors `reader` follows. None: no pulled
    author the reader does not hide."""
    candidates = window.candidates()
    if not candidates:
        return []
    return [
        {"$addFields": {"_pull_from": {"$literal": candidates}}},
        people.followed_lookup("_pull_from", reader, "_pull_edges"),
        {"$addFields": {"_pull_authors": "$_pull_edges._t"}},
        *author_branches("_pull_authors", len(candidates), window, projection, into),
    ]


def author_read(reader: str, window: Window, projection: dict) -> list[list[dict]]:
    """The same posts for a store that takes no lookups: one aggregate on the
    reader's edges to the pulled authors (`(_f, _t)` index) that looks their
    posts up, each branch a side of its own (it answers only down to its oldest)."""
    candidates = window.candidates()
    if not candidates:
        return []
    then = author_branches("followed", len(candidates), window, projection, "posts")
    row = people.followed_among_joined(reader, candidates, then) or {}
    return [row[name] or [] for name in branch_names(row, "posts")]


def branch_names(row: dict, into: str) -> list[str]:
    """The fields `author_branches` read into, in the row."""
    return [name for name in row if name == into or name.startswith(f"{into}__")]


def followed(reader: str, hidden: frozenset[str] = frozenset()) -> set[str]:
    """The pulled authors `reader` follows, but the `hidden` ones (their
    blocks and mutes, as a news page leaves them out): no entry is written
    for their posts, so a news feed open in a browser listens for them
    (live/browser.py). One covered read of the reader's edges, none when
    nobody is pulled."""
    candidates = set(authors()) - hidden - {reader}
    return people.followed_among(reader, candidates) if candidates else set()
