"""The trends' sweeper (docs/operations.md#sweepers-run-by-themselves): run by
the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py)."""

from explore import services
from explore.selectors import trends
from socialsite import periodic
from socialsite.clock import now


def trends_rank() -> str:
    """Rank the trends for everyone and keep the list `/explore/` serves
    (explore/selectors/trends.py): a week of `tag_use` is aggregated once a
    period, not on every page."""
    t = now()
    ranked = trends.trends_for_everyone(t)
    services.trend_list_store(trends=ranked, computed=t)
    return f"{len(ranked)} trend(s) kept."


def register() -> None:
    periodic.register("explore.trends", trends_rank)
