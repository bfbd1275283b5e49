"""The actions of the queue, one target or several at a time."""

from moderation.services.base import ModerationError
from moderation.services.content import (
    comment_remove,
    comment_restore,
    message_remove,
    message_restore,
    post_remove,
    post_restore,
)
from moderation.services.reports import report_dismiss
from moderation.targets import resolve_target
from profiles.documents import User

ACTIONS = {
    ("post", "remove"): post_remove,
    ("post", "restore"): post_restore,
    ("comment", "remove"): comment_remove,
    ("comment", "restore"): comment_restore,
    ("message", "remove"): message_remove,
    ("message", "restore"): message_restore,
    ("user", "dismiss"): report_dismiss,
    ("post", "dismiss"): report_dismiss,
    ("comment", "dismiss"): report_dismiss,
    ("message", "dismiss"): report_dismiss,
}


BULK_ACTIONS = ("remove", "dismiss")


def bulk(
    *, moderator: User, action: str, keys: list[str], reason: str = ""
) -> tuple[int, list[str]]:
    """Apply one action to several queue items: one audit entry per target.

    Returns how many were done and a note for each one skipped; one target
    that cannot be done does not stop the others. A key given twice counts once.
    """
    if action not in BULK_ACTIONS:
        raise ModerationError(f"Unknown action {action!r}.")
    done, skipped = 0, []
    for key in dict.fromkeys(keys):
        target = resolve_target(key)
        if target is None:
            skipped.append(f"{key}: not found")
            continue
        handler = ACTIONS.get((target.type, action))
        if handler is None:
            # Users are suspended from their page, with a reason and an end date.
            skipped.append(f"@{target.id}: suspend users from their page")
            continue
        try:
            handler(moderator=moderator, target=target, reason=reason)
        except ModerationError as exc:
            skipped.append(f"{target.type} {target.excerpt or target.id}: {exc}")
        else:
            done += 1
    return done, skipped
