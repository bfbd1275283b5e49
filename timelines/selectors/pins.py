"""A wall's pinned posts (docs/discovery.md#pins): up to three of its owner's
public posts, first on the wall's first page, each once on that page.

The ids are on the owner's document, loaded with the session, so a wall
without pins costs nothing more. With pins, the posts are read with the
page's timeline when the store reads one aggregate (a `$lookup` by `_id`,
with the reader's likes and votes, feeds/selectors/lookups.py); otherwise
in one `_id $in` query. Either read keeps only what a pin may be (the
owner's own public, live post), and the viewer's sight is decided as for
the wall's other posts, so a pin deleted, removed or made non-public since
simply stops showing.
"""

from dataclasses import replace
from typing import TYPE_CHECKING

from bson import ObjectId

from feeds.selectors.lookups import PageLookups
from feeds.selectors.streams import pinned_posts
from feeds.selectors.visibility import visible_posts
from timelines.stores.base import Chunk

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User


class Pins:
    """The pins of one wall page. `asking` adds them to the first timeline
    read's lookups, `found` takes them from its chunk (or reads them), and
    `drop` leaves the pins shown out of the page's chronological posts. With
    no ids (a later page, an owner without pins) each is a no-op."""

    def __init__(self, owner: str, ids: list[ObjectId], viewer: "User | AnonymousVisitor") -> None:
        self.owner = owner
        self.ids = tuple(ids)
        self.viewer = viewer
        self.posts: list[dict] = []
        self._known = not self.ids
        self._shown: set[ObjectId] = set()

    @property
    def room(self) -> int:
        """How many more entries a chunk takes: the pins `drop` may leave out."""
        return len(self.ids)

    def asking(self, lookups: PageLookups) -> PageLookups:
        return lookups if self._known else replace(lookups, pins=self.ids)

    def found(self, chunk: Chunk) -> None:
        """Once per page: the pins the chunk was read with, else one query."""
        if self._known:
            return
        posts = chunk.pinned if chunk.pinned is not None else pinned_posts(self.owner, self.ids)
        self.posts = visible_posts(self.viewer, posts)
        self._shown = {post["_id"] for post in self.posts}
        self._known = True

    def drop(self, posts: list[dict]) -> list[dict]:
        if not self._shown:
            return posts
        return [post for post in posts if post["_id"] not in self._shown]
