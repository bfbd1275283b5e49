"""Trending tags (docs/discovery.md#trends), counted as Mastodon counts them:
by distinct authors, not posts, so one person cannot push a tag.

A public post's tags are recorded when it is written: one `tag_use`
document per (tag, hour, author), an upsert by `_id`, so a second use in the
same hour changes nothing and racing upserts agree (E11000 is the same
use). The documents expire TREND_DAYS after their hour. The trends page
counts, per tag, the distinct authors of the last 24 hours against a
decaying average of the days before (selectors: feeds/selectors/trends.py).
"""

from datetime import datetime, timedelta

from django.conf import settings
from pymongo import UpdateOne
from pymongo.errors import BulkWriteError

from feeds.documents import PUBLIC, HiddenTag, TagUse
from socialsite.clock import now


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def tag_uses_record(
    *, author: str, tags: list[str] | None, circles: list[str], ts: datetime | None = None
) -> None:
    """Count `author`'s use of `tags` in a public post written at `ts`."""
    if not tags or PUBLIC not in circles:
        return
    hour = _hour(ts or now())
    expires = hour + timedelta(days=settings.TREND_DAYS)
    writes = [
        UpdateOne(
            {"_id": f"{tag}|{hour:%Y%m%d%H}|{author}"},
            {"$setOnInsert": {"tag": tag, "hour": hour, "author": author, "expires": expires}},
            upsert=True,
        )
        for tag in tags
    ]
    try:
        TagUse._get_collection().bulk_write(writes, ordered=False)
    except BulkWriteError as exc:  # a racing upsert made the same use first
        if any(error.get("code") != 11000 for error in exc.details.get("writeErrors", [])):
            raise


def tag_uses_erase(handle: str, limit: int) -> int:
    """Erasure: the person's uses (docs/accounts.md#erasure)."""
    return TagUse._get_collection().delete_many({"author": handle}).deleted_count


def tag_trend_hide(*, tag: str) -> bool:
    """A moderator takes `tag` out of the trends. True when it was shown."""
    result = HiddenTag._get_collection().update_one(
        {"_id": tag}, {"$setOnInsert": {"since": now()}}, upsert=True
    )
    return result.upserted_id is not None


def tag_trend_show(*, tag: str) -> bool:
    return HiddenTag._get_collection().delete_one({"_id": tag}).deleted_count == 1
