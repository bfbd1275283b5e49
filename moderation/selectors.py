"""Reads for the moderation pages."""

import re
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings

from feeds.documents import CARD_FIELDS, Post
from moderation.documents import AuditEntry, ReportedItem
from moderation.targets import post_excerpt
from profiles.documents import User
from profiles.services import name_terms
from socialsite.clock import aware, now

PAGE = 50


@dataclass
class Page:
    items: list
    next_cursor: str | None


def dashboard() -> dict:
    t = now()
    day, week = t - timedelta(days=1), t - timedelta(days=7)
    users, posts = User._get_collection(), Post._get_collection()
    pending = {"delivery.state": {"$in": ["pending", "delivering"]}}
    oldest = posts.find(pending, {"delivery.queued": 1}).sort("delivery.queued", 1).limit(1)
    oldest = next(iter(oldest), None)
    oldest_ts = aware(oldest["delivery"]["queued"]) if oldest else None
    from comments.selectors import comments_since

    return {
        "users": {
            "day": users.count_documents({"created": {"$gte": day}}),
            "week": users.count_documents({"created": {"$gte": week}}),
            "all": users.estimated_document_count(),
        },
        "posts": {
            "day": posts.count_documents({"ts": {"$gte": day}}),
            "week": posts.count_documents({"ts": {"$gte": week}}),
            "all": posts.estimated_document_count(),
        },
        "comments": {"day": comments_since(day), "week": comments_since(week)},
        "open_reports": ReportedItem._get_collection().count_documents({"status": "open"}),
        "suspended": users.count_documents({"status": "suspended"}),
        "backlog": posts.count_documents(pending),
        "oldest_pending": oldest_ts,
        "oldest_pending_seconds": int((t - oldest_ts).total_seconds()) if oldest_ts else None,
        "latest": list(AuditEntry.objects.order_by("-ts").limit(10)),
        "feed_model": settings.FEED_MODEL,
    }


def queue(*, status: str, target_type: str | None, reason: str | None, skip: int) -> tuple:
    """Reported items, most reporters first. Offset paging: the queue is
    short-lived and reordered by new reports, so a keyset would drift anyway."""
    query: dict = {"status": status}
    if target_type:
        query["target_type"] = target_type
    if reason:
        query["reasons"] = reason
    rows = list(
        ReportedItem.objects(__raw__=query)
        .order_by("-reporters", "-last_reported")
        .skip(skip)
        .limit(PAGE + 1)
    )
    return rows[:PAGE], len(rows) > PAGE


def find_users(q: str, skip: int = 0) -> tuple[list[User], bool]:
    """Handle or name prefix, any status (moderators see suspended users too)."""
    query: dict = {}
    terms = name_terms(q)
    if terms:
        prefix = "^" + re.escape(max(terms, key=len))
        handle_prefix = "^" + re.escape(re.sub(r"[^a-z0-9_]", "", q.lower()))
        clauses = [{"name_terms": {"$regex": prefix}}]
        if handle_prefix != "^":
            clauses.append({"_id": {"$regex": handle_prefix}})
        query = {"$or": clauses}
    rows = list(User.objects(__raw__=query).order_by("handle").skip(skip).limit(PAGE + 1))
    return rows[:PAGE], len(rows) > PAGE


def user_overview(handle: str) -> dict | None:
    user = User.objects(handle=handle).first()
    if user is None:
        return None
    from comments.selectors import recent_by_author

    posts = list(
        Post._get_collection().find({"by.id": handle}, CARD_FIELDS).sort("ts", -1).limit(10)
    )
    for post in posts:
        post["id"] = str(post["_id"])  # templates cannot read `_id`
        post["excerpt"] = post_excerpt(post) or post["type"]
    return {
        "person": user,
        "posts": posts,
        "comments": recent_by_author(handle, 10),
        "reports": list(ReportedItem.objects(author=handle).order_by("-last_reported").limit(20)),
        "actions": list(
            AuditEntry.objects(target_type="user", target_id=handle).order_by("-ts").limit(20)
        ),
    }


def log(*, moderator: str | None, action: str | None, target: str | None, skip: int) -> tuple:
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
    rows = list(
        AuditEntry.objects(__raw__=query).order_by("-ts", "-id").skip(skip).limit(PAGE + 1)
    )
    return rows[:PAGE], len(rows) > PAGE


def actions() -> list[str]:
    return sorted(AuditEntry._get_collection().distinct("action"))
