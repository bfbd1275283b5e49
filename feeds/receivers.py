"""Graph changes that change posts: a block ends the reposts between the two,
a circle rename renames the circle in the posts shared with it. The
timelines follow in their own receivers (timelines/receivers.py)."""

from typing import Any

from django.dispatch import receiver

from feeds.documents import Post
from feeds.services import reposts
from socialsite import events


@receiver(events.blocked)
def _blocked(sender: object, blocker: str, blocked: str, **kwargs: Any) -> None:
    # Neither may repost the other's posts (docs/privacy.md): past reposts end.
    reposts.reposts_across_block_delete(blocker=blocker, blocked=blocked)


@receiver(events.circle_renamed)
def _circle_renamed(sender: object, owner: str, old: str, new: str, **kwargs: Any) -> None:
    # Posts name their circles; they follow the rename so their audience stays.
    posts = Post._get_collection()
    posts.update_many({"by.id": owner, "circles": old}, {"$addToSet": {"circles": new}})
    posts.update_many({"by.id": owner, "circles": old}, {"$pull": {"circles": old}})
    events.post_circles_renamed.send(sender=Post, owner=owner, circle=new)
