"""Reading notifications: the page, and the unread count it implies.

A page is at most two round trips besides the session: (1) the recipient's
newest buckets from the cursor on, in one `find` (NOTIFICATIONS_PAGE_BUCKETS
of them: a page needs the open bucket and the one before it, and one more
covers items hidden at show time), and (2) one `$in` read of the posts the
items are about, to drop removed and deleted posts and to decide, with
feeds/selectors/visibility.py, whether the recipient may still see them. Deciding a
circle post of someone else also needs that person's edge to the recipient:
one more indexed query, made only when such a post is on the page (a mention
or a reply in a circle post), exactly as on every other page.

Visibility is decided here, when the page is read: nothing from someone the
recipient blocked or muted (a like group shows only the likers who remain),
nothing about a post they can no longer see, nor about one their keyword
filters of the notifications context hide; one a warn filter matches is
marked, and shows folded (docs/privacy.md#keyword-filters). A page can therefore list fewer
items than its size; its `rel="next"` cursor still moves past every item it
read, so paging never repeats or skips one.
"""

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from bson import ObjectId
from django.conf import settings

from feeds.selectors import posts as feed_posts
from feeds.selectors.filtering import TEXT_FIELDS, match
from feeds.selectors.visibility import Sight
from notifications import buckets
from notifications.documents import NotificationBucket
from profiles.documents import User
from profiles.filters import NO_FILTERS, Filters, KeywordFilter, filters_for
from profiles.selectors import graph
from socialsite.clock import aware
from socialsite.cursors import Cursor, older_than, sort_key

POST_FIELDS = {
    "by": 1,
    "to": 1,
    "circles": 1,
    "removed": 1,
    "type": 1,
    # Every text a keyword filter matches on (the text and cw among them).
    **TEXT_FIELDS,
}
PAGE_BUCKETS = 3
EARLIEST = ObjectId("0" * 24)


@dataclass
class Notification:
    id: ObjectId
    kind: str
    actor: str
    actor_name: str
    ts: datetime
    unread: bool
    post_id: ObjectId | None = None
    comment: str | None = None
    post_text: str = ""
    others: int = 0  # likes: how many more people liked it
    filtered: KeywordFilter | None = None  # the warn filter its post matched
    # A moderator's removal ("removed"): of what, and why.
    what: str = ""
    reason: str = ""
    # A follow from someone the viewer does not follow: "Follow back".
    follow_back: bool = False


@dataclass
class NotificationPage:
    items: list[Notification]
    next_cursor: str | None
    newest: datetime | None  # the newest item stored, shown or not
    # The client API's paging and statuses (docs/api.md#notifications):
    # the first item read (shown or not), and the posts the items are about.
    first_cursor: str | None = None
    posts: dict[ObjectId, dict] = field(default_factory=dict)


def _read_buckets(owner: str, before: Cursor | None, limit: int) -> list[dict]:
    query: dict = {"owner": owner}
    if before is not None:
        query["min_ts"] = {"$lte": before.ts}
    rows = (
        buckets.collection()
        .find(query, {"items": 1, "min_ts": 1})
        .sort([("min_ts", -1)])
        .limit(limit)
    )
    return list(rows)


def _read_buckets_after(owner: str, after: Cursor, limit: int) -> list[dict]:
    """The oldest buckets holding anything at or after `after`, oldest first
    (the client API's `min_id`: the page right above a cursor)."""
    query = {"owner": owner, "max_ts": {"$gte": after.ts}}
    rows = (
        buckets.collection()
        .find(query, {"items": 1, "min_ts": 1})
        .sort([("max_ts", 1)])
        .limit(limit)
    )
    return list(rows)


def _hidden_people(viewer: User) -> set[str]:
    return set(viewer.blocked) | set(getattr(viewer, "muted", None) or [])


def _posts_seen_by(
    viewer: User, post_ids: Collection[ObjectId], fields: dict | None = None
) -> dict[ObjectId, dict]:
    """The posts among `post_ids` the viewer may see now: one `$in` read
    (of `fields` when the caller shows more of them than the page)."""
    if not post_ids:
        return {}
    rows = feed_posts.posts_read(post_ids, fields or POST_FIELDS)
    alive = [row for row in rows if row.get("removed") is None]
    return {post["_id"]: post for post in Sight(viewer).visible(alive)}


def _shown(
    item: dict,
    viewer: User,
    hidden: set[str],
    posts: dict,
    seen: datetime | None,
    filters: Filters = NO_FILTERS,
) -> Notification | None:
    """The item as the viewer may see it, or None when it is hidden."""
    post_id = item.get("post")
    post = posts.get(post_id) if post_id is not None else None
    if post_id is not None and post is None:
        return None
    matched = match(filters, post) if post is not None else None
    if matched is not None and matched.action == "hide":
        return None
    actor, others = item["actor"], 0
    if item["kind"] == "like":
        # The newest liker the viewer may hear of leads; the others are a
        # count: the named ones still visible, plus those past the names kept.
        named = item.get("actors", [actor])
        visible = [a for a in named if a not in hidden]
        if not visible:
            return None
        actor = visible[-1]
        others = len(visible) - 1 + max(item.get("actor_count", 1) - len(named), 0)
    elif actor in hidden:
        return None
    ts = aware(item["ts"])
    return Notification(
        id=item["id"],
        kind=item["kind"],
        actor=actor,
        actor_name=item.get("actor_name", "") if actor == item["actor"] else "",
        ts=ts,
        unread=seen is None or ts > seen,
        post_id=post_id,
        comment=item.get("comment"),
        post_text=_excerpt(post),
        others=others,
        filtered=matched,
        what=item.get("what", ""),
        reason=item.get("reason", ""),
    )


def notification_page(
    viewer: User,
    before: Cursor | None,
    *,
    after: Cursor | None = None,
    size: int | None = None,
    keep: Callable[[dict], bool] | None = None,
    post_fields: dict | None = None,
) -> NotificationPage:
    """A page of the viewer's notifications, newest first, older than
    `before`; or, with `after`, the `size` items just newer than it (the
    client API's `min_id`). `keep`: which stored items may be listed at all
    (the client API's `types[]` and `account_id`), `post_fields` the posts'
    fields to read when the caller shows the posts (docs/api.md#notifications)."""
    size = size or settings.NOTIFICATIONS_PAGE_SIZE
    if after is not None:
        rows = _read_buckets_after(viewer.handle, after, PAGE_BUCKETS)
    else:
        rows = _read_buckets(viewer.handle, before, PAGE_BUCKETS)
    stored = [item for row in rows for item in row["items"]]
    newest = max((aware(item["ts"]) for item in stored), default=None)
    wanted = (item for item in stored if keep is None or keep(item))
    if after is not None:
        candidates = sorted(
            (item for item in wanted if sort_key(item) > (after.ts, after.id)), key=sort_key
        )
        more = True  # the cursor itself is older
        candidates = candidates[:size][::-1]
    else:
        candidates = sorted(
            (item for item in wanted if older_than(item, before)), key=sort_key, reverse=True
        )
        more = len(candidates) > size or len(rows) == PAGE_BUCKETS
        candidates = candidates[:size]
    hidden = _hidden_people(viewer)
    posts = _posts_seen_by(
        viewer,
        {
            item["post"]
            for item in candidates
            if item.get("post") is not None
            and (item["actor"] not in hidden or item["kind"] == "like")
        },
        post_fields,
    )
    seen = aware(getattr(viewer, "notifications_seen", None))
    filters = filters_for(viewer, "notifications")
    items = [n for item in candidates if (n := _shown(item, viewer, hidden, posts, seen, filters))]
    _offer_follow_back(viewer, items)
    next_cursor = None
    if more:
        if candidates:
            next_cursor = Cursor.of(candidates[-1]).encode()
        elif rows and after is None:
            next_cursor = Cursor(aware(rows[-1]["min_ts"]), EARLIEST).encode()
    return NotificationPage(
        items=items,
        next_cursor=next_cursor,
        newest=newest,
        first_cursor=Cursor.of(candidates[0]).encode() if candidates else None,
        posts=posts,
    )


def _offer_follow_back(viewer: User, items: list[Notification]) -> None:
    """Mark the follows whose actor the viewer does not follow yet: one
    indexed read of the viewer's edges, and only on a page with follows."""
    followers = {n.actor for n in items if n.kind == "follow"}
    if not followers:
        return
    followed = graph.followed_among(viewer.handle, followers)
    for n in items:
        n.follow_back = n.kind == "follow" and n.actor not in followed


def unread_visible(viewer: User, *, max_buckets: int = 10) -> int:
    """How many unread items the page would list now (the header's number).

    Reads the buckets holding anything newer than `notifications_seen`; used
    after a block, a mute or a deletion, not on every page.
    """
    seen = aware(getattr(viewer, "notifications_seen", None))
    query: dict = {"owner": viewer.handle}
    if seen is not None:
        query["max_ts"] = {"$gt": seen}
    rows = buckets.collection().find(query, {"items": 1}).sort([("max_ts", -1)]).limit(max_buckets)
    unread = [i for row in rows for i in row["items"] if seen is None or aware(i["ts"]) > seen]
    hidden = _hidden_people(viewer)
    posts = _posts_seen_by(viewer, {i["post"] for i in unread if i.get("post") is not None})
    filters = filters_for(viewer, "notifications")
    return sum(1 for item in unread if _shown(item, viewer, hidden, posts, seen, filters))


def notifications_export(handle: str) -> Iterator[dict]:
    """The person's notifications, newest first, for their export: who
    (handles only) did what about which post."""
    rows = NotificationBucket._get_collection().find({"owner": handle}).sort("min_ts", -1)
    for bucket in rows:
        for item in sorted(bucket.get("items", []), key=lambda i: i["ts"], reverse=True):
            yield {
                "kind": item.get("kind"),
                "by": item.get("actors") or [item.get("actor")],
                "post": item.get("post"),
                "comment": item.get("comment"),
                "ts": item.get("ts"),
            }


def _excerpt(post: dict | None) -> str:
    """What a notification quotes of its post: the text, or only the content
    warning when it has one (the body waits behind it everywhere)."""
    detail = (post or {}).get("detail") or {}
    if detail.get("cw"):
        return f"Content warning: {detail['cw']}"[:80]
    return (detail.get("text") or "")[:80]
