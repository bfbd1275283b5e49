"""Background work of the feeds, on Django's Tasks API.

Tests and the demo use the immediate backend; production sets TASKS_BACKEND
to a worker backend (see README). Arguments are strings: they cross a queue.
"""

from bson import ObjectId
from django.tasks import task

from feeds.delivery import fanout, upkeep


@task
def deliver_post(post_id: str) -> int:
    return fanout.deliver_post(ObjectId(post_id))


@task
def resync(reader: str, author: str) -> None:
    upkeep.resync(reader, author)


@task
def rebuild(owner: str, kind: str) -> None:
    upkeep.rebuild(owner, kind)


@task
def refresh_copies(post_id: str, fields: list[str]) -> None:
    upkeep.refresh_copies(ObjectId(post_id), fields)


@task
def refresh_counts(post_id: str) -> None:
    upkeep.refresh_counts(ObjectId(post_id))


@task
def sweep_counts() -> int:
    # The services enqueue this module's tasks: imported when run, not here.
    from feeds.services import counts

    return counts.counts_sweep()


@task
def refresh_circle_copies(owner: str, circle: str) -> None:
    upkeep.refresh_circle_copies(owner, circle)


@task
def deliver_repost(post_id: str, reposter: str) -> int:
    return fanout.deliver_repost(ObjectId(post_id), reposter)
