"""The apps' domain events (socialsite/events.py), published as live events
(docs/live.md#what-streams).

Each receiver runs where the write was made, after it landed: a news entry
after the fan-out wrote it, a notification after it was stored, a message
after its conversation was updated. An event carries ids, never content: a
stream decides per reader, when it sends, what that reader may see of it
(live/views.py, api/streaming/), with the page's own selectors.
"""

from typing import Any

from bson import ObjectId

from live import broker, topics
from socialsite import events


def connect() -> None:
    for signal, receiver in (
        (events.news_delivered, news_delivered),
        (events.news_pulled, news_pulled),
        (events.post_created, post_created),
        (events.post_changed, post_changed),
        (events.post_deleted, post_gone),
        (events.post_removed, post_gone),
        (events.posts_deleted, posts_gone),
        (events.notified, notified),
        (events.message_sent, message_sent),
        (events.comment_created, comment_created),
    ):
        signal.connect(receiver, dispatch_uid=f"live.{receiver.__name__}.{id(signal)}")


def news_delivered(
    *, post_id: ObjectId, author: str, readers: list[str], repost_by: str | None, **_: Any
) -> None:
    data = {"post": str(post_id), "author": author, "repost_by": repost_by}
    broker.publish_many((topics.person(reader), "feed", data) for reader in readers)


def news_pulled(*, post_id: ObjectId, author: str, **_: Any) -> None:
    broker.publish(topics.author(author), "feed", {"post": str(post_id), "author": author})


def post_created(*, post: Any, **_: Any) -> None:
    data = {"post": str(post.id), "author": post.by.id}
    items = [(topics.POSTS, "post", data)]
    items += [(topics.tag(tag), "post", data) for tag in sorted(set(post.tags or ()))]
    broker.publish_many(items)


def post_changed(*, post_id: ObjectId, fields: list[str], **_: Any) -> None:
    if "edited" in fields:
        broker.publish(topics.CHANGES, "edit", {"post": str(post_id)})


def _gone(post_id: ObjectId, post: dict | None) -> dict[str, Any]:
    """A deleted or removed post's id, and, when the sender knew them, its
    author and audience: a stream tells of its going only readers who could
    have seen it (api/streaming/), since nothing is left to read then."""
    data: dict[str, Any] = {"post": str(post_id)}
    if post and post.get("circles") is not None and (post.get("by") or {}).get("id"):
        data.update(
            author=post["by"]["id"],
            circles=list(post["circles"]),
            to=post.get("to"),
            tags=list(post.get("tags") or ()),
        )
    return data


def post_gone(*, post_id: ObjectId, post: dict | None = None, **_: Any) -> None:
    broker.publish(topics.CHANGES, "delete", _gone(post_id, post))


def posts_gone(*, post_ids: list[ObjectId], posts: list[dict] | None = None, **_: Any) -> None:
    known = {p.get("_id"): p for p in posts or ()}
    broker.publish_many((topics.CHANGES, "delete", _gone(i, known.get(i))) for i in post_ids)


def notified(
    *, recipient: str, item_id: ObjectId | None, kind: str, counted: bool, **_: Any
) -> None:
    broker.publish(
        topics.person(recipient),
        "notification",
        {"item": str(item_id) if item_id else None, "kind": kind, "counted": counted},
    )


def message_sent(
    *,
    conversation_id: ObjectId,
    message_id: ObjectId,
    sender_handle: str,
    told: list[str],
    **_: Any,
) -> None:
    data = {"conversation": str(conversation_id), "message": str(message_id), "by": sender_handle}
    # The sender's own other tabs show it too.
    people = sorted({*told, sender_handle})
    broker.publish_many((topics.person(handle), "message", data) for handle in people)


def comment_created(*, post: dict, comment: Any, **_: Any) -> None:
    data = {"slug": comment.slug, "by": comment.author["id"]}
    broker.publish(topics.post(str(post["_id"])), "comment", data)
