"""Every write to notifications: `notify` (called by the other apps' actions),
marking them read, recounting, and forgetting a deleted post.

`notify` never raises into the action that called it: a like must not fail
because its notification could not be stored. It creates nothing for one's
own actions, across a block (either way), from someone the recipient muted,
for a user who is gone or suspended, or about a post the recipient may not
see (a mention in a circle post they are not in) - the page would hide those
items, and the header's count must equal what the page lists, so they are
never counted in the first place.

The unread count (`notifications_unread` on the user document, which every
page already loads with the session) goes up by one when a new item is
stored or a read like group gets a new liker; opening the page sets it to 0
and `notifications_seen` to the newest item's time. Items that the page will
hide later (the actor gets blocked or muted, the post is deleted or removed
by a moderator, a comment is deleted) would leave it too high until then, so
those actions recount it (`notifications_recount`, race-safe against a
concurrent `notify`), and the page corrects it when opened.
"""

import logging
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from bson import ObjectId
from bson.errors import InvalidId

from feeds.selectors import posts as feed_posts
from feeds.selectors.filtering import TEXT_FIELDS, hidden
from feeds.selectors.visibility import can_see, circles_placed_in, needs_graph
from notifications import buckets
from notifications.documents import NotificationBucket
from profiles import selectors as profile_selectors
from profiles.documents import User
from profiles.filters import filters_of
from profiles.services import standing
from socialsite import events
from socialsite.clock import aware, now

log = logging.getLogger(__name__)

KINDS = ("follow", "like", "repost", "comment", "reply", "mention", "wall", "removed")
# The kinds that are always about a post (a mention may be in a post or a comment).
POST_KINDS = {"like", "repost", "comment", "reply", "mention", "wall"}
USER_FIELDS = {
    "name": 1,
    "blocked": 1,
    "muted": 1,
    "status": 1,
    "notifications_seen": 1,
    "filters": 1,
}
POST_FIELDS = {"by": 1, "to": 1, "circles": 1, "removed": 1, **TEXT_FIELDS}


def notify(
    *,
    recipient: str,
    kind: str,
    actor: str,
    post_id: str | ObjectId | None = None,
    comment_slug: str | None = None,
) -> None:
    """Tell `recipient` that `actor` did `kind` (about a post or a comment)."""
    try:
        _notify(recipient, kind, actor, post_id, comment_slug)
    except Exception:
        # Logged with its traceback; the caller's action has succeeded.
        log.exception("notification_failed", extra={"kind": kind, "recipient": recipient})


def _parse_post_id(value: object) -> ObjectId | None:
    if value is None or isinstance(value, ObjectId):
        return value
    try:
        return ObjectId(str(value))
    except (InvalidId, TypeError):
        return None


def _notify(
    recipient: str,
    kind: str,
    actor: str,
    post_id: str | ObjectId | None,
    comment_slug: str | None,
) -> None:
    if kind not in KINDS:
        log.warning("notification_unknown_kind", extra={"kind": kind})
        return
    if not recipient or not actor or recipient == actor:
        return
    post_id = _parse_post_id(post_id)
    if kind in POST_KINDS and post_id is None:
        return
    people = {
        row["_id"]: row for row in profile_selectors.users_read([recipient, actor], USER_FIELDS)
    }
    target, doer = people.get(recipient), people.get(actor)
    # Neither may be inactive: a notification queued before its actor's
    # erasure began (or a suspension) and run after it names no one gone.
    if target is None or doer is None or target.get("status") != "active":
        return
    if doer.get("status") != "active":
        return
    if actor in target.get("blocked", []) or recipient in doer.get("blocked", []):
        return
    if actor in target.get("muted", []):
        return
    post = None
    if post_id is not None:
        post = _seen_post(target, post_id)
        if post is None:
            return
    # Stored, but not counted, when the recipient's keyword filters hide its
    # post: the page will not list it while they do (docs/privacy.md#keyword-filters).
    filters = filters_of(target.get("filters"), "notifications", owner=target.get("_id"))
    counted = post is None or not hidden(filters, post)
    seen = aware(target.get("notifications_seen"))
    ts = now()
    if kind == "like" and post_id is not None:  # a like is always of a post (above)
        outcome = buckets.join_group(
            recipient,
            post_id=post_id,
            actor=actor,
            actor_name=doer.get("name", ""),
            ts=ts,
            unread_after=seen,
        )
        if outcome in ("already", "joined-unread"):
            return
        if outcome == "joined-read":
            if counted:
                _count_one_more(recipient)
            events.notified.send(
                sender=NotificationBucket,
                recipient=recipient,
                item_id=None,
                kind=kind,
                counted=counted,
            )
            return
    item = {
        "id": ObjectId(),
        "kind": kind,
        "actor": actor,
        "actor_name": doer.get("name", ""),
        "ts": ts,
    }
    if post_id is not None:
        item["post"] = post_id
    if comment_slug:
        item["comment"] = str(comment_slug)
    if kind == "like":
        item.update(actors=[actor], actor_count=1)
    if buckets.push_item(recipient, item):
        if counted:
            _count_one_more(recipient)
        events.notified.send(
            sender=NotificationBucket,
            recipient=recipient,
            item_id=item["id"],
            kind=kind,
            counted=counted,
        )


def notify_removed(*, author: str, subject: str, what: str, excerpt: str, reason: str) -> None:
    """Tell `author` a moderator removed their post or comment, and why: no
    actor (the moderators act as one), no link (the post is hidden). Its
    words are not copied here: they may name others, whose erasure would
    then have one more place to look (`excerpt` is for the page's record
    only, in the audit log)."""
    people = profile_selectors.users_read([author], USER_FIELDS)
    if not people or people[0].get("status") != "active":
        return
    item = {
        "id": ObjectId(),
        "kind": "removed",
        "subject": subject,
        "actor": "",
        "actor_name": "",
        "ts": now(),
        "what": "comment" if what == "comment" else "post",
        "reason": (reason or "")[:500],
    }
    if buckets.push_item(author, item):
        _count_one_more(author)


def _seen_post(target: dict, post_id: ObjectId) -> dict | None:
    """The post if the recipient may see it, else None."""
    post = feed_posts.post_read(post_id, POST_FIELDS)
    if post is None or post.get("removed") is not None:
        return None
    # A stand-in with what visibility reads of a viewer: the recipient is not
    # the signed-in user, and their document was read as a dict.
    viewer: Any = SimpleNamespace(
        is_authenticated=True, handle=target["_id"], blocked=target.get("blocked", [])
    )
    placed_in = {}
    if needs_graph(viewer, post):
        placed_in = circles_placed_in(viewer.handle, [post["by"]["id"]])
    return post if can_see(viewer, post, placed_in) else None


def _count_one_more(recipient: str) -> None:
    standing.notifications_unread_add(handle=recipient)


def notifications_mark_read(*, user: User, newest: datetime | None) -> None:
    """The page was opened: everything up to `newest` (the newest item stored
    when the page read the buckets) is read, and the count goes to 0.

    One write, and none when nothing is unread. Its filter only moves
    `notifications_seen` forward (a slower request that read less never
    un-reads anything) and expects the count the page loaded: a notification
    that arrived meanwhile has raised it, and is newer than `newest`, so the
    count is then recounted instead of zeroed.
    """
    loaded = getattr(user, "notifications_unread", 0) or 0
    seen = aware(getattr(user, "notifications_seen", None))
    if newest is None or (seen is not None and seen >= newest):
        if not loaded:
            return
        newest = seen or now()
    if not standing.notifications_seen_set(handle=user.handle, newest=newest, unread_was=loaded):
        standing.notifications_seen_set(handle=user.handle, newest=newest, unread_was=None)
        notifications_recount(owner=user.handle)


def notifications_recount(*, owner: str) -> None:
    """Set the owner's unread count to what the page would list now (after a
    block, a mute, a removal or a deletion hid some items, or an unmute or a
    restore showed them again).

    Race-safe: the count is written only if the user's
    `notifications_version` is still the one read, so a `notify` (or the
    page marking read) that landed between the read and the write is never
    overwritten; the recount then reads again, once. A `notify` whose item
    the recount counted but whose `$inc` came after it leaves the count one
    too high, never too low, until the page is opened.
    """
    from notifications import selectors  # selectors import services' constants

    for _attempt in range(2):
        user = User.objects(handle=owner).first()
        if user is None:
            return
        unread = selectors.unread_visible(user)
        version = getattr(user, "notifications_version", 0) or 0
        if standing.notifications_unread_set(handle=owner, unread=unread, version=version):
            return
    log.info("notification_recount_raced", extra={"owner": owner})


def notifications_forget_post(*, post_id: ObjectId) -> None:
    """A post was deleted: its notifications go, and their owners' counts follow."""
    for owner in buckets.forget_post(post_id):
        notifications_recount(owner=owner)


def notifications_forget_posts(*, post_ids: list[ObjectId]) -> None:
    for owner in buckets.forget_posts(post_ids):
        notifications_recount(owner=owner)


def notifications_forget_comment(*, post_id: ObjectId, slug: str) -> None:
    """A comment was deleted or removed by a moderator: the items about it go
    (a moderator's restore does not bring them back), and the counts follow."""
    for owner in buckets.forget_comment(post_id, str(slug)):
        notifications_recount(owner=owner)


def notifications_recount_about(*, post_id: ObjectId) -> None:
    """A moderator removed (or restored) a post: the page hides (or shows
    again) the items about it, so the count of everyone holding one follows."""
    for owner in buckets.owners_about(post_id):
        notifications_recount(owner=owner)


def notifications_erase(handle: str, limit: int) -> int:
    """Erasure (docs/accounts.md#erasure): their own buckets, then their
    name out of everyone else's (a batch), whose counts are recounted."""
    own = buckets.collection().delete_many({"owner": handle}).deleted_count
    if own:
        return own

    def names_of(handles: list[str]) -> dict[str, str]:
        rows = profile_selectors.users_read(handles, {"name": 1})
        return {row["_id"]: row.get("name", "") for row in rows}

    read, changed = buckets.erase_actor(handle, limit, names_of)
    for owner in sorted(set(changed)):
        notifications_recount(owner=owner)
    return read


def notifications_clear(*, owner: str) -> None:
    """Forget every notification of `owner` (the client API's "clear",
    docs/api.md#notifications): their buckets go, one delete on the
    `(owner, slot)` index, and the count follows (to 0, race-safe)."""
    buckets.collection().delete_many({"owner": owner})
    notifications_recount(owner=owner)


def notification_dismiss(*, owner: str, item_id: ObjectId, ts: datetime) -> bool:
    """Forget one notification of `owner` (the client API's "dismiss"): it
    leaves the bucket whose time range holds it (the `owner_min_ts` index
    finds it: no bucket is named without its shard key, so an `update_many`),
    and the count follows when it was there. The bucket's `size` stays: it
    counts pushes for the rollover, and a bucket a little emptier is fine."""
    changed = buckets.collection().update_many(
        {"owner": owner, "min_ts": {"$lte": ts}, "max_ts": {"$gte": ts}, "items.id": item_id},
        {"$pull": {"items": {"id": item_id}}},
    )
    if changed.modified_count:
        notifications_recount(owner=owner)
    return bool(changed.modified_count)
