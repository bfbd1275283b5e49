"""Reads for the moderation pages."""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from feeds.selectors import posts as feed_posts
from moderation.documents import AuditEntry, Report, ReportedItem
from moderation.targets import post_excerpt
from profiles import selectors as people
from profiles.documents import STATUSES as USER_STATUSES
from profiles.documents import User
from profiles.selectors import matching_people
from socialsite import active, durable
from socialsite.clock import aware, now
from socialsite.cursors import EPOCH, MAX_MILLIS, ONE_MS
from socialsite.ids import parse_object_id

PAGE = 50


@dataclass
class Page:
    items: list[User]
    next_cursor: str | None


def dashboard() -> dict:
    t = now()
    day, week = t - timedelta(days=1), t - timedelta(days=7)
    posts = feed_posts.posts_counts(day, week)
    oldest_ts = aware(posts["oldest_pending"])
    users = people.users_counts(day, week, USER_STATUSES)
    from comments.selectors import comments_since

    return {
        "users": {name: users[name] for name in ("day", "week", "all")},
        "posts": {name: posts[name] for name in ("day", "week", "all")},
        "comments": {"day": comments_since(day), "week": comments_since(week)},
        "open_reports": ReportedItem._get_collection().count_documents({"status": "open"}),
        "suspended": users["suspended"],
        "backlog": posts["backlog"],
        "failed": failed_deliveries(),
        "oldest_pending": oldest_ts,
        "oldest_pending_seconds": int((t - oldest_ts).total_seconds()) if oldest_ts else None,
        "latest": list(AuditEntry.objects.order_by("-ts", "-id").limit(10)),
        "feed_model": active.timeline_model(),
        **background_work(),
    }


def background_work() -> dict:
    """The durable tasks' backlog per kind and the latest failed ones
    (socialsite/durable.py): one read, two when some failed."""
    tasks = durable.health()
    any_failed = any(entry["failed"] for entry in tasks.values())
    return {
        "tasks": tasks,
        "failed_tasks": durable.failed(limit=FAILED_SHOWN) if any_failed else [],
    }


#: How many failed deliveries the dashboard lists (the count covers them all).
FAILED_SHOWN = 10


def failed_deliveries() -> dict:
    """Posts whose fan-out was given up (feeds/selectors/posts.py): how many,
    and the latest few."""
    count, rows = feed_posts.failed_deliveries(FAILED_SHOWN)
    return {
        "count": count,
        "latest": [
            {
                "id": str(row["_id"]),
                "author": row["by"]["id"],
                "attempts": row["delivery"].get("attempts") or 0,
                "error": row["delivery"].get("error") or "",
                "at": aware(row["delivery"].get("failed")),
            }
            for row in rows
        ],
    }


def queue(
    *,
    status: str,
    target_type: str | None,
    reason: str | None,
    before: str | None = None,
    after: str | None = None,
) -> "KeysetPage[ReportedItem]":
    """Reported items, most reporters first, a keyset page of the `queue_*page`
    index of the filter. A new report moves an item up; the keyset then shows
    it once or not at all on this walk, where an offset would shift every row."""
    query: dict = {"status": status}
    if target_type:
        query["target_type"] = target_type
    if reason:
        query["reasons"] = reason
    page = _keyset(ReportedItem, query, QUEUE_ORDER, before=before, after=after)
    notes = report_notes(page.items, status=status)
    for item in page.items:
        item.notes = notes.get((item.target_type, item.target_id), [])
    return page


#: The most notes the queue shows per item (the newest).
NOTES_SHOWN = 5


def report_notes(items: "list[ReportedItem]", *, status: str) -> dict[tuple[str, str], list[dict]]:
    """What the reporters wrote, for the items of one queue page: one query
    on `report`'s (target_type, target_id, status) index, an `$or` of the
    page's items (at most a page of them). Newest first, NOTES_SHOWN per item.
    Read when the page is, so an erased reporter's note is gone at once."""
    if not items:
        return {}
    clauses = [
        {"target_type": item.target_type, "target_id": item.target_id, "status": status}
        for item in items
    ]
    rows = Report._get_collection().find(
        {"$or": clauses, "note": {"$gt": ""}},
        {"target_type": 1, "target_id": 1, "reporter": 1, "reason": 1, "note": 1, "updated": 1},
    )
    notes: dict[tuple[str, str], list[dict]] = {}
    for row in sorted(rows, key=lambda r: r["updated"], reverse=True):
        kept = notes.setdefault((row["target_type"], row["target_id"]), [])
        if len(kept) < NOTES_SHOWN:
            kept.append({"by": row["reporter"], "reason": row["reason"], "note": row["note"]})
    return notes


USER_FIELDS = (
    "handle",
    "name",
    "role",
    "status",
    "followers_count",
    "posts_count",
    "created",
)


def find_users(q: str, after: str | None = None) -> Page:
    """Handle or name prefix, any status (moderators see suspended users too),
    keyset-paginated by handle like people search."""
    if q:
        users = matching_people(q, after=after, limit=PAGE + 1, status=None, fields=USER_FIELDS)
    else:  # everyone, a walk of the `_id` index
        query = {"_id": {"$gt": after}} if after else {}
        everyone = User.objects(__raw__=query).only(*USER_FIELDS).order_by("handle")
        users = list(everyone.limit(PAGE + 1))
    return Page(users[:PAGE], users[PAGE - 1].handle if len(users) > PAGE else None)


def user_overview(handle: str) -> dict | None:
    user = User.objects(handle=handle).first()
    if user is None:
        return None
    from comments.selectors import recent_by_author

    posts = feed_posts.posts_by_author(handle, 10)
    for post in posts:
        post["id"] = str(post["_id"])  # templates cannot read `_id`
        post["excerpt"] = post_excerpt(post) or post["type"]
    return {
        "person": user,
        "posts": posts,
        "comments": recent_by_author(handle, 10),
        "reports": list(ReportedItem.objects(author=handle).order_by("-last_reported").limit(20)),
        "actions": list(
            AuditEntry.objects(target_type="user", target_id=handle)
            .order_by("-ts", "-id")
            .limit(20)
        ),
    }


def log(
    *,
    moderator: str | None,
    action: str | None,
    target: str | None,
    before: str | None = None,
    after: str | None = None,
) -> "KeysetPage[AuditEntry]":
    """The audit log newest first, a keyset page on (ts, _id) of the index its
    filter names (`ts`, `moderator_ts_id`, `action_ts_id`, `target_*ts_id`)."""
    query: dict = {}
    if moderator:
        query["moderator"] = moderator
    if action:
        query["action"] = action
    if target:
        kind, _, target_id = target.partition(":")
        query["target_type"] = kind
        if target_id:
            query["target_id"] = target_id
    return _keyset(AuditEntry, query, LOG_ORDER, before=before, after=after)


def actions() -> list[str]:
    return sorted(AuditEntry._get_collection().distinct("action"))


# --- keyset pages -------------------------------------------------------------

# The sort keys of each page, all descending, `_id` last so no two rows tie.
QUEUE_ORDER = ("reporters", "last_reported", "_id")
LOG_ORDER = ("ts", "_id")


@dataclass
class KeysetPage[T]:
    """Rows newest (or most reported) first, with the cursors of the pages
    beside it: `older` for rel="next", `newer` for rel="prev"."""

    items: list[T]
    older: str | None
    newer: str | None


def _keyset(
    document: type[ReportedItem] | type[AuditEntry],
    query: dict,
    order: tuple[str, ...],
    *,
    before: str | None,
    after: str | None,
) -> KeysetPage[Any]:
    """One page of `document` in descending `order`, after `before` or before `after`.

    The cursor condition is a plain range on the first key, which the index
    bounds, and a tie-break `$or` on the rest (`_id` last, so no two rows tie).
    """
    start = _decode(before, order) if before else None
    end = _decode(after, order) if after and start is None else None
    descending = end is None
    bound = start or end
    if bound:
        query = {"$and": [query, _beyond(order, bound, "$lt" if descending else "$gt")]}
    direction = -1 if descending else 1
    rows = list(
        document._get_collection()
        .find(query)
        .sort([(field, direction) for field in order])
        .limit(PAGE + 1)
    )
    more, rows = len(rows) > PAGE, rows[:PAGE]
    if not descending:
        rows.reverse()
    items = [document._from_son(row) for row in rows]
    edge_older = more if descending else bool(rows)
    edge_newer = bool(rows) and ((not descending and more) or start is not None)
    return KeysetPage(
        items,
        _encode(rows[-1], order) if edge_older else None,
        _encode(rows[0], order) if edge_newer else None,
    )


def _beyond(order: tuple[str, ...], values: tuple[object, ...], op: str) -> dict:
    """`(order) op values` in lexicographic order."""
    clauses = []
    for position, field in enumerate(order):
        clause = dict(zip(order[:position], values[:position], strict=True))
        clause[field] = {op: values[position]}
        clauses.append(clause)
    bound = "$lte" if op == "$lt" else "$gte"
    return {"$and": [{order[0]: {bound: values[0]}}, {"$or": clauses}]}


def _encode(row: dict, order: tuple[str, ...]) -> str:
    values = []
    for field in order:
        value = row[field]
        if isinstance(value, datetime):
            value = (aware(value) - EPOCH) // ONE_MS
        values.append(str(value))
    return "_".join(values)


def _decode(raw: object, order: tuple[str, ...]) -> tuple[object, ...] | None:
    """A cursor's values, typed by `order`, or None for anything malformed
    (the first page then): never a dict or operator into the query."""
    if not isinstance(raw, str) or len(raw) > 400:
        return None
    parts = raw.split("_", len(order) - 1)
    if len(parts) != len(order) or not all(p.isascii() and p for p in parts):
        return None
    typed: list[object] = []
    for field, part in zip(order, parts, strict=True):
        if field in ("ts", "last_reported"):
            if not part.isdigit() or len(part) > 15 or int(part) > MAX_MILLIS:
                return None
            typed.append(EPOCH + int(part) * ONE_MS)
        elif field == "reporters":
            if not part.isdigit() or len(part) > 9:
                return None
            typed.append(int(part))
        elif order == LOG_ORDER:  # the audit log's `_id` is an ObjectId
            object_id = parse_object_id(part)
            if object_id is None:
                return None
            typed.append(object_id)
        else:  # the queue's `_id` is its "<type>:<target id>" key
            typed.append(part)
    return tuple(typed)


def reports_export(handle: str) -> Iterator[dict]:
    """The reports the person filed, for their export: what they reported
    (an id), why, and what became of it."""
    rows = Report._get_collection().find({"reporter": handle}).sort("created", -1)
    for row in rows:
        yield {
            "target": f"{row['target_type']}:{row['target_id']}",
            "reason": row["reason"],
            "note": row.get("note", ""),
            "status": row.get("status"),
            "created": row.get("created"),
        }


def report_of(target_type: str, target_id: str, reporter: str) -> dict | None:
    """One person's report of one item (the unique `target_reporter` index)."""
    return Report._get_collection().find_one(
        {"target_type": target_type, "target_id": target_id, "reporter": reporter},
        {"_id": 1, "reason": 1, "note": 1, "created": 1},
    )
