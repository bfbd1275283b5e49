"""What the comments do when a post changes (socialsite/events.py)."""

from typing import Any

from bson import ObjectId
from django.dispatch import receiver

from comments import services, votes
from socialsite import events


@receiver(events.post_deleted, dispatch_uid="comments.post_deleted")
def _post_deleted(sender: object, post_id: ObjectId, **kwargs: Any) -> None:
    services.discussions_delete(post_ids=[post_id])
    votes.discussions_forget([post_id])


@receiver(events.posts_deleted, dispatch_uid="comments.posts_deleted")
def _posts_deleted(sender: object, post_ids: list[ObjectId], **kwargs: Any) -> None:
    services.discussions_delete(post_ids=post_ids)
    votes.discussions_forget(post_ids)


@receiver(events.pending_swept, dispatch_uid="comments.pending_swept")
def _pending_swept(sender: object, older_than_seconds: int | None, **kwargs: Any) -> str:
    """The sweeper's round (`redeliver_pending`): votes a dead process left
    uncounted are counted again. Answers a line for the command to print."""
    return f"{votes.votes_settle(older_than_seconds=older_than_seconds)} comment(s) recounted."
