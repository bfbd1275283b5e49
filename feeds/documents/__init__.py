"""Posts (the system of record), the marks people leave on them, and discovery.

`post` is *Storing Updates and Profiles*'s `social.post`: minimal author info in `by`, audience in
`circles`, type-specific data isolated in `detail`. The timelines built from
posts are the `timelines` app's (timelines/documents.py): they can always be
rebuilt from `post` and the graph (`manage.py rebuild_feeds`).

One module per concept: posts, marks; every name is importable
from `feeds.documents`.
"""

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
    "Delivery",
    "PhotoChunk",
    "PhotoFile",
    "PollVote",
    "Post",
    "PostLike",
    "PostRepost",
    "PostRevision",
    "Removal",
    "card_exclusion",
    "discussion_host",
]
