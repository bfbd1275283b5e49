"""What the client API does when the apps below announce something
(socialsite/events.py)."""

from typing import Any

from django.dispatch import receiver

from api import circles, services
from live import broker, topics
from socialsite import events


@receiver(events.sign_ins_revoked, dispatch_uid="api.tokens_revoked")
def tokens_revoked(sender: Any, handle: str, **kwargs: Any) -> None:
    """A password change or reset, erasure or suspension: every app the
    person authorized loses its token, as every browser its session."""
    services.tokens_revoke_all(user=handle)


@receiver(events.circle_renamed, dispatch_uid="api.circle_renamed")
def circle_renamed(sender: Any, owner: str, old: str, new: str, **kwargs: Any) -> None:
    """A circle renamed on its page keeps its list id (docs/api.md#lists)."""
    circles.list_id_renamed(owner=owner, old=old, new=new)


@receiver(events.filters_changed, dispatch_uid="api.filters_changed")
def filters_changed(sender: Any, owner: str, **kwargs: Any) -> None:
    """The person's open user streams say so, as Mastodon's do: their apps
    read the filters again (docs/api.md#streaming)."""
    broker.publish(topics.person(owner), "filters_changed")
