"""The sweeper's side of the likes and reposts counts: a request that died
between its mark and its `$inc` left its token on the post
(feeds/services/interactions.py), and this recounts such posts from their
marks. `manage.py redeliver_pending` runs it with the delivery sweeper
(docs/operations.md#sweepers-run-by-themselves); so does the task
`feeds.tasks.sweep_counts`."""

from feeds.services import interactions
from feeds.services.likes import LIKES
from feeds.services.reposts import REPOSTS

KINDS: list[interactions.Interaction] = [LIKES, REPOSTS]


def counts_sweep(*, older_than_seconds: int | None = None) -> int:
    """Recount every post whose count token is older than
    `older_than_seconds` (default FEED_PENDING_SECONDS). Returns how many."""
    return interactions.counts_sweep(KINDS, older_than_seconds=older_than_seconds)
