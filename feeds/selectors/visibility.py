"""Who may see a post: docs/privacy.md, *Storing Updates and Profiles*'s `visible_post` made
precise.

- The author always sees their own posts; blocks win everywhere.
- A post directed to the viewer (`to`) is theirs to see (the incoming page).
- `*public*`: anyone. `*circles*`: anyone the author placed in any circle.
  Named circles: the members of those circles.

This is decided when a page is read, not only when a post is delivered, so
an unfollow, a removal from a circle, a deleted circle or a block hides the
circle posts already sitting in someone's timelines at once. The check costs
at most one graph query per page, and none when every post is public, the
viewer's own, or directed to them.

Blocks hold in both directions: the viewer's own list is on their document;
an author who blocked the viewer has no edge to them (`block_create` drops
the follows both ways before it returns, and a blocker cannot follow the
person they blocked), so the graph query finds no circle for the viewer and
none of that author's non-public posts shows.

Mutes hide in the news feed only (`news_hidden`, `Sight(viewer, news=True)`):
the muted person's wall and posts stay open to the viewer, who chose to
hear less from them, not to lose sight of them.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.page_keys import FOUND
from profiles import selectors as people
from profiles.documents import User

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor


def news_hidden(viewer: "User | AnonymousVisitor") -> set[str]:
    """Authors the viewer's news feed never shows: the people they blocked
    and the people they muted. Both lists are on the viewer's document."""
    if not viewer.is_authenticated:
        return set()
    return set(viewer.blocked) | set(getattr(viewer, "muted", None) or ())


def circles_placed_in(viewer: str, authors: Iterable[str]) -> dict[str, list[str]]:
    """For each author, the circles they placed `viewer` in: one indexed query.

    An edge being taken down (an unfollow or a block in progress) no longer
    counts: the author has already decided.
    """
    return people.circles_placed_in(viewer, sorted(set(authors) - {viewer}))


def needs_graph(viewer: "User | AnonymousVisitor", post: dict) -> bool:
    """Whether deciding needs the author's edge to the viewer."""
    author = post["by"]["id"]
    return bool(
        viewer.is_authenticated
        and author != viewer.handle
        and author not in viewer.blocked
        and post.get("to") != viewer.handle
        and PUBLIC not in post["circles"]
    )


def can_see(
    viewer: "User | AnonymousVisitor", post: dict, placed_in: dict[str, list[str]]
) -> bool:
    """`placed_in` is `circles_placed_in(viewer, authors)` for the posts' authors."""
    author = post["by"]["id"]
    if not viewer.is_authenticated:
        return PUBLIC in post["circles"]
    if author == viewer.handle:
        return True
    if author in viewer.blocked:
        return False
    if post.get("to") == viewer.handle or PUBLIC in post["circles"]:
        return True
    groups = placed_in.get(author) or []
    if ALL_CIRCLES in post["circles"]:
        return bool(groups)
    return bool(set(groups) & set(post["circles"]))


class Sight:
    """One viewer's view over the chunks of one page: each author's edge to
    the viewer is looked up once, however many chunks the page needs."""

    def __init__(
        self,
        viewer: "User | AnonymousVisitor",
        *,
        news: bool = False,
        placed_in: dict[str, list[str]] | None = None,
    ) -> None:
        """`placed_in`: authors whose edge to the viewer is known already
        (read with the session, `placed_in_from_edges`), each with the circles
        they placed the viewer in ([] for none): no query asks for them again."""
        self.viewer = viewer
        # The news feed also leaves out the people the viewer muted.
        self.muted = set(getattr(viewer, "muted", None) or ()) if news else set()
        self.placed_in: dict[str, list[str]] = dict(placed_in or {})
        self.looked_up: set[str] = set(self.placed_in)

    def visible(self, posts: list[dict]) -> list[dict]:
        if self.muted:
            posts = [p for p in posts if p["by"]["id"] not in self.muted]
        # Edges the timeline's read looked up beside the posts (FOUND).
        for post in posts:
            placed = (post.get(FOUND) or {}).get("placed")
            if placed is not None and post["by"]["id"] not in self.looked_up:
                self.placed_in[post["by"]["id"]] = placed
                self.looked_up.add(post["by"]["id"])
        authors = {p["by"]["id"] for p in posts if needs_graph(self.viewer, p)} - self.looked_up
        # Only a signed-in viewer (one with a handle) needs the graph.
        if authors and (handle := self.viewer.handle) is not None:
            self.placed_in.update(circles_placed_in(handle, authors))
            self.looked_up |= authors
        return [p for p in posts if can_see(self.viewer, p, self.placed_in)]


def visible_posts(
    viewer: "User | AnonymousVisitor",
    posts: list[dict],
    *,
    placed_in: dict[str, list[str]] | None = None,
) -> list[dict]:
    """The posts the viewer may see, with at most one graph query (none for
    the authors in `placed_in`, see `Sight`)."""
    return Sight(viewer, placed_in=placed_in).visible(posts)


def placed_in_from_edges(viewer: str, author: str, edges: list[dict]) -> dict[str, list[str]]:
    """`circles_placed_in(viewer, [author])` answered from follow edges read
    already (both directions, as the session's read brings them): the edge
    author -> viewer, unless it is being taken down."""
    circles: list[str] = []
    for edge in edges:
        if edge["_f"] == author and edge["_t"] == viewer and edge.get("state") != "removing":
            circles = list(edge.get("_g") or [])
    return {author: circles}
