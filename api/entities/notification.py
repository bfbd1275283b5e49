"""The Notification entity (docs.joinmastodon.org/entities/Notification,
and AccountWarning for a moderator's removal): one item of the
notifications page as Mastodon shows it (docs/api.md#notifications).

Our kinds map onto Mastodon's types (`TYPES`): a like is a `favourite`, a
repost a `reblog`, a follow a `follow`; a mention, a comment on my post, a
reply to my comment and a post on my wall are each a `mention` (Mastodon
tells of a reply to one's status, and of a status addressed to one, as a
mention); a moderator's removal is a `moderation_warning`.

An id is the item's place in the page's keyset order, `<ms>_<item id>`
(socialsite/cursors.py): what `max_id`, `since_id` and `min_id` take back.
"""

from typing import Any

from api.entities.dates import iso
from notifications.selectors import Notification
from socialsite.cursors import Cursor

#: Our kinds (notifications/services.py KINDS) as Mastodon's types.
TYPES = {
    "follow": "follow",
    "like": "favourite",
    "repost": "reblog",
    "comment": "mention",
    "reply": "mention",
    "mention": "mention",
    "wall": "mention",
    "removed": "moderation_warning",
}
#: Every type Mastodon 4.3 documents: a `types[]` value outside them is ignored.
MASTODON_TYPES = frozenset(
    {
        "mention",
        "status",
        "reblog",
        "follow",
        "follow_request",
        "favourite",
        "poll",
        "update",
        "admin.sign_up",
        "admin.report",
        "severed_relationships",
        "moderation_warning",
    }
)


def notification_id(item: Notification) -> str:
    return Cursor(item.ts, item.id).encode()


def notification(
    item: Notification, actor: dict | None, status: dict | None, own: dict
) -> dict[str, Any]:
    """`actor`: the Account of who acted (None for a removal, whose account
    is the reader's own `own`, as Mastodon's moderation warnings name the
    warned account); `status`: the Status it is about, when it is about a post."""
    kind = TYPES.get(item.kind, "mention")
    created = iso(item.ts)
    warning = None
    if kind == "moderation_warning":
        warning = {
            "id": str(item.id),
            "action": "delete_statuses",
            "text": item.reason,
            "status_ids": None,
            "target_account": own,
            "appeal": None,
            "created_at": created,
        }
    group = f"favourite-{item.post_id}" if kind == "favourite" else f"ungrouped-{item.id}"
    return {
        "id": notification_id(item),
        "type": kind,
        "group_key": group,
        "created_at": created,
        "account": actor if actor is not None else own,
        "status": status,
        "report": None,
        "event": None,
        "moderation_warning": warning,
    }
