"""Posts (the system of record) and the timeline documents of each storage model.

`post` is *Storing Updates and Profiles*'s `social.post`: minimal author info in `by`, audience in
`circles`, type-specific data isolated in `detail`. Timelines (`wall`,
`news`) are dependent collections: they can always be rebuilt from `post`
and the graph (`manage.py rebuild_feeds`).

One module per concept: posts, marks, timelines, discovery; every name
is importable from `feeds.documents`.
"""

from feeds.documents.discovery import HiddenTag, TagUse, TrendList
from feeds.documents.marks import Bookmark, PollVote, PostLike, PostRepost
from feeds.documents.posts import (
    ALL_CIRCLES,
    CARD_FIELDS,
    COUNTING,
    DELIVERY_STATES,
    LIVE,
    POST_TYPES,
    PUBLIC,
    Author,
    Delivery,
    PhotoChunk,
    PhotoFile,
    Post,
    PostRevision,
    Removal,
    card_exclusion,
    discussion_host,
)
from feeds.documents.timelines import CacheTimeline, MonthTimeline, PulledAuthor, SizeTimeline

__all__ = [
    "ALL_CIRCLES",
    "CARD_FIELDS",
    "COUNTING",
    "DELIVERY_STATES",
    "LIVE",
    "POST_TYPES",
    "PUBLIC",
    "Author",
    "Bookmark",
    "CacheTimeline",
    "Delivery",
    "HiddenTag",
    "MonthTimeline",
    "PhotoChunk",
    "PhotoFile",
    "PollVote",
    "Post",
    "PostLike",
    "PostRepost",
    "PostRevision",
    "PulledAuthor",
    "Removal",
    "SizeTimeline",
    "TagUse",
    "TrendList",
    "card_exclusion",
    "discussion_host",
]
