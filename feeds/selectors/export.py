"""The person's posts and marks for their export (docs/accounts.md#export):
what they wrote, and of others' posts only the id and the author's handle."""

from collections.abc import Iterator

from pymongo.collection import Collection

from feeds.documents import Bookmark, PollVote, Post, PostLike, PostRepost

# What the export says of a post: read with this projection, so a post's
# embedded comment previews, words and counters' tokens stay on the server.
POST_FIELDS = {
    "ts": 1,
    "type": 1,
    "circles": 1,
    "to": 1,
    "detail": 1,
    "edited": 1,
    "removed": 1,
    "likes_count": 1,
    "reposts_count": 1,
    "comments_count": 1,
}


def posts_export(handle: str) -> Iterator[dict]:
    rows = (
        Post._get_collection()
        .find({"by.id": handle}, POST_FIELDS)
        .sort([("by.id", 1), ("ts", -1), ("_id", -1)])
    )
    for post in rows:
        yield {
            "id": post["_id"],
            "ts": post["ts"],
            "type": post["type"],
            "audience": post.get("circles", []),
            "on_wall_of": post.get("to"),
            "detail": post.get("detail", {}),
            "edited": post.get("edited"),
            "removed_by_moderator": post.get("removed") is not None,
            "likes": post.get("likes_count", 0),
            "reposts": post.get("reposts_count", 0),
            "comments": post.get("comments_count", 0),
        }


def _authors(post_ids: list) -> dict:
    rows = Post._get_collection().find({"_id": {"$in": post_ids}}, {"by.id": 1})
    rows = rows.batch_size(len(post_ids) + 1)  # one round trip, no `getMore`
    return {row["_id"]: row["by"]["id"] for row in rows}


def _marks(collection: Collection, who: str, handle: str) -> Iterator[dict]:
    """A person's marks on posts with each post's author, a page at a time."""
    fields = {"post": 1, "ts": 1, "option": 1}
    rows = collection.find({who: handle}, fields).sort([(who, 1), ("ts", -1)]).batch_size(500)
    page: list[dict] = []
    for row in rows:
        page.append(row)
        if len(page) == 500:
            yield from _with_authors(page)
            page = []
    yield from _with_authors(page)


def _with_authors(page: list[dict]) -> Iterator[dict]:
    authors = _authors([row["post"] for row in page]) if page else {}
    for row in page:
        mark = {"post": row["post"], "author": authors.get(row["post"]), "ts": row.get("ts")}
        if "option" in row:
            mark["option"] = row["option"]
        yield mark


def likes_export(handle: str) -> Iterator[dict]:
    return _marks(PostLike._get_collection(), "by", handle)


def reposts_export(handle: str) -> Iterator[dict]:
    return _marks(PostRepost._get_collection(), "by", handle)


def votes_export(handle: str) -> Iterator[dict]:
    return _marks(PollVote._get_collection(), "voter", handle)


def bookmarks_export(handle: str) -> Iterator[dict]:
    """The posts the person kept, with each post's author's handle, a page
    of 500 at a time (the authors read per page), as the other marks."""
    return _marks(Bookmark._get_collection(), "owner", handle)
