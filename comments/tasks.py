from bson import ObjectId
from django.tasks import task


@task
def refresh_summary(post_id: str) -> None:
    from comments.services import summary_refresh

    summary_refresh(ObjectId(post_id))
