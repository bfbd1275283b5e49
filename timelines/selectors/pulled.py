"""Authors pulled instead of pushed: their public posts are merged into their
followers' news when it is read (docs/performance.md#celebrities-are-pulled).

The fan-out article's celebrity problem: pushing one post of an author with
millions of followers writes millions of timelines. Past FEED_PULL_THRESHOLD
followers an author is pulled (timelines/delivery/pulled.py decides, once): a
public post of theirs goes to their own wall and news only, and each reader's
news page reads the newest public posts of the pulled authors they follow
beside the page's stored entries. Their circle posts reach few readers and
are still pushed; so are their reposts (a reposted entry is one more entry,
not an audience).

Followed hashtags come the same way (docs/discovery.md#following-a-tag): a
reader's news merges the newest public posts carrying a tag they follow,
read beside the page's entries on the `(tags, ts)` index, never by an
author they blocked or muted, nor by one who blocked them. Those who blocked
the reader are read once per page (`Window.blockers`, the read model's
`news_blockers`) and left out in the query itself, before its sort and
limit: dropped after the limit instead, enough of them posting a followed
tag would fill the read and push out the posts that should show.

The pulled authors are few, so each process keeps the whole list
(`authors()`, read again every FEED_PULL_GRACE_SECONDS): a page that has
none costs nothing more. A page under `cache` reads the pulled posts in its
one aggregate (`stages`: `$lookup`s of the reader's edges to the pulled
authors and of those authors' posts, on the `(_t, _f)` and `by_ts`
indexes); the other stored models, which do not take lookups, read them in
one aggregate of their own (`read`). Either way a reader who follows more
than BRANCH pulled authors has their posts read in branches of BRANCH, each
in the index's order. `merge` then puts them among the
stored entries in (ts, id) order, each post once: a post pushed before its
author was pulled may be in the timeline too, and is the same entry.
"""

import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from feeds.documents import LIVE, PUBLIC, Post, card_exclusion
from feeds.selectors import streams
from profiles import selectors as people
from socialsite.cursors import Cursor, sort_key
from timelines.documents import PulledAuthor
from timelines.selectors.entries import entry_for
from timelines.stores.base import Chunk

# Where a page's aggregate reads the pulled authors' posts, and the
# followed tags' beside them (`Beside`).
PULLED = "_pulled"
TAGGED = "_pull_tagged"
# The most pulled authors one `$lookup` reads: past 200 points an `$in` no
# longer keeps the `by_ts` index's order (the planner stops exploding it into
# merged index scans and sorts every post of every author), so a longer list
# is read in branches of this many, each in index order, as the read model
# splits a long `$in` (timelines/stores/read.py).
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


def _branches(
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


def _tag_pipeline(reader: str, window: Window, projection: dict) -> list[dict]:
    """Public posts in `window` (carrying a followed tag: the caller's match
    or lookup says so), newest first, not by a hidden author, by one who
    blocked the reader, nor by the reader (their own posts are in their
    timeline). The authors are left out before `$sort` and `$limit`, as the
    read model's query does: a filter after the limit would let the
    blockers' posts fill the read, and no per-post read of an author's
    block list is needed (docs/discovery.md#following-a-tag)."""
    left_out = sorted(window.hidden | window.blockers | {reader})
    return [
        {"$match": {"$and": [window.match(), {"by.id": {"$nin": left_out}}]}},
        {"$sort": {"ts": -1, "_id": -1}},
        {"$limit": window.limit},
        {"$project": projection},
    ]


def _tags_lookup(reader: str, window: Window, projection: dict, into: str) -> list[dict]:
    return [
        {"$addFields": {"_pull_tags": {"$literal": list(window.tags)}}},
        {
            "$lookup": {
                "from": Post._get_collection_name(),
                "localField": "_pull_tags",
                "foreignField": "tags",
                "pipeline": _tag_pipeline(reader, window, projection),
                "as": into,
            }
        },
    ]


def stages(reader: str, window: Window, into: str, projection: dict | None = None) -> list[dict]:
    """Stages for an aggregate whose rows are one document (a timeline's):
    `into` holds the pulled posts `reader` follows in `window` and the posts
    of the tags they follow, as cards unless `projection` says otherwise.
    None when there is neither: nothing to read."""
    candidates, projection = window.candidates(), projection or card_exclusion()
    found: list[dict] = []
    if candidates:
        found += [
            {"$addFields": {"_pull_from": {"$literal": candidates}}},
            people.followed_lookup("_pull_from", reader, "_pull_edges"),
            {"$addFields": {"_pull_authors": "$_pull_edges._t"}},
            *_branches("_pull_authors", len(candidates), window, projection, into),
        ]
    if window.tags:
        found += _tags_lookup(reader, window, projection, TAGGED)
    return found


def read(reader: str, window: Window, projection: dict | None = None) -> list[dict]:
    """The same posts for a store that takes no lookups: one aggregate on the
    reader's edges to the pulled authors (`(_f, _t)` index) that looks
    their posts up, and one on `post` for the followed tags."""
    candidates, projection = window.candidates(), projection or card_exclusion()
    by_authors: list[list[dict]] = []
    tagged: list[dict] = []
    if candidates:
        then = _branches("followed", len(candidates), window, projection, "posts")
        row = people.followed_among_joined(reader, candidates, then) or {}
        # Each branch a side of its own: it answers only down to its oldest.
        by_authors = [row[name] or [] for name in _branch_names(row, "posts")]
    if window.tags:
        tagged = streams.tagged_posts(window.tags, _tag_pipeline(reader, window, projection))
    return _combined([*by_authors, tagged], window.limit)


def posts_of(row: dict, into: str, limit: int) -> list[dict] | None:
    """The pulled posts `stages` put at `into` (and the followed tags'),
    newest first; None when the row was read without them."""
    if into not in row and "_pull_from" not in row and "_pull_tags" not in row:
        return None
    sides = [row.get(name) or [] for name in _branch_names(row, into)]
    return _combined([*sides, row.get(TAGGED) or []], limit)


def _branch_names(row: dict, into: str) -> list[str]:
    return [name for name in row if name == into or name.startswith(f"{into}__")]


def _combined(sides: list[list[dict]], limit: int) -> list[dict]:
    """The pulled authors' posts and the followed tags' as one list, each
    read newest first up to `limit`. A side that stopped at `limit` answers
    only down to its oldest: below it, posts of its own may not have been
    read, so nothing goes below the newest such floor. The list then holds
    that whole side, `limit` posts or more, so `merge` knows more are left."""
    floors = [sort_key(_as_entry(side[-1])) for side in map(_newest, sides) if len(side) >= limit]
    posts = _newest([post for side in sides for post in side])
    if floors:
        floor = max(floors)
        posts = [post for post in posts if sort_key(_as_entry(post)) >= floor]
    return posts


def _as_entry(post: dict) -> dict:
    return {"ts": post["ts"], "id": post["_id"]}


def _newest(posts: list[dict]) -> list[dict]:
    """Newest first, each post once (a pulled author's post may carry a
    followed tag too)."""
    unique = {post["_id"]: post for post in posts}
    return sorted(unique.values(), key=lambda p: (p["ts"], p["_id"]), reverse=True)


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


@dataclass(frozen=True)
class Beside:
    """A news page's pulled authors' and followed tags' posts in `window`,
    read in the page's own aggregate (feeds/selectors/lookups.py `ReadBeside`)."""

    window: Window
    fields: tuple[str, ...] = (PULLED, TAGGED)

    def stages(self, reader: str) -> list[dict]:
        return stages(reader, self.window, PULLED)

    def entries(self, row: dict) -> list[dict] | None:
        posts = posts_of(row, PULLED, self.window.limit)
        return None if posts is None else entries(posts)
