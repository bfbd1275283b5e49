"""The feeds' sweepers (docs/operations.md#sweepers-run-by-themselves): run
by the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py) and by
`manage.py redeliver_pending`, which cron may still run."""

from feeds.selectors import trends as trend_selectors
from feeds.services import counts, trends
from socialsite import events, periodic
from socialsite.clock import now


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


def trends_rank() -> str:
    """Rank the trends for everyone and keep the list `/explore/` serves
    (feeds/selectors/trends.py): a week of `tag_use` is aggregated once a
    period, not on every page."""
    t = now()
    ranked = trend_selectors.trends_for_everyone(t)
    trends.trend_list_store(trends=ranked, computed=t)
    return f"{len(ranked)} trend(s) kept."


def register() -> None:
    periodic.register("feeds.pending", lambda: " ".join(pending_sweep()))
    periodic.register("feeds.trends", trends_rank)
