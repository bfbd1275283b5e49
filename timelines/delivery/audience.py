"""Who a delivery reaches, and the one write per store per batch.

Followers are read from the `followers` edge collection FEED_FANOUT_BATCH at
a time (covered keyset reads of its index, one round trip each); each batch
is filtered to active readers in one query (per FEED_ACTIVE_LOOKUP readers)
and written with one `update_many`/bulk write with `$in`, never one write
per follower. Readers not seen for FEED_ACTIVE_DAYS get nothing (as Mastodon
and Twitter do); their timelines are rebuilt when they return.
"""

from collections.abc import Iterator
from datetime import timedelta

from django.conf import settings

from feeds.documents import ALL_CIRCLES, PUBLIC
from profiles import selectors as people
from socialsite.clock import now
from timelines.stores.base import TimelineStore


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def audience(post: dict) -> Iterator[list[str]]:
    """Who gets the post in their news (`post()` in *Storing Updates and
    Profiles*), before filtering: batches of at most FEED_FANOUT_BATCH handles
    (the author joins the first),
    each read as it is delivered, so a celebrity's audience is never held whole.

    One `find` over every follower would come back in batches the server
    picks (101 documents, then up to 16 MiB each, one `getMore` apiece).
    Instead each batch is a keyset page of the `(_f, _t)` index
    (`profiles.selectors.audience_pages`): exactly one round trip per batch,
    targeted at the author's chunks on a cluster sharded on `{_f, _t}`.
    """
    author, circles = post["by"]["id"], post["circles"]
    pages = people.audience_pages(
        author,
        public=PUBLIC in circles,
        circles=None if ALL_CIRCLES in circles else circles,
        size=settings.FEED_FANOUT_BATCH,
    )
    extra = [author]
    for handles in pages:
        batch = sorted(set(handles) | set(extra))
        if batch:
            yield batch
        extra = []


def active_readers(readers: list[str], author: str, *, also: str | None = None) -> list[str]:
    """Readers seen lately, not suspended, who have not blocked the author
    (nor `also`: a repost's original author, whom such a reader never sees)."""
    cutoff = now() - timedelta(days=settings.FEED_ACTIVE_DAYS)
    authors = sorted({author} | ({also} if also is not None else set()))
    active = []
    for chunk in _chunks(readers, settings.FEED_ACTIVE_LOOKUP):
        active += people.readers_among(chunk, seen_since=cutoff, not_blocking=authors)
    return sorted(set(active) | ({author} & set(readers)))


def deliver_to(
    stores: list[TimelineStore], kind: str, owners: list[str], entry: dict, *, again: bool
) -> None:
    """One batch into every store: one write each. `again` (the delivery
    ran before and may have written some stores, or part of one) leaves out,
    per store, the owners that hold the entry already."""
    for store in stores:
        targets = owners
        if again:
            held = store.holding(kind, owners, entry)
            targets = [owner for owner in owners if owner not in held]
        if targets:
            store.deliver(kind, targets, entry)
