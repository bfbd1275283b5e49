"""What a page of posts is, and the reads of one post's page.

`FeedPage` is the shape every list of posts takes (news, walls and incoming
in timelines/selectors/pages.py; tags, search and bookmarks here); the
post page asks `post_for_viewer`. Whether a viewer may see a post is decided
here, when it is read (docs/privacy.md).
"""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bson import ObjectId

from feeds.documents import CARD_FIELDS, LIVE, Post
from feeds.selectors.visibility import visible_posts
from profiles import selectors as people

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User


@dataclass
class FeedPage:
    posts: list[dict]
    next_cursor: str | None
    rebuilding: bool = False
    # A wall's first page: its owner's pinned posts, shown above `posts`
    # (which leave them out): timelines/selectors/pins.py.
    pinned: list[dict] = field(default_factory=list)


def live_posts(ids: list[ObjectId]) -> dict[ObjectId, dict]:
    """The posts with these ids as cards read them, by id; deleted and
    removed ones left out. One `$in` query."""
    rows = Post._get_collection().find({"_id": {"$in": ids}, **LIVE}, CARD_FIELDS)
    return {p["_id"]: p for p in rows}


def wall_shows(owner: str, author: str) -> bool:
    """Whether `owner`'s wall lists a post `author` wrote on it: their own
    posts, and those of people they follow (*Storing Updates and Profiles*'s
    wall filter). One point read."""
    if author == owner:
        return True
    return people.follows(owner, author)


def post_by_id(post_id: ObjectId) -> dict | None:
    """The post as a card reads it, whoever asks: one point read."""
    return Post._get_collection().find_one({"_id": post_id}, CARD_FIELDS)


def shown_to(
    post: dict | None,
    viewer: "User | AnonymousVisitor",
    *,
    placed_in: dict[str, list[str]] | None = None,
) -> dict | None:
    """The post if the viewer may see it; else None (a 404).

    Moderators see every post, a removed one with its placeholder (they can
    restore it). To everyone else, its author included, a post a moderator
    removed is gone (docs/privacy.md), and a suspended author's posts are hidden
    from everyone but the author. `placed_in`: the author's circles for the
    viewer when already read (`visibility.Sight`).
    """
    if post is None:
        return None
    if viewer.is_moderator:
        return post
    if post.get("removed") is not None:
        return None
    if post.get("author_suspended") and post["by"]["id"] != viewer.handle:
        return None
    visible = visible_posts(viewer, [post], placed_in=placed_in)
    return visible[0] if visible else None


def post_for_viewer(post_id: ObjectId, viewer: "User | AnonymousVisitor") -> dict | None:
    """`shown_to` of the post with this id."""
    return shown_to(post_by_id(post_id), viewer)
