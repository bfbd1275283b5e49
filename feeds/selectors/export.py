"""The person's posts and marks for their export (docs/accounts.md#export):
what they wrote, and of others' posts only the id and the author's handle."""

from collections.abc import Iterator

from pymongo.collection import Collection

from feeds.documents import Bookmark, PollVote, Post, PostLike, PostRepost


def posts_export(handle: str) -> Iterator[dict]:
    rows = Post._get_collection().find({"by.id": handle}).sort([("ts", -1), ("_id", -1)])
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
    return {row["_id"]: row["by"]["id"] for row in rows}


def _marks(collection: Collection, who: str, handle: str) -> Iterator[dict]:
    """A person's marks on posts with each post's author, a page at a time."""
    rows = collection.find({who: handle}).sort([(who, 1), ("ts", -1)])
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
    """The posts the person kept, with each post's author's handle."""
    rows = Bookmark._get_collection().find({"owner": handle}).sort([("owner", 1), ("ts", -1)])
    page: list[dict] = list(rows)
    yield from _with_authors(page)
