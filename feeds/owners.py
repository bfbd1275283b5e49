"""The feeds' collections in the owner registry (socialsite/owners.py)."""

from feeds.selectors import export
from feeds.services import bookmarks, erasure
from socialsite import owners

APP = "feeds"

# Marks first (their counts are on posts), then posts, then what is left.
owners.owned("post_like", app=APP, fields=("by",), erase=erasure.likes_erase)
owners.owned("post_repost", app=APP, fields=("by", "author"), erase=erasure.reposts_erase)
owners.owned("poll_vote", app=APP, fields=("voter",), erase=erasure.votes_erase)
owners.owned(
    "post",
    app=APP,
    fields=("by.id", "by.name", "to", "mentions", "removed.by", "comments_shown.by"),
    erase=erasure.posts_erase,
)
owners.owned("photos.files", app=APP, fields=("metadata.owner",), erase=erasure.photos_erase)
owners.owned("photos.chunks", app=APP, fields=(), why="the bytes of a photos.files file")

for name, function in (
    ("posts", export.posts_export),
    ("likes", export.likes_export),
    ("reposts", export.reposts_export),
    ("votes", export.votes_export),
    ("bookmarks", export.bookmarks_export),
):
    owners.exported(name, app=APP, export=function)
# Its `by` goes with `post` (a post's earlier versions go with it); the
# versions that named the person lose the handle.
owners.owned("post_revision", app=APP, fields=("by", "mentions"), erase=erasure.revisions_erase)
owners.owned("bookmark", app=APP, fields=("owner",), erase=bookmarks.bookmarks_erase)
