"""Background work of the comments, on Django's Tasks API (see timelines/tasks.py).
The services queue it (comments/services.py); what it runs lives apart
(comments/summaries.py), so this module is not imported back. The task keeps
its dotted path: the task marks may hold runs under it."""

from bson import ObjectId

from comments.summaries import summary_refresh
from socialsite.durable import durable_task


@durable_task
def refresh_summary(post_id: str) -> None:
    summary_refresh(ObjectId(post_id))
