from bson import ObjectId

from socialsite.durable import durable_task


@durable_task
def refresh_summary(post_id: str) -> None:
    from comments.services import summary_refresh

    summary_refresh(ObjectId(post_id))
