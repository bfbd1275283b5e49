"""The messaging app's collections in the owner registry (socialsite/owners.py)."""

from messaging import removals, selectors
from socialsite import owners

APP = "messaging"

owners.owned(
    "conversation",
    app=APP,
    fields=(
        "members.h",
        "members.name",
        "everyone",
        "active",
        "unread",
        "started_by",
        "last.by",
        "last.name",
    ),
    erase=removals.messages_erase,
)
owners.owned(
    "message_buckets",
    app=APP,
    fields=("messages.by", "messages.name", "messages.mentions"),
    # Their own messages are blanked with `conversation` (its eraser runs
    # first); this one rewrites their handle in everyone else's words, in
    # conversations they were never in too (docs/accounts.md#erasure).
    erase=removals.messages_unmention,
)
owners.owned(
    "conversation_key",
    app=APP,
    fields=("_id",),
    why="erased with `conversation`: a conversation they leave loses its key",
)
owners.exported("messages", app=APP, export=selectors.messages_export)
