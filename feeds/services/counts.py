"""The sweeper's side of the likes and reposts counts: a request that died
between its mark and its `$inc` left its token on the post
(feeds/services/interactions.py), and this recounts such posts from their
marks. `manage.py redeliver_pending` runs it with the delivery sweeper
(docs/operations.md#sweepers-run-by-themselves), and so does the
periodic `feeds.pending` sweeper. The demo's marks are written here in bulk
(`marks_seed`, `counts_seed`: docs/features.md#the-demo)."""

from collections.abc import Iterable

from bson import ObjectId
from pymongo import UpdateOne

from feeds.documents import Post
from feeds.services import interactions
from feeds.services.likes import LIKES
from feeds.services.reposts import REPOSTS

KINDS: list[interactions.Interaction] = [LIKES, REPOSTS]


def counts_sweep(*, older_than_seconds: int | None = None) -> int:
    """Recount every post whose count token is older than
    `older_than_seconds` (default FEED_PENDING_SECONDS). Returns how many."""
    return interactions.counts_sweep(KINDS, older_than_seconds=older_than_seconds)


def marks_seed(
    *, likes: list[dict], reposts: list[dict], announce: Iterable[str] = (), newest: int = 12
) -> None:
    """The demo's likes and reposts, backdated, each kind in one insert
    (rows: `post`, `by`, `ts`, and a repost's `author`). Reposts wait for
    their delivery (`delivery` pending, as `repost_create` leaves them);
    `counts_seed` then sets the posts' counts from the marks. Marks on the
    posts of `announce` (the demo's login) are announced, as the site does,
    the `newest` of each kind, so their notifications show them."""
    pending = {"state": "pending", "attempts": 0}
    if likes:
        LIKES.collection().insert_many([dict(row) for row in likes])
    if reposts:
        rows = [{**row, "delivery": {**pending, "queued": row["ts"]}} for row in reposts]
        REPOSTS.collection().insert_many(rows)
    told = set(announce)
    for kind, rows in ((LIKES, likes), (REPOSTS, reposts)):
        theirs = sorted((r for r in rows if r.get("author") in told), key=lambda r: r["ts"])
        for row in theirs[-newest:] if newest else []:
            kind.announce(post_id=row["post"], author=row["author"], actor=row["by"])


def counts_seed(*, likes: list[dict], reposts: list[dict], copied: bool) -> list[ObjectId]:
    """Set freshly seeded posts' likes and reposts counts to the marks
    `marks_seed` wrote (the same rows), in one write for all, as the marks'
    `$inc`s would leave them (`counts_v` stepped once). `copied`: the posts
    are not delivered yet, so the copies their delivery makes will carry
    these counts (no `refresh_counts`). Returns the posts counted."""
    counts: dict = {}
    for kind, rows in ((LIKES, likes), (REPOSTS, reposts)):
        for row in rows:
            n = counts.setdefault(row["post"], dict.fromkeys((k.counter for k in KINDS), 0))
            n[kind.counter] += 1
    version = {"counts_v": 1, **({"counts_copied": 1} if copied else {})}
    writes = [
        UpdateOne({"_id": post_id, "counts_v": None}, {"$set": {**n, **version}})
        for post_id, n in counts.items()
    ]
    if writes:
        Post._get_collection().bulk_write(writes, ordered=False)
    return sorted(counts)


def counts_copied_set(*, post_id: ObjectId, version: int) -> None:
    """The embedded copies carry the counts at `version` now; never moved back."""
    Post._get_collection().update_one({"_id": post_id}, {"$max": {"counts_copied": version}})
