"""The trends follow the posts (docs/discovery.md#trends): each tag a public
post carries is one use, recorded at the post's hour when it is written or
restored, taken back when it is deleted, removed or edited away."""

from typing import Any

from django.dispatch import receiver

from explore import services
from socialsite import events


def _record(post: dict, tags: list[str] | None) -> None:
    services.tag_uses_record(
        author=post["by"]["id"],
        tags=tags,
        circles=post["circles"],
        ts=post["ts"],
        post_id=post["_id"],
    )


@receiver(events.post_created)
def _post_created(sender: object, post: Any, **kwargs: Any) -> None:
    services.tag_uses_record(
        author=post.by.id, tags=post.tags, circles=post.circles, ts=post.ts, post_id=post.id
    )


@receiver(events.post_tags_changed)
def _post_tags_changed(
    sender: object, post: dict, dropped: list[str], added: list[str], **kwargs: Any
) -> None:
    # Both at the post's own hour, where its other tags were counted.
    if dropped:
        services.tag_uses_take_back(posts=[{**post, "tags": dropped}])
    _record(post, added)


@receiver(events.post_deleted)
@receiver(events.post_removed)
def _post_gone(sender: object, post: dict, **kwargs: Any) -> None:
    services.tag_uses_take_back(posts=[post])


@receiver(events.posts_deleted)
def _posts_deleted(sender: object, posts: list[dict], **kwargs: Any) -> None:
    # The erased person's uses go whole (`tag_uses_erase`), but the posts
    # others wrote on their wall were counted as those others' uses.
    services.tag_uses_take_back(posts=posts)


@receiver(events.post_restored)
def _post_restored(sender: object, post: dict, **kwargs: Any) -> None:
    # Its tags count again, at its own hour, if that is still in the trends.
    _record(post, post.get("tags"))
