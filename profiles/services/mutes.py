"""Mutes: the muted person's posts, reposts and notifications leave the
muter's pages. Unlike a block it changes nothing for them: no follow ends,
they can still reach the muter, and they are not told.

The list lives on the muter's document (`User.muted`, beside `blocked`),
since every page already loads that document: hiding a muted author costs no
query. It is bounded (MAX_MUTES) by the update itself, so concurrent mutes
cannot grow it past the cap.
"""

from profiles.documents import User
from profiles.services.users import GraphError, UnknownUser
from socialsite import events

MAX_MUTES = 1000


def mute_create(*, user: User, handle: str) -> bool:
    """`user` mutes `handle`. Idempotent; True when the list changed."""
    if user.handle == handle:
        raise GraphError("You can't mute yourself.")
    if not User.objects(handle=handle).only("handle").first():
        raise UnknownUser(handle)
    # `muted.<cap-1>` missing means fewer than MAX_MUTES entries: the cap is
    # part of the update's filter, so it holds however many mutes race.
    changed = User._get_collection().update_one(
        {"_id": user.handle, f"muted.{MAX_MUTES - 1}": {"$exists": False}},
        {"$addToSet": {"muted": handle}},
    )
    if changed.matched_count == 0 and handle not in user.muted:
        raise GraphError(f"You can mute at most {MAX_MUTES} people. Unmute someone first.")
    added = handle not in user.muted
    if added:
        user.muted.append(handle)
        events.muted.send(sender=User, muter=user.handle, muted=handle)
    return added


def mute_delete(*, user: User, handle: str) -> bool:
    """Unmute. Idempotent; True when `handle` was muted."""
    User._get_collection().update_one({"_id": user.handle}, {"$pull": {"muted": handle}})
    removed = handle in user.muted
    if removed:
        user.muted.remove(handle)
        events.unmuted.send(sender=User, muter=user.handle, muted=handle)
    return removed
