"""The trending tags (docs/discovery.md#trends): per tag, the distinct
authors of the last 24 hours against a decaying average of each day before
(TREND_DAYS in all), as Mastodon ranks them. Ranking is one aggregate on
`tag_use`'s `(hour, tag)` index, the tags moderators hid left out, and is
done on a row per tag. A page does not rank: the periodic job
(explore/sweeps.py) ranks for everyone every TASKS_SWEEP_SECONDS and keeps
the list, with each tag's authors of the day, in one `trend_list` document;
`/explore/` reads it (one read) and takes the reader's blocked and muted
authors out of the tags shown. Without a list younger than
TRENDS_CACHE_SECONDS (no job ran, a moderator hid a tag), the page ranks
itself, for the reader."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings

from explore.documents import HiddenTag, TagUse, TrendList
from feeds.selectors.visibility import news_hidden
from socialsite.clock import aware, now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor
    from profiles.documents import User

# Each earlier day weighs half the one after it in the expected count.
DECAY = 0.5
# The authors of the day a kept trend names: enough to take a reader's
# blocks and mutes out of a small tag exactly; a tag past it is big enough
# that the few a reader hides do not change its rank.
TREND_AUTHORS_KEPT = 200
# How many trends the kept list holds, per TREND_LIMIT shown: room for the
# ones a reader's blocks and mutes push out.
KEPT_PER_SHOWN = 3


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
    """The trends for this reader: from the kept list when it is fresh (one
    read), ranked here otherwise (and always for a given time `at`)."""
    limit = limit or settings.TREND_LIMIT
    hidden = news_hidden(viewer)
    if at is None and settings.TRENDS_CACHE_SECONDS > 0:
        kept = TrendList._get_collection().find_one({"_id": "everyone"})
        fresh_after = now() - timedelta(seconds=settings.TRENDS_CACHE_SECONDS)
        if kept is not None and aware(kept["computed"]) >= fresh_after:
            return _for_reader(kept["trends"], hidden, limit)
    rows = _ranked(at or now(), hidden=hidden, today_authors=False)
    return [_trend(row) for row in rows[:limit]]


def trends_for_everyone(at: datetime | None = None) -> list[dict]:
    """What the periodic job keeps: the ranking with nobody's blocks, each
    trend with its authors of the day (up to TREND_AUTHORS_KEPT)."""
    rows = _ranked(at or now(), hidden=set(), today_authors=True)
    return rows[: settings.TREND_LIMIT * KEPT_PER_SHOWN]


def _trend(row: dict) -> Trend:
    return Trend(row["tag"], row["authors"], row["expected"], row["score"])


def _for_reader(kept: list[dict], hidden: set[str], limit: int) -> list[Trend]:
    """The kept trends with the reader's hidden authors taken out of each
    day's count: a tag they bring up to trending no longer does."""
    trends = []
    for row in kept:
        authors = row["authors"] - len(hidden.intersection(row.get("today") or ()))
        if authors > row["expected"]:
            trends.append(Trend(row["tag"], authors, row["expected"], authors - row["expected"]))
    trends.sort(key=lambda t: (-t.score, -t.authors, t.tag))
    return trends[:limit]


def _ranked(at: datetime, *, hidden: set[str], today_authors: bool) -> list[dict]:
    days = settings.TREND_DAYS
    # A use whose last post was just taken back, between its take-back's
    # pull and delete, is not counted (explore/services.py); a filter
    # on what the `(hour, tag)` scan fetches.
    match: dict = {"hour": {"$gte": at - timedelta(days=days)}, "posts": {"$ne": []}}
    tags_hidden = hidden_tags()
    if tags_hidden:
        match["tag"] = {"$nin": tags_hidden}
    if hidden:
        match["author"] = {"$nin": sorted(hidden)}
    day_group: dict = {"_id": {"tag": "$_id.tag", "day": "$_id.day"}, "n": {"$sum": 1}}
    tag_day: dict = {"day": "$_id.day", "n": "$n"}
    if today_authors:
        day_group["authors"] = {"$push": "$_id.author"}
        tag_day["authors"] = {
            "$cond": [
                {"$eq": ["$_id.day", 0]},
                {"$slice": ["$authors", TREND_AUTHORS_KEPT]},
                [],
            ]
        }
    rows = TagUse._get_collection().aggregate(
        [
            {"$match": match},
            {"$project": {"tag": 1, "author": 1, "day": _day_of(at, days)}},
            # An author once a day, however many hours they used the tag.
            {"$group": {"_id": {"tag": "$tag", "day": "$day", "author": "$author"}}},
            {"$group": day_group},
            {"$group": {"_id": "$_id.tag", "days": {"$push": tag_day}}},
        ]
    )
    ranked = []
    weights = [DECAY ** (day - 1) for day in range(1, days)]
    for row in rows:
        counts = {entry["day"]: entry["n"] for entry in row["days"]}
        today = counts.get(0, 0)
        past = [counts.get(day, 0) for day in range(1, days)]
        expected = sum(w * n for w, n in zip(weights, past, strict=True)) / sum(weights)
        if today and today > expected:
            trend = {
                "tag": row["_id"],
                "authors": today,
                "expected": round(expected, 2),
                "score": today - expected,
            }
            if today_authors:
                trend["today"] = next(
                    (entry["authors"] for entry in row["days"] if entry["day"] == 0), []
                )
            ranked.append(trend)
    ranked.sort(key=lambda t: (-t["score"], -t["authors"], t["tag"]))
    return ranked


#: Days a tag's history covers (Mastodon's Tag entity shows a week).
HISTORY_DAYS = 7


def tag_history(tags: list[str], *, at: datetime | None = None) -> dict[str, list[dict]]:
    """Per tag, its last HISTORY_DAYS days (at most TREND_DAYS: what
    `tag_use` keeps), newest first: the day's start, the posts that used
    it (each use lists at most POSTS_PER_USE) and its distinct authors.
    One aggregate on the `(hour, tag)` index for every tag asked."""
    if not tags:
        return {}
    at = at or now()
    days = min(HISTORY_DAYS, settings.TREND_DAYS)
    today = at.replace(hour=0, minute=0, second=0, microsecond=0)
    starts = [today - timedelta(days=day) for day in range(days)]
    rows = TagUse._get_collection().aggregate(
        [
            {"$match": {"hour": {"$gte": starts[-1]}, "tag": {"$in": sorted(set(tags))}}},
            {
                "$group": {
                    # By hour (each hour's uses are one per author); the
                    # hours are summed into days here, in the server's UTC.
                    "_id": {"tag": "$tag", "hour": "$hour"},
                    "uses": {"$sum": {"$size": "$posts"}},
                    "authors": {"$addToSet": "$author"},
                }
            },
        ]
    )
    counted: dict[tuple[str, int], tuple[int, set[str]]] = {}
    for row in rows:
        hour = aware(row["_id"]["hour"])
        day = (today - hour.replace(hour=0, minute=0, second=0, microsecond=0)).days
        if not 0 <= day < days:
            continue
        key = (row["_id"]["tag"], day)
        uses, authors = counted.get(key, (0, set()))
        counted[key] = (uses + row["uses"], authors | set(row["authors"]))
    history: dict[str, list[dict]] = {}
    for tag in tags:
        history[tag] = [
            {
                "day": starts[day],
                "uses": counted.get((tag, day), (0, set()))[0],
                "accounts": len(counted.get((tag, day), (0, set()))[1]),
            }
            for day in range(days)
        ]
    return history
