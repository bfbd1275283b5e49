"""The entities of discovery and the reader's own settings
(docs.joinmastodon.org/entities: Tag, Marker, Report; Filter and
FilterKeyword are in api/entities/filter.py), as plain functions over what
the apps below keep (docs/api.md#how-our-concepts-map)."""

from datetime import datetime
from typing import Any

from django.urls import reverse

from api.entities.dates import iso


def tag(
    name: str, base: str, *, history: list[dict] | None = None, following: bool | None = None
) -> dict:
    """A Tag: `history` as explore's `tag_history` counts it (uses and
    accounts as strings of numbers, days as UNIX times, as Mastodon sends
    them); `following` only for a reader."""
    entity: dict[str, Any] = {
        "id": name,
        "name": name,
        "url": base + reverse("explore:tag", args=[name]),
        "history": [
            {
                "day": str(int(day["day"].timestamp())),
                "uses": str(day["uses"]),
                "accounts": str(day["accounts"]),
            }
            for day in history or ()
        ],
    }
    if following is not None:
        entity["following"] = following
    return entity


def marker(kept: dict) -> dict:
    """A Marker: where the reader left a timeline."""
    return {
        "last_read_id": kept["last_read_id"],
        "version": int(kept.get("version") or 1),
        "updated_at": iso(kept["updated_at"]),
    }


#: Our report reasons as Mastodon's categories, and back.
CATEGORY_OF_REASON = {
    "spam": "spam",
    "illegal": "legal",
    "harassment": "violation",
    "other": "other",
}
REASON_OF_CATEGORY = {category: reason for reason, category in CATEGORY_OF_REASON.items()}


def report(
    *,
    report_id: str,
    reason: str,
    comment: str,
    created: datetime,
    status_ids: list[str],
    target_account: dict,
) -> dict:
    """A Report as its reporter sees it: nothing is decided when it is filed."""
    return {
        "id": report_id,
        "action_taken": False,
        "action_taken_at": None,
        "category": CATEGORY_OF_REASON.get(reason, "other"),
        "comment": comment,
        "forwarded": False,
        "created_at": iso(created),
        "status_ids": status_ids or None,
        "rule_ids": None,
        "target_account": target_account,
    }
