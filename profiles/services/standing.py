"""What other apps change on a user's document, through the app that owns
it: a person's standing (a moderator's suspension, its end, a role) and the
unread counts the notifications and the messages keep on it, read with the
user on every page.
Who may do so is decided by the caller (moderation, notifications).
"""

from datetime import datetime

from pymongo import UpdateOne

from profiles.documents import User

_users = User._get_collection


def user_suspension_set(*, handle: str, until: datetime | None, reason: str) -> None:
    _users().update_one(
        {"_id": handle},
        {"$set": {"status": "suspended", "suspended_until": until, "suspension_reason": reason}},
    )


def user_suspension_clear(*, handle: str) -> bool:
    """Lift a suspension; False when the user was not suspended (so, of
    concurrent callers, exactly one gets True)."""
    result = _users().update_one(
        {"_id": handle, "status": "suspended"},
        {"$set": {"status": "active"}, "$unset": {"suspended_until": "", "suspension_reason": ""}},
    )
    return result.modified_count > 0


def users_suspension_due(moment: datetime) -> list[str]:
    """Who is suspended until a date that has passed by `moment`."""
    rows = _users().find(
        {"status": "suspended", "suspended_until": {"$ne": None, "$lte": moment}}, {"_id": 1}
    )
    return [row["_id"] for row in rows]


def user_role_set(*, handle: str, role: str) -> bool:
    """False when there is no such user."""
    return _users().update_one({"_id": handle}, {"$set": {"role": role}}).matched_count > 0


# Every write to the unread count or `notifications_seen` bumps
# `notifications_version`, so a recount that read an older version cannot
# overwrite what landed meanwhile (`notifications_unread_set`).
_BUMP = {"notifications_version": 1}


def notifications_unread_add(*, handle: str, count: int = 1) -> None:
    _users().update_one({"_id": handle}, {"$inc": {"notifications_unread": count, **_BUMP}})


def notifications_unread_set(*, handle: str, unread: int, version: int) -> bool:
    """Set the count computed from the user read at `version`; False (nothing
    written) when a notification or a read moved the version since."""
    # A document written before versions existed has none: that is version 0.
    expected = version if version else {"$in": [None, 0]}
    result = _users().update_one(
        {"_id": handle, "notifications_version": expected},
        {"$set": {"notifications_unread": unread}, "$inc": _BUMP},
    )
    return result.matched_count > 0


def notifications_seen_set(*, handle: str, newest: datetime, unread_was: int | None) -> bool:
    """Move `notifications_seen` forward to `newest` (never back). With
    `unread_was`, only while the count is still that, and the count goes to
    0 with it; returns whether the document matched."""
    query: dict = {
        "_id": handle,
        "$or": [{"notifications_seen": None}, {"notifications_seen": {"$lte": newest}}],
    }
    changes: dict = {"notifications_seen": newest}
    if unread_was is not None:
        query["notifications_unread"] = unread_was
        changes["notifications_unread"] = 0
    return _users().update_one(query, {"$set": changes, "$inc": _BUMP}).matched_count > 0


def messages_unread_add(*, handles: list[str], delta: int) -> None:
    """The messaging app counts each person's unread conversations on their
    document (the header shows it with no read of its own): +1 for those a
    message made unread, -1 when one is read or left; never below 0."""
    if not handles:
        return
    query: dict = {"_id": {"$in": sorted(set(handles))}}
    if delta < 0:
        query["messages_unread"] = {"$gt": 0}
    _users().update_many(query, {"$inc": {"messages_unread": delta, "messages_version": 1}})


def messages_unread_set(*, handle: str, unread: int, version: int | None = None) -> bool:
    """A recount (the messaging app's own, from its conversations). With
    `version`, written only if `messages_version` is still that one: a
    change that landed after the recount's read makes it miss. True when
    written."""
    query: dict = {"_id": handle}
    if version is not None:
        query["$or"] = [{"messages_version": version}]
        if not version:  # a document from before the field, or never changed
            query["$or"].append({"messages_version": {"$exists": False}})
    update = {"$set": {"messages_unread": unread}, "$inc": {"messages_version": 1}}
    return _users().update_one(query, update).matched_count > 0


def posts_count_add(*, handle: str, delta: int) -> None:
    """The feeds count a person's posts on their document (the profile shows
    it); a decrement never takes it below 0."""
    query: dict = {"_id": handle}
    if delta < 0:
        query["posts_count"] = {"$gt": 0}
    _users().update_one(query, {"$inc": {"posts_count": delta}})


def bookmarks_count_add(*, handle: str, delta: int) -> None:
    """The feeds count a person's bookmarks on their document; a decrement
    never takes it below 0."""
    query: dict = {"_id": handle}
    if delta < 0:
        query["bookmarks_count"] = {"$gt": 0}
    _users().update_one(query, {"$inc": {"bookmarks_count": delta}})


def posts_counts_add(counts: dict[str, int]) -> None:
    """Many people's post counts at once (demo seeding, an erasure's posts): one bulk write."""
    if counts:
        _users().bulk_write(
            [UpdateOne({"_id": h}, {"$inc": {"posts_count": n}}) for h, n in counts.items()],
            ordered=False,
        )


def feed_rebuild_set(*, handle: str, started: datetime | None) -> None:
    """Mark (a datetime) or clear (None) the rebuild of a returning reader's
    news, which the feeds run (the feed page says it is on its way)."""
    if started is None:
        _users().update_one({"_id": handle}, {"$unset": {"feed_rebuild": ""}})
    else:
        _users().update_one({"_id": handle}, {"$set": {"feed_rebuild": started}})
