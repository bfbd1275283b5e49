"""The comments app's collections in the owner registry (socialsite/owners.py)."""

from comments import selectors, services, votes
from socialsite import owners

APP = "comments"

owners.owned(
    "comments",
    app=APP,
    fields=("author.id", "author.name"),
    erase=services.comments_erase_author,
)
owners.owned(
    "comment_buckets",
    app=APP,
    fields=("comments.author.id", "comments.author.name"),
    why="erased with `comments`: the eraser walks every store",
)
owners.owned(
    "comment_log", app=APP, fields=("author",), why="erased with `comments`: the lines follow"
)
owners.owned("comment_budget", app=APP, fields=(), why="a post's byte count")
owners.exported("comments", app=APP, export=selectors.comments_export)
owners.owned(
    "comment_vote",
    app=APP,
    fields=("voter",),
    erase=votes.votes_erase,
)
owners.exported("comment_votes", app=APP, export=votes.votes_export)
