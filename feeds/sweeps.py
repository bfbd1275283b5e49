"""The feeds' sweepers (docs/operations.md#sweepers-run-by-themselves): run
by the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py) and by
`manage.py redeliver_pending`, which cron may still run."""

from feeds.services import counts
from socialsite import events, periodic


def pending_sweep(*, older_than_seconds: int | None = None) -> list[str]:
    """Recount the posts a request died between its mark and its count, and
    let the apps above settle theirs (the timelines deliver again what a
    dead process left `pending` or `delivering`; comment votes). What it
    did, a line each."""
    recounted = counts.counts_sweep(older_than_seconds=older_than_seconds)
    lines = [f"{recounted} post(s) recounted."]
    for _, line in events.pending_swept.send(sender=None, older_than_seconds=older_than_seconds):
        lines.append(line)
    return lines


def register() -> None:
    periodic.register("feeds.pending", lambda: " ".join(pending_sweep()))
