"""Federation's sweepers (docs/operations.md#sweepers-run-by-themselves),
run by the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py)."""

from federation import delivery
from socialsite import periodic


def register() -> None:
    periodic.register("federation.deliveries", delivery.deliveries_sweep)
