"""Every moderation write: reports, removals, suspensions, roles, and the
audit entry that each moderator action leaves (exactly one per target).

Views and commands import this package; the modules keep it small.
"""

from moderation.services.base import ModerationError, audit, settle
from moderation.services.bulk import ACTIONS, BULK_ACTIONS, bulk
from moderation.services.content import (
    comment_remove,
    comment_restore,
    message_remove,
    message_restore,
    post_remove,
    post_restore,
)
from moderation.services.reports import report_create, report_dismiss
from moderation.services.tags import tag_hide, tag_show
from moderation.services.users import (
    HIDDEN_COMMENT,
    expire_suspensions,
    role_set,
    user_suspend,
    user_unsuspend,
)
from moderation.targets import Target

__all__ = [
    "ACTIONS",
    "BULK_ACTIONS",
    "HIDDEN_COMMENT",
    "ModerationError",
    "Target",
    "audit",
    "bulk",
    "comment_remove",
    "comment_restore",
    "expire_suspensions",
    "message_remove",
    "message_restore",
    "post_remove",
    "post_restore",
    "report_create",
    "report_dismiss",
    "role_set",
    "settle",
    "tag_hide",
    "tag_show",
    "user_suspend",
    "user_unsuspend",
]
