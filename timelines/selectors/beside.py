"""What a news page reads beside its stored entries: the newest public posts
of the pulled authors the reader follows (timelines/selectors/pulled.py) and
of the tags they follow (timelines/selectors/followed_tags.py), merged among
the entries in (ts, id) order, each post once.

A page under `cache` reads them in its one aggregate (`stages`, handed to
the store inside the page's lookups as `Beside`); the other stored models,
which do not take lookups, read them in aggregates of their own (`read`).
Both go through the same pipelines. `merge` then puts them among the stored
entries: a post pushed before its author was pulled may be in the timeline
too, and is the same entry.
"""

from dataclasses import dataclass

from feeds.documents import card_exclusion
from socialsite.cursors import sort_key
from timelines.selectors import followed_tags, pulled
from timelines.selectors.entries import entry_for
from timelines.selectors.pulled import Window
from timelines.stores.base import Chunk

# Where a page's aggregate reads the pulled authors' posts, and the
# followed tags' beside them (`Beside`).
PULLED = "_pulled"
TAGGED = "_pull_tagged"


def stages(reader: str, window: Window, into: str, projection: dict | None = None) -> list[dict]:
    """Stages for an aggregate whose rows are one document (a timeline's):
    `into` holds the pulled posts `reader` follows in `window` and TAGGED the
    posts of the tags they follow, as cards unless `projection` says
    otherwise. None when there is neither: nothing to read."""
    projection = projection or card_exclusion()
    return [
        *pulled.author_stages(reader, window, into, projection),
        *followed_tags.tag_stages(reader, window, projection, TAGGED),
    ]


def read(reader: str, window: Window, projection: dict | None = None) -> list[dict]:
    """The same posts for a store that takes no lookups."""
    projection = projection or card_exclusion()
    sides = pulled.author_read(reader, window, projection)
    return _combined([*sides, followed_tags.tag_read(reader, window, projection)], window.limit)


def posts_of(row: dict, into: str, limit: int) -> list[dict] | None:
    """The pulled posts `stages` put at `into` (and the followed tags'),
    newest first; None when the row was read without them."""
    if into not in row and "_pull_from" not in row and "_pull_tags" not in row:
        return None
    sides = [row.get(name) or [] for name in pulled.branch_names(row, into)]
    return _combined([*sides, row.get(TAGGED) or []], limit)


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


def merge(chunk: Chunk, found: list[dict], limit: int, *, asked: int) -> Chunk:
    """The stored chunk with the pulled entries among its own, newest first,
    at most `limit`: `found` are the newest pulled entries older than the
    chunk's cursor, at most `asked` (all there are when fewer).

    Each side answers only as far as it read: where the stored chunk is not
    the end of its timeline, pulled entries older than its oldest entry wait
    for the next chunk (the stored entries between are not read yet); where
    the pulled read stopped at `asked`, stored entries older than its oldest
    wait likewise. A page never takes more than a chunk's worth of pulled
    posts, each a post of its own, so `asked` need not be the chunk's size."""
    more_pulled = len(found) >= asked
    held = {entry["id"] for entry in chunk.entries}
    fresh = [entry for entry in found if entry["id"] not in held]
    merged = sorted(chunk.entries + fresh, key=sort_key, reverse=True)
    if not chunk.exhausted:
        if not chunk.entries:
            return chunk  # nothing stored here to merge with: the read model answers
        oldest = sort_key(chunk.entries[-1])
        merged = [entry for entry in merged if sort_key(entry) >= oldest]
    if more_pulled:
        last = sort_key(found[-1])
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
