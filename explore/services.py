"""Trending tags (docs/discovery.md#trends), counted as Mastodon counts them:
by distinct authors, not posts, so one person cannot push a tag.

A public post's tags are recorded when it is written: one `tag_use`
document per (tag, hour, author), an upsert by `_id` that adds the post to
the use's `posts`, so a second post in the same hour adds a post but no use,
and racing upserts agree (E11000 is the same use, written again to add the
post). A use lasts while one of its posts does: a post deleted, removed by a
moderator or edited to drop the tag is taken back (`tag_uses_take_back`),
and the use goes with its last post. The documents expire TREND_DAYS after
their hour. The trends page counts, per tag, the distinct authors of the
last 24 hours against a decaying average of the days before (selectors:
explore/selectors/trends.py).
"""

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta

from bson import ObjectId
from django.conf import settings
from pymongo import UpdateOne
from pymongo.errors import BulkWriteError

from explore.documents import HiddenTag, TagUse, TrendList
from feeds.documents import PUBLIC
from socialsite.clock import now

#: The most posts one use lists. An author's posts in one hour are bounded
#: by RATELIMIT_POST (30 in 5 minutes: 360 an hour), so a person never
#: reaches it; the cap keeps the document small (a few KB of ids) should
#: that limit be raised or bypassed (demo seeding, a script). A post past
#: the cap is not listed: the use then lasts while a listed post does.
POSTS_PER_USE = 400


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def _use_id(tag: str, hour: datetime, author: str) -> str:
    return f"{tag}|{hour:%Y%m%d%H}|{author}"


def _duplicates(exc: BulkWriteError) -> list[int]:
    """The indexes of the writes that failed on E11000; any other error raises."""
    errors = exc.details.get("writeErrors", [])
    if any(error.get("code") != 11000 for error in errors):
        raise exc
    return [error["index"] for error in errors]


def tag_uses_record(
    *,
    author: str,
    tags: list[str] | None,
    circles: list[str],
    ts: datetime | None = None,
    post_id: ObjectId | None = None,
) -> None:
    """Count `author`'s use of `tags` in the public post `post_id` written
    at `ts`. Without `post_id` (backdated history in tests) the use lists no
    post: nothing takes it back, it only expires."""
    if not tags or PUBLIC not in circles:
        return
    hour = _hour(ts or now())
    expires = hour + timedelta(days=settings.TREND_DAYS)
    if expires <= now():
        return  # before the trends' window (a restore, an old post's edit)
    writes = []
    for tag in tags:
        update: dict = {
            "$setOnInsert": {"tag": tag, "hour": hour, "author": author, "expires": expires}
        }
        if post_id is not None:
            update["$addToSet"] = {"posts": post_id}
        # A full use does not match: the upsert then fails on E11000, below.
        where = {
            "_id": _use_id(tag, hour, author),
            f"posts.{POSTS_PER_USE - 1}": {"$exists": False},
        }
        writes.append(UpdateOne(where, update, upsert=True))
    collection = TagUse._get_collection()
    try:
        collection.bulk_write(writes, ordered=False)
    except BulkWriteError as exc:
        # A racing upsert inserted the same use first, and this post is not
        # in it yet: once more, now an update. Failing again, the use is full
        # (POSTS_PER_USE): it stands anyway.
        again = [writes[index] for index in _duplicates(exc)]
        try:
            collection.bulk_write(again, ordered=False)
        except BulkWriteError as exc_again:
            _duplicates(exc_again)


def tag_uses_take_back(*, posts: Iterable[dict]) -> None:
    """Take the posts (each with `_id`, `by.id`, `ts` and the `tags` to take
    back) out of their uses, and delete the uses left with no post: a post
    deleted, removed by a moderator, or edited to drop a tag.

    One `$pull` a use (all its posts at once) in one bulk write, then one
    delete whose filter requires `posts` to be empty, so another post's
    racing record is never lost: it either lands before the delete (which
    then leaves the use) or inserts the use again after it. Nothing here
    upserts, so no E11000. A use recorded with no post never empties."""
    gone: dict[str, list[ObjectId]] = defaultdict(list)
    for post in posts:
        if not post.get("tags") or PUBLIC not in post.get("circles", [PUBLIC]):
            continue
        hour, author = _hour(post["ts"]), post["by"]["id"]
        for tag in post["tags"]:
            gone[_use_id(tag, hour, author)].append(post["_id"])
    if not gone:
        return
    collection = TagUse._get_collection()
    collection.bulk_write(
        [UpdateOne({"_id": use}, {"$pull": {"posts": {"$in": ids}}}) for use, ids in gone.items()],
        ordered=False,
    )
    collection.delete_many({"_id": {"$in": list(gone)}, "posts": {"$size": 0}})


def tag_uses_erase(handle: str, limit: int) -> int:
    """Erasure: the person's uses (docs/accounts.md#erasure)."""
    return TagUse._get_collection().delete_many({"author": handle}).deleted_count


def tag_trend_hide(*, tag: str) -> bool:
    """A moderator takes `tag` out of the trends. True when it was shown.
    The ranked list goes: pages rank again until the job keeps a new one."""
    result = HiddenTag._get_collection().update_one(
        {"_id": tag}, {"$setOnInsert": {"since": now()}}, upsert=True
    )
    trend_list_forget()
    return result.upserted_id is not None


def tag_trend_show(*, tag: str) -> bool:
    shown = HiddenTag._get_collection().delete_one({"_id": tag}).deleted_count == 1
    trend_list_forget()
    return shown


# The list kept for everyone (explore/selectors/trends.py `trending`).
EVERYONE = "everyone"


def trend_list_store(*, trends: list[dict], computed: datetime) -> None:
    """Keep the ranked list the periodic job computed (one write)."""
    TrendList._get_collection().replace_one(
        {"_id": EVERYONE}, {"computed": computed, "trends": trends}, upsert=True
    )


def trend_list_forget() -> None:
    TrendList._get_collection().delete_one({"_id": EVERYONE})


def trend_list_erase(handle: str, limit: int) -> int:
    """Erasure: a kept list that names the person goes (the job ranks again)."""
    return TrendList._get_collection().delete_many({"trends.today": handle}).deleted_count
