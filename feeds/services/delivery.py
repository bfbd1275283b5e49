"""The delivery state a post or a repost carries (`delivery`, *Storing
Updates and Profiles*'s post is the system of record): the timelines'
fan-out machine moves it through these writes (timelines/delivery/fanout.py
has the states), so only feeds writes its own documents.

`record` names the documents: "post" (`post`, key `_id`) or "repost"
(`post_repost`, key `post` + `by`, its shard key). Every write is on the
record's whole key.
"""

from pymongo import ReturnDocument, UpdateMany, UpdateOne

from feeds.documents import Post, PostRepost
from feeds.selectors.delivery import DELIVERING, DONE, FAILED, PENDING, RECORDS, UNFINISHED
from socialsite.clock import now


def delivery_claim(
    *, record: str, key: dict, claimable: dict, projection: dict | None
) -> dict | None:
    """Claim an unfinished delivery (counting an attempt); the record as
    claimed, or None when it is done already, gone, or not `claimable`."""
    return (
        RECORDS[record]
        ._get_collection()
        .find_one_and_update(
            {**key, "delivery.state": {"$in": UNFINISHED}, **claimable},
            {
                "$set": {"delivery.state": DELIVERING, "delivery.started": now()},
                "$inc": {"delivery.attempts": 1},
            },
            projection=projection,
            return_document=ReturnDocument.AFTER,
        )
    )


def delivery_finish(*, record: str, key: dict, readers: int) -> None:
    RECORDS[record]._get_collection().update_one(
        key,
        {
            "$set": {
                "delivery.state": DONE,
                "delivery.finished": now(),
                "delivery.readers": readers,
            }
        },
    )


def delivery_give_up(*, record: str, key: dict, error: str) -> bool:
    """Mark an unfinished delivery failed, with its error; whether this call
    marked it (one that finished meanwhile is left alone)."""
    marked = (
        RECORDS[record]
        ._get_collection()
        .update_one(
            {**key, "delivery.state": {"$in": UNFINISHED}},
            {
                "$set": {
                    "delivery.state": FAILED,
                    "delivery.failed": now(),
                    "delivery.error": error,
                }
            },
        )
    )
    return bool(marked.modified_count)


def deliveries_requeue(*, record: str, ids: list) -> None:
    """Mark these deliveries pending again, queued now (not one that
    finished meanwhile: it stays done)."""
    RECORDS[record]._get_collection().update_many(
        {"_id": {"$in": ids}, "delivery.state": {"$in": UNFINISHED}},
        {"$set": {"delivery.queued": now(), "delivery.state": PENDING}},
    )


def deliveries_done_seed(
    *, posts: dict, reposts: list[tuple[dict, int]], counts_copied: dict
) -> None:
    """The demo's bulk delivery done at once: each post (id -> readers) and
    repost ((key, readers)) marked delivered, one bulk write per collection;
    `counts_copied` (id -> `counts_v`): the posts whose copies were made
    with their counts."""
    t = now()

    def done(readers: int) -> dict:
        return {
            "delivery.state": DONE,
            "delivery.started": t,
            "delivery.finished": t,
            "delivery.attempts": 1,
            "delivery.readers": readers,
        }

    if posts:
        # One `update_many` per distinct change (readers, counts copied): a
        # few hundred for a world of 15,000 users, not an update per post.
        alike: dict[tuple, list] = {}
        for i, n in posts.items():
            alike.setdefault((n, counts_copied.get(i)), []).append(i)
        Post._get_collection().bulk_write(
            [
                UpdateMany(
                    {"_id": {"$in": ids}},
                    {"$set": {**done(n), **({"counts_copied": v} if v is not None else {})}},
                )
                for (n, v), ids in alike.items()
            ],
            ordered=False,
        )
    if reposts:
        PostRepost._get_collection().bulk_write(
            [UpdateOne(key, {"$set": done(n)}) for key, n in reposts], ordered=False
        )
