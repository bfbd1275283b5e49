"""What the other apps' actions mean for notifications: one call per action.

A comment tells the post's author ("comment"), the author of the comment it
answers ("reply") and the people it mentions ("mention"); a post tells the
owner of the wall it was posted on ("wall") and the people it mentions. Each
person hears of one action once, in this order of precedence: the author of
a post who is also mentioned in a comment on it gets "comment", not both.
`notify` applies the rules (blocks, mutes, one's own actions, and for
mentions whether the person may see the post).
"""

from collections.abc import Iterable

from django.conf import settings

from feeds.mentions import existing, handles_in
from notifications.services import notify


def named_in(text: str | None) -> list[str]:
    """The handles a text names, as the tasks carry them: the handles, not
    the words (a queued task's mark names people only by handle, which an
    erasure finds: socialsite/durable.py)."""
    return sorted(handles_in(text))


def _mentioned(named: Iterable[str], *, skip: set[str]) -> list[str]:
    """The existing users among those named, in a stable order, at most
    NOTIFICATIONS_MAX_MENTIONS of them (a text naming hundreds of people is
    not a reason to write hundreds of notifications)."""
    handles = sorted(set(named) - skip)[: settings.NOTIFICATIONS_MAX_MENTIONS]
    return sorted(existing(handles)) if handles else []


def post_created(*, post_id: str, author: str, to: str | None, named: Iterable[str]) -> None:
    """A post by `author` (on `to`'s wall, if given), naming `named`, was written."""
    told = {author}
    if to:
        notify(recipient=to, kind="wall", actor=author, post_id=post_id)
        told.add(to)
    for handle in _mentioned(named, skip=told):
        notify(recipient=handle, kind="mention", actor=author, post_id=post_id)


def comment_created(
    *,
    post_id: str,
    owner: str,
    actor: str,
    slug: str,
    replying_to: str | None,
    named: Iterable[str],
) -> None:
    """A comment by `actor` on `owner`'s post; `replying_to` the handle of
    the author of the comment it answers, if it is a reply."""
    told = {actor}
    if replying_to and replying_to not in told:
        notify(
            recipient=replying_to, kind="reply", actor=actor, post_id=post_id, comment_slug=slug
        )
        told.add(replying_to)
    if owner not in told:
        notify(recipient=owner, kind="comment", actor=actor, post_id=post_id, comment_slug=slug)
        told.add(owner)
    for handle in _mentioned(named, skip=told):
        notify(recipient=handle, kind="mention", actor=actor, post_id=post_id, comment_slug=slug)
