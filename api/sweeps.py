"""The client API's sweepers (docs/operations.md#sweepers-run-by-themselves),
run by the worker loop every TASKS_SWEEP_SECONDS (socialsite/periodic.py)."""

from api import services
from socialsite import periodic


def media_sweep() -> str:
    """Photo uploads no status took in time go, with their files (docs/api.md#media)."""
    return f"{services.media_sweep()} upload(s) swept."


def register() -> None:
    periodic.register("api.media", media_sweep)
