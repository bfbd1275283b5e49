"""Moderation's periodic job (docs/operations.md#sweepers-run-by-themselves):
suspensions past their end are lifted by the worker loop
(socialsite/periodic.py), as `manage.py expire_suspensions` does."""

from moderation import services
from socialsite import periodic


def register() -> None:
    periodic.register(
        "moderation.suspensions",
        lambda: f"{services.expire_suspensions()} suspension(s) lifted.",
    )
