"""Background work of the ad network, on Django's Tasks API (see timelines/tasks.py)."""

from django.tasks import task

from ads.services import pacing


@task
def ads_pacing() -> list[list[str]]:
    """The periodic pacing sweep; returns [campaign id, reason] pairs (JSON-safe)."""
    return [[campaign_id, reason] for campaign_id, reason in pacing.ads_pacing()]
