"""Each post once per reader: the page rule for the entries of reposts.

A post's entries in a timeline are its own (at the post's time, the oldest
of them) and one per repost of it by someone the reader follows (later). A
page shows the post at its newest entry and never again.
"""

from collections.abc import Iterable

from socialsite.cursors import Cursor
from timelines.selectors.entries import post_id_of
from timelines.stores.base import TimelineStore
from timelines.stores.read import reposts_above


class Once:
    """One page's rule for reposts: each post at most once, at its newest
    place in the timeline, and not again on an older page.

    A post's entries in a timeline are its own (at the post's time, the
    oldest) and its reposts' (later). Within a page the first seen wins.
    An older page (a cursor) leaves out a post whose repost sits at or above
    the cursor, where the newer pages showed it: asked of the store (one
    round trip), only when the page holds posts that were reposted at all
    (`reposts_count`), so pages without reposts cost nothing more. The
    cursor is the last shown entry's place, so nothing is skipped either.

    Reposts by people the page hides (`hidden`: blocks and mutes), and of
    posts by them, are left out first, above the cursor as well."""

    def __init__(
        self, kind: str, owner: str, before: Cursor | None, hidden: Iterable[str] | None
    ) -> None:
        self.kind, self.owner, self.before = kind, owner, before
        self.hidden = set(hidden or ())
        self.seen: set = set()
        self.picked: set = set()
        self.shown_above: dict = {}

    def pick(self, entries: list[dict], want: int) -> tuple[list[dict], int]:
        """Up to `want` entries to resolve, newest first, leaving out reposts
        by hidden people and a post's later (older) entries: the choice needs
        no post, since whether a post may be seen does not depend on which
        entry brought it. Returns them and how many `entries` were used."""
        chosen: list[dict] = []
        used = 0
        for entry in entries:
            if len(chosen) == want:
                break
            used += 1
            if entry.get("of") is not None and entry["by"] in self.hidden:
                continue
            post_id = post_id_of(entry)
            if post_id not in self.picked:
                self.picked.add(post_id)
                chosen.append(entry)
        return chosen, used

    def _hidden(self, post: dict) -> bool:
        by = post.get("reposted_by")
        return by is not None and (by in self.hidden or post["by"]["id"] in self.hidden)

    def first_sightings(self, posts: list[dict], *, store: TimelineStore | None) -> list[dict]:
        """`store`: the timeline store the chunk came from; None: the read model."""
        posts = [p for p in posts if not self._hidden(p)]
        ask = {
            p["_id"]
            for p in posts
            if p.get("reposts_count") and p["_id"] not in self.seen | set(self.shown_above)
        }
        if self.before is not None and ask:
            ids = sorted(ask, key=str)
            above = (
                store.reposts_above(self.kind, self.owner, ids, self.before)
                if store is not None
                else reposts_above(self.kind, self.owner, ids, self.before)
            )
            shown = {of for of, by in above if by not in self.hidden}
            self.shown_above.update({i: i in shown for i in ids})
        fresh = []
        for post in posts:
            if post["_id"] in self.seen or self.shown_above.get(post["_id"]):
                continue
            self.seen.add(post["_id"])
            fresh.append(post)
        return fresh
