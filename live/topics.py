"""The topics events are published on (docs/live.md#what-streams).

A writer decides who hears of its write: an event for a person goes on
their own topic, so a stream listens to a handful of topics whatever the
site's size. Only what anyone may be shown in principle (a new post, its
removal, its edit) goes on the shared topics, and each stream checks it
against its reader before sending it.
"""

#: Every new post, whatever its audience: public, hashtag and list streams
#: read it, each through its reader's own visibility check.
POSTS = "posts"
#: Posts deleted, removed or edited: every stream that may have shown one.
CHANGES = "changes"


def person(handle: str) -> str:
    """What happened for one person: an entry in their news feed, a
    notification, a message, their unread counts."""
    return f"user:{handle}"


def post(post_id: str) -> str:
    """New comments under one post, for its open pages."""
    return f"post:{post_id}"


def tag(name: str) -> str:
    return f"tag:{name.lower()}"


def author(handle: str) -> str:
    """A pulled author's new public posts (no entry is written for their
    followers: timelines/delivery/pulled.py), for the streams of those who follow them."""
    return f"author:{handle}"
