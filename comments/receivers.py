"""What the comments do when a post changes (socialsite/events.py)."""

from django.dispatch import receiver

from comments import services
from socialsite import events


@receiver(events.post_deleted, dispatch_uid="comments.post_deleted")
def _post_deleted(sender, post_id, **kwargs):
    services.discussions_delete(post_ids=[post_id])


@receiver(events.posts_deleted, dispatch_uid="comments.posts_deleted")
def _posts_deleted(sender, post_ids, **kwargs):
    services.discussions_delete(post_ids=post_ids)
