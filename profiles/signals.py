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
