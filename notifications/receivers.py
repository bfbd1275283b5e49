"""Graph events reach notifications: a follow is news to the person followed;
after a block the blocker's unread count drops what the page will now hide."""

from django.dispatch import receiver

from notifications.services import notifications_recount, notify
from socialsite import events


@receiver(events.followed, dispatch_uid="notifications.followed")
def _followed(sender, follower, followee, **kwargs):
    notify(recipient=followee, kind="follow", actor=follower)


@receiver(events.blocked, dispatch_uid="notifications.blocked")
def _blocked(sender, blocker, blocked, **kwargs):
    notifications_recount(owner=blocker)
