"""The timelines' collections in the owner registry (socialsite/owners.py)."""

from socialsite import owners
from timelines import services

APP = "timelines"

owners.owned("pulled_author", app=APP, fields=("_id",), erase=services.pulled_erase)
owners.owned(
    "timeline_cache", app=APP, fields=("owner", "entries.by"), erase=services.timelines_erase
)
for collection in ("timeline_month", "timeline_size"):
    owners.owned(
        collection,
        app=APP,
        fields=("owner", "entries.by"),
        why="erased with timeline_cache (every model's owner documents), and the"
        " entries with their posts",
    )
