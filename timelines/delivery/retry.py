"""The delivery sweeper (timelines/delivery/fanout.py has the state machine):
queue again every delivery left `pending` or `delivering` too long, or give
it up after FEED_DELIVERY_MAX_ATTEMPTS. Apart from the machine because it
queues the tasks that run the machine (timelines/tasks.py imports the machine,
this module imports the tasks: no cycle)."""

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings

from feeds.selectors import delivery as records
from feeds.services import delivery as record_writes
from socialsite.clock import now
from timelines import tasks
from timelines.delivery.fanout import KINDS, POSTS, REPOSTS, Kind, give_up

# How each kind's delivery is queued again.
ENQUEUE: dict[Kind, Callable[[dict], object]] = {
    POSTS: lambda row: tasks.deliver_post.enqueue(str(row["_id"])),
    REPOSTS: lambda row: tasks.deliver_repost.enqueue(str(row["post"]), row["by"]),
}


def redeliver_pending(*, older_than_seconds: int | None = None) -> int:
    """The sweeper: queue again every delivery, of a post or a repost, that
    has been pending or running too long. One tried FEED_DELIVERY_MAX_ATTEMPTS
    times already (its worker kept dying, or its writes kept failing) is
    given up instead: never retried forever. Returns the deliveries queued."""
    seconds = settings.FEED_PENDING_SECONDS if older_than_seconds is None else older_than_seconds
    cutoff = now() - timedelta(seconds=seconds)
    return sum(_sweep(kind, cutoff) for kind in KINDS)


def _sweep(kind: Kind, cutoff: datetime) -> int:
    # Pending: queued long ago and never picked up. Delivering: a worker
    # started long ago and never finished (it died). A delivery merely
    # waiting behind a backlog was queued again recently: left alone.
    retry = []
    for row in records.deliveries_stuck(record=kind.record, cutoff=cutoff):
        attempts = (row.get("delivery") or {}).get("attempts") or 0
        if attempts >= settings.FEED_DELIVERY_MAX_ATTEMPTS:
            give_up(kind, kind.key(row), attempts, "still not delivered after its last attempt")
        else:
            retry.append(row)
    if retry:
        record_writes.deliveries_requeue(record=kind.record, ids=[row["_id"] for row in retry])
    for row in retry:
        ENQUEUE[kind](row)
    return len(retry)
