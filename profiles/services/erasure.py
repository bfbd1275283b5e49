"""Erasing an account (docs/accounts.md#erasure).

`erasure_begin` is what the delete page does at once: the account can no
longer sign in or be seen (status "erasing"), its sessions end, its handle is
held for HANDLE_HOLD_DAYS, and the walk is queued: the task
`profiles.tasks.erase_account` runs `erasure_run`
(profiles/services/erasure_walk.py), which erases the rest. The `user`
collection's own eraser is here too.
"""

from datetime import timedelta

from django.conf import settings

from profiles import tasks
from profiles.documents import ErasureJob, HeldHandle, User
from profiles.selectors import handle_digest
from socialsite.clock import now
from socialsite.sessions import end_sessions_of


def erasure_begin(*, user: User) -> None:
    """Close the account now; the walk erases the rest (a task)."""
    HeldHandle._get_collection().update_one(
        {"_id": handle_digest(user.handle)},
        {"$set": {"until": now() + timedelta(days=settings.HANDLE_HOLD_DAYS)}},
        upsert=True,
    )
    ErasureJob._get_collection().update_one(
        {"_id": user.handle},
        {"$setOnInsert": {"step": "", "started": now(), "beat": now(), "runs": 0}},
        upsert=True,
    )
    User._get_collection().update_one({"_id": user.handle}, {"$set": {"status": "erasing"}})
    end_sessions_of(user.handle)
    tasks.erase_account.enqueue(user.handle)


def user_erase(handle: str, limit: int) -> int:
    """The `user` collection's eraser: the person leaves everyone's block
    and mute lists, then their own document goes (the walk's last step of
    this app, so the erasers above could still read it)."""
    users = User._get_collection()
    changed = 0
    for field in ("blocked", "muted"):
        holders = [row["_id"] for row in users.find({field: handle}, {"_id": 1}).limit(limit)]
        if holders:
            users.update_many({"_id": {"$in": holders}}, {"$pull": {field: handle}})
            changed += len(holders)
    if changed:
        return changed
    return users.delete_one({"_id": handle}).deleted_count
