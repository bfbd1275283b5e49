"""What other apps announce that moderation records (socialsite/events.py)."""

from typing import Any

from bson import ObjectId
from django.dispatch import receiver

from comments.services import POST_AUTHOR_DELETE
from moderation.services.base import audit
from moderation.targets import Target
from socialsite import events


@receiver(
    events.comment_removed_by_post_author, dispatch_uid="moderation.comment_removed_by_post_author"
)
def _comment_removed_by_post_author(
    sender: object, post_id: ObjectId, slug: str, actor: str, author: str, text: str, **kwargs: Any
) -> None:
    # A post's author is a moderator of their own thread: the audit log
    # keeps what they took away, as it does for the moderators' removals.
    audit(
        moderator=actor,
        action=POST_AUTHOR_DELETE,
        target=Target("comment", f"{post_id}/{slug}"),
        text=text,
        author=author,
    )
