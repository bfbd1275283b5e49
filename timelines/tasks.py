"""Background work of the timelines, on Django's Tasks API.

Tests use the immediate backend, the demo the worker thread; production may
set TASKS_BACKEND to rq (see README). Arguments are strings: they cross a
queue. Nothing here is lost with a process (docs/operations.md#durable-background-work):
a post's and a repost's delivery keep their state on their own documents
(timelines/delivery/retry.py finishes them, run by feeds/sweeps.py's
`pending_swept`); the others are durable tasks, marked before they are
queued (socialsite/durable.py).
"""

from bson import ObjectId
from django.conf import settings
from django.tasks import task

from socialsite.durable import coalesced_task, durable_task
from timelines.delivery import fanout, upkeep


@task
def deliver_post(post_id: str) -> int:
    return fanout.deliver_post(ObjectId(post_id))


@durable_task
def resync(reader: str, author: str) -> None:
    upkeep.resync(reader, author)


@durable_task
def rebuild(owner: str, kind: str) -> None:
    upkeep.rebuild(owner, kind)


@coalesced_task
def refresh_post_copies(post_id: str, *, items: list[str]) -> None:
    upkeep.refresh_post_copies(ObjectId(post_id), items)


def copies_refresh_due(post_id: ObjectId, fields: list[str]) -> None:
    """Ask for the post's copies to follow `fields` (COUNTS for its likes and
    reposts): one run per post every FEED_COPIES_REFRESH_SECONDS however many
    ask, reaching only the timelines that hold it."""
    refresh_post_copies.enqueue_coalesced(
        f"copies:{post_id}",
        str(post_id),
        items=fields,
        delay=settings.FEED_COPIES_REFRESH_SECONDS,
    )


@durable_task
def refresh_circle_copies(owner: str, circle: str) -> None:
    upkeep.refresh_circle_copies(owner, circle)


@task
def deliver_repost(post_id: str, reposter: str) -> int:
    return fanout.deliver_repost(ObjectId(post_id), reposter)
