"""What the comments do when a post changes (socialsite/events.py)."""

from django.dispatch import receiver

from comments import services
from socialsite import events


@receiver(events.post_deleted, dispatch_uid="comments.post_deleted")
def _post_deleted(sender, post_id, **kwargs):
    services.discussion_delete(post_id=post_id)
