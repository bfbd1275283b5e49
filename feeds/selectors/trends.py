"""The trending tags (docs/discovery.md#trends): per tag, the distinct
authors of the last 24 hours against a decaying average of each day before
(TREND_DAYS in all), as Mastodon ranks them. One aggregate on `tag_use`'s
`(hour, tag)` index, the reader's blocked and muted authors and the tags
moderators hid left out; the ranking is done here, on a row per tag."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings

from feeds.documents import HiddenTag, TagUse
from feeds.selectors.visibility import news_hidden
from socialsite.clock import now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User

# Each earlier day weighs half the one after it in the expected count.
DECAY = 0.5


@dataclass(frozen=True)
class Trend:
    tag: str
    authors: int  # distinct authors in the last 24 hours
    expected: float  # the decaying average of the days before
    score: float


def hidden_tags() -> list[str]:
    """Every tag moderators hid (a short list), in order: a walk of the
    `_id` index, covered."""
    rows = HiddenTag._get_collection().find({"_id": {"$gte": ""}}, {"_id": 1}).sort("_id", 1)
    return [row["_id"] for row in rows]


def _day_of(at: datetime, days: int) -> dict:
    """0 for the last 24 hours, 1 for the day before, and so on."""
    expression: dict | int = days - 1
    for day in range(days - 2, -1, -1):
        expression = {
            "$cond": [{"$gte": ["$hour", at - timedelta(days=day + 1)]}, day, expression]
        }
    assert isinstance(expression, dict)
    return expression


def trending(
    viewer: "User | AnonymousVisitor", *, at: datetime | None = None, limit: int | None = None
) -> list[Trend]:
    at, days = at or now(), settings.TREND_DAYS
    # A use whose last post was just taken back, between its take-back's
    # pull and delete, is not counted (feeds/services/trends.py); a filter
    # on what the `(hour, tag)` scan fetches.
    match: dict = {"hour": {"$gte": at - timedelta(days=days)}, "posts": {"$ne": []}}
    hidden, tags_hidden = sorted(news_hidden(viewer)), hidden_tags()
    if tags_hidden:
        match["tag"] = {"$nin": tags_hidden}
    if hidden:
        match["author"] = {"$nin": hidden}
    rows = TagUse._get_collection().aggregate(
        [
            {"$match": match},
            {"$project": {"tag": 1, "author": 1, "day": _day_of(at, days)}},
            # An author once a day, however many hours they used the tag.
            {"$group": {"_id": {"tag": "$tag", "day": "$day", "author": "$author"}}},
            {"$group": {"_id": {"tag": "$_id.tag", "day": "$_id.day"}, "n": {"$sum": 1}}},
            {"$group": {"_id": "$_id.tag", "days": {"$push": {"day": "$_id.day", "n": "$n"}}}},
        ]
    )
    trends = []
    weights = [DECAY ** (day - 1) for day in range(1, days)]
    for row in rows:
        counts = {entry["day"]: entry["n"] for entry in row["days"]}
        today = counts.get(0, 0)
        past = [counts.get(day, 0) for day in range(1, days)]
        expected = sum(w * n for w, n in zip(weights, past, strict=True)) / sum(weights)
        if today and today > expected:
            trends.append(Trend(row["_id"], today, round(expected, 2), today - expected))
    trends.sort(key=lambda t: (-t.score, -t.authors, t.tag))
    return trends[: limit or settings.TREND_LIMIT]
