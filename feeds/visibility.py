"""Who may see a post: DESIGN.md §4, seed 000's `visible_post` made precise.

- The author always sees their own posts; blocks win everywhere.
- A post directed to the viewer (`to`) is theirs to see (the incoming page).
- `*public*`: anyone. `*circles*`: anyone the author placed in any circle.
  Named circles: the members of those circles.
"""

from feeds.documents import ALL_CIRCLES, PUBLIC
from profiles.documents import FollowingEdge


def circles_placed_in(viewer: str, authors) -> dict[str, list[str]]:
    """For each author, the circles they placed `viewer` in: one indexed query."""
    authors = sorted(set(authors) - {viewer})
    if not authors:
        return {}
    rows = FollowingEdge._get_collection().find(
        {"_f": {"$in": authors}, "_t": viewer}, {"_id": 0, "_f": 1, "_g": 1}
    )
    return {row["_f"]: row.get("_g", []) for row in rows}


def needs_graph(viewer, post: dict) -> bool:
    """Whether deciding needs the author's edge to the viewer."""
    author = post["by"]["id"]
    return bool(
        viewer.is_authenticated
        and author != viewer.handle
        and post.get("to") != viewer.handle
        and PUBLIC not in post["circles"]
    )


def can_see(viewer, post: dict, placed_in: dict[str, list[str]]) -> bool:
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


def visible_posts(viewer, posts: list[dict]) -> list[dict]:
    """The posts the viewer may see, with at most one graph query."""
    authors = {p["by"]["id"] for p in posts if needs_graph(viewer, p)}
    placed_in = circles_placed_in(viewer.handle, authors) if authors else {}
    return [p for p in posts if can_see(viewer, p, placed_in)]
