"""The accounts' sweepers (docs/operations.md#sweepers-run-by-themselves): run
by the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py) and by
`manage.py accounts_sweep` and `repair_graph`, which cron may still run."""

from profiles import services, tasks
from profiles.services import erasure_walk, exports
from socialsite import periodic

# An erasure with no batch for this long lost its worker.
ERASURE_STALLED_SECONDS = 600
# A follow or unfollow half done for this long lost its request.
GRAPH_STALLED_SECONDS = 300


def accounts_sweep(*, older_than_seconds: int = ERASURE_STALLED_SECONDS) -> tuple[int, int, int]:
    """(erasures queued again, export builds queued again, exports expired)."""
    stalled = erasure_walk.erasures_stalled(older_than_seconds=older_than_seconds)
    for handle in stalled:
        tasks.erase_account.enqueue(handle)
    return len(stalled), exports.exports_stalled(), exports.exports_expire()


def register() -> None:
    def accounts() -> str:
        resumed, rebuilt, expired = accounts_sweep()
        return (
            f"{resumed} erasure(s) resumed, {rebuilt} export build(s) resumed,"
            f" {expired} export(s) expired."
        )

    def graph() -> str:
        fixed = services.graph_repair(older_than_seconds=GRAPH_STALLED_SECONDS)
        return f"{fixed} half-done edge(s) repaired."

    periodic.register("profiles.accounts", accounts)
    periodic.register("profiles.graph", graph)
