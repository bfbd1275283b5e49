"""Who is pulled rather than pushed (docs/performance.md#celebrities-are-pulled):
the write side of timelines/selectors/pulled.py.

A delivery asks `pulls(author)` before it fans a public post out, and tells
`counted` how many followers it pushed one to: an author past
FEED_PULL_THRESHOLD followers is then marked pulled (one upsert that keeps
the first `since`, so racing deliveries agree), and stays pulled.
Pushing stops only FEED_PULL_GRACE_SECONDS after `since`: by then every
process has read the list again and merges the author's posts into news
pages, so no post is in neither place. Until then both happen, and pages
show each post once (`merge`).
"""

import contextlib
from datetime import datetime, timedelta

from django.conf import settings
from pymongo.errors import DuplicateKeyError

from profiles import selectors as people
from socialsite.clock import aware, now
from timelines.documents import PulledAuthor
from timelines.selectors import pulled


def mark(author: str, *, since: datetime | None = None) -> None:
    """Pull `author` from `since` (default now); a second mark keeps the first."""
    # A racing upsert may insert it first (E11000): then it is marked.
    with contextlib.suppress(DuplicateKeyError):
        PulledAuthor._get_collection().update_one(
            {"_id": author}, {"$setOnInsert": {"since": since or now()}}, upsert=True
        )
    pulled.forget()


def pulls(author: str) -> bool:
    """Whether a public post of `author`'s goes to no follower's timeline:
    they were pulled at least FEED_PULL_GRACE_SECONDS ago. Asked of this
    process's list (no round trip): one that has not read a new mark yet
    still pushes, which the grace allows for."""
    since = pulled.authors().get(author)
    grace = timedelta(seconds=settings.FEED_PULL_GRACE_SECONDS)
    return since is not None and aware(since) <= now() - grace


def counted(author: str, followers: int) -> None:
    """A public post of `author`'s was just pushed to `followers` followers:
    past the threshold, pull them from now on. The count is the delivery's
    own (the audience pages it read), so deciding costs no read."""
    if followers > settings.FEED_PULL_THRESHOLD and author not in pulled.authors():
        mark(author)


def mark_over_threshold(*, since: datetime | None = None) -> set[str]:
    """Mark every author past the threshold (the demo's seeding, which fans
    out in bulk rather than through `pulls`); returns every pulled author."""
    for author in people.handles_with_followers_over(settings.FEED_PULL_THRESHOLD):
        mark(author, since=since)
    return set(pulled.authors())
