"""Graph events that other apps (the feeds) react to.

Sent after the write has landed, synchronously; receivers enqueue tasks.
"""

from django.dispatch import Signal

# follower: str, followee: str
followed = Signal()
# follower: str, followee: str
unfollowed = Signal()
# blocker: str, blocked: str
blocked = Signal()
# handle: str
user_created = Signal()
# user: User, previous: datetime | None (last_seen before this visit)
user_seen = Signal()
# owner: str, members: list[str] - their place in the owner's circles changed
circle_members_changed = Signal()
# owner: str, old: str, new: str
circle_renamed = Signal()
