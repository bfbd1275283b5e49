"""Moderators keep a tag out of the trends (docs/discovery.md#trends): the
tag's page and posts stay; it just is not pushed at everyone. Each change
leaves its audit entry."""

from explore import services as trends
from moderation.services.base import ModerationError, audit
from moderation.targets import Target
from profiles.documents import User


def tag_hide(*, moderator: User, tag: str, reason: str = "") -> None:
    if not trends.tag_trend_hide(tag=tag):
        raise ModerationError(f"#{tag} is hidden from the trends already.")
    audit(moderator=moderator.handle, action="tag.hide", target=Target("tag", tag), reason=reason)


def tag_show(*, moderator: User, tag: str, reason: str = "") -> None:
    if not trends.tag_trend_show(tag=tag):
        raise ModerationError(f"#{tag} is not hidden from the trends.")
    audit(moderator=moderator.handle, action="tag.show", target=Target("tag", tag), reason=reason)
