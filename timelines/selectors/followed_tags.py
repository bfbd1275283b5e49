"""Followed hashtags (docs/discovery.md#following-a-tag): a reader's news
merges the newest public posts carrying a tag they follow, read beside the
page's entries on the `(tags, ts)` index (timelines/selectors/beside.py),
never by an author they blocked or muted, nor by one who blocked them.
Those who blocked the reader are read once per page (`Window.blockers`,
feeds/selectors/streams.py `news_blockers`) and left out in the query
itself, before its sort and limit: dropped after the limit instead, enough
of them posting a followed tag would fill the read and push out the posts
that should show. One pipeline (`_tag_pipeline`), as a `$lookup` in a
timeline's aggregate (`tag_stages`) or an aggregate of its own (`tag_read`).
"""

from feeds.documents import Post
from feeds.selectors import streams
from timelines.selectors.pulled import Window


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


def tag_stages(reader: str, window: Window, projection: dict, into: str) -> list[dict]:
    """Stages that put at `into` the posts of the tags `reader` follows, in
    `window`. None when they follow no tag."""
    if not window.tags:
        return []
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


def tag_read(reader: str, window: Window, projection: dict) -> list[dict]:
    """The same posts for a store that takes no lookups: one aggregate on `post`."""
    if not window.tags:
        return []
    return streams.tagged_posts(window.tags, _tag_pipeline(reader, window, projection))
