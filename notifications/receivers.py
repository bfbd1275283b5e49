"""What the apps below announce (socialsite/events.py) reaches notifications:
a follow is news to the person followed; after a block the blocker's unread
count drops what the page will now hide; likes, reposts, posts and comments
tell the people they concern (notifications/events.py); a deleted post takes
its notifications with it."""

from django.dispatch import receiver

from notifications import events as notification_events
from notifications.services import notifications_forget_post, notifications_recount, notify
from socialsite import events


@receiver(events.followed, dispatch_uid="notifications.followed")
def _followed(sender, follower, followee, **kwargs):
    notify(recipient=followee, kind="follow", actor=follower)


@receiver(events.blocked, dispatch_uid="notifications.blocked")
def _blocked(sender, blocker, blocked, **kwargs):
    notifications_recount(owner=blocker)


@receiver(events.post_created, dispatch_uid="notifications.post_created")
def _post_created(sender, post, **kwargs):
    notification_events.post_created(post)


@receiver(events.post_deleted, dispatch_uid="notifications.post_deleted")
def _post_deleted(sender, post_id, **kwargs):
    notifications_forget_post(post_id=post_id)


@receiver(events.post_liked, dispatch_uid="notifications.post_liked")
def _post_liked(sender, post_id, author, actor, **kwargs):
    notify(recipient=author, kind="like", actor=actor, post_id=post_id)


@receiver(events.post_reposted, dispatch_uid="notifications.post_reposted")
def _post_reposted(sender, post_id, author, actor, **kwargs):
    notify(recipient=author, kind="repost", actor=actor, post_id=post_id)


@receiver(events.comment_created, dispatch_uid="notifications.comment_created")
def _comment_created(sender, post, comment, replying_to, **kwargs):
    notification_events.comment_created(post=post, comment=comment, replying_to=replying_to)
