"""The timelines' part of an erasure (docs/accounts.md#erasure): each
function is one collection's eraser in the owner registry
(timelines/owners.py). The entries that show an erased person's posts leave
with the posts (feeds announces them, timelines/receivers.py)."""

from timelines.documents import PulledAuthor
from timelines.selectors import pulled
from timelines.stores import stored_models


def pulled_erase(handle: str, limit: int) -> int:
    deleted = PulledAuthor._get_collection().delete_one({"_id": handle}).deleted_count
    if deleted:
        pulled.forget()
    return deleted


def timelines_erase(handle: str, limit: int) -> int:
    """Their own walls and news, under every model (a past setting's too)."""
    return sum(store.owner_erase(handle) for store in stored_models())
