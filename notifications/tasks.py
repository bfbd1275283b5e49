"""Notifications are written by tasks, never inside the request that caused
them: a post that mentions ten people, a like or a follow answers at once,
and the people concerned hear of it a moment later
(docs/performance.md#writes-never-wait-for-fan-out). Arguments are strings: they cross a queue.
`notify` keeps its own rules (blocks, mutes, one's own actions, sight of the
post) and swallows its own failures. The tasks are durable (socialsite/durable.py):
marked before they are queued, so a process that dies with one queued tells
the person a lease later; a second run is no news twice (the open bucket
refuses the same event)."""

from notifications import events
from notifications.services import notify
from socialsite.durable import durable_task


@durable_task
def tell(
    recipient: str,
    kind: str,
    actor: str,
    post_id: str | None = None,
    comment_slug: str | None = None,
) -> None:
    notify(recipient=recipient, kind=kind, actor=actor, post_id=post_id, comment_slug=comment_slug)


@durable_task
def tell_post_created(post_id: str, author: str, to: str | None, *named: str) -> None:
    events.post_created(post_id=post_id, author=author, to=to, named=named)


@durable_task
def tell_comment_created(
    post_id: str, owner: str, actor: str, slug: str, replying_to: str | None, *named: str
) -> None:
    events.comment_created(
        post_id=post_id, owner=owner, actor=actor, slug=slug, replying_to=replying_to, named=named
    )
