"""A post's comment summary: its `comments_count` and last
FEED_COMMENTS_SHOWN comments, copied onto the post and its embedded feed
entries (*Storing Updates and Profiles*'s `comment()`), so a feed card shows
them with no read of its own.

The task `comments.tasks.refresh_summary` runs it after every comment write
(comments/services.py queues it), and the erasure's comment eraser runs it
in the walk. Apart from the services because those queue the task: one
module holding both would import the tasks and be imported by them.
"""

from bson import ObjectId
from django.conf import settings

from comments.stores import shadows
from comments.stores.base import HIDDEN_TEXT
from feeds import mentions
from feeds.services import posts as post_services
from profiles import selectors as people


def summary_refresh(post_id: ObjectId) -> None:
    """Recount and re-copy the last comments onto the post and its feed entries."""
    store = shadows.primary()  # the record, whatever store this request reads
    last = store.last(post_id, settings.FEED_COMMENTS_SHOWN)
    suspended = people.suspended_among({c.author["id"] for c in last})
    texts = {c.slug: HIDDEN_TEXT if c.author["id"] in suspended else c.display_text for c in last}
    # Who the previews name, looked up here in the task (one query for all of
    # them), so that a feed page links them with no lookup of its own.
    named = set(mentions.people_named(*texts.values()))
    shown = [
        {
            "by": c.author,
            "ts": c.posted,
            "text": texts[c.slug],
            "slug": c.slug,
            "mentions": sorted(named & mentions.handles_in(texts[c.slug])),
        }
        for c in last
    ]
    post_services.post_comments_summary_set(
        post_id=post_id, count=store.count(post_id), shown=shown
    )
