"""A timeline entry as stores keep it and pages read it (timelines/stores/base.py)."""

from datetime import datetime
from typing import TypedDict

from bson import ObjectId

from feeds.types import PostDict


class EntryDict(TypedDict, total=False):
    """A timeline entry (timelines/stores/base.py): the post's id, time,
    author and audience; with FEED_EMBED its copy under `post`; a repost's
    entry names the original under `of` and the reposter under `by`."""

    id: ObjectId
    ts: datetime
    by: str
    circles: list[str]
    post: PostDict
    of: ObjectId
