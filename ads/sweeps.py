"""The ad network's periodic job (docs/operations.md#sweepers-run-by-themselves):
campaigns past their end or budget are stopped by the worker loop
(socialsite/periodic.py), as `manage.py ads_pacing` does."""

from ads.services import ads_pacing
from socialsite import periodic


def register() -> None:
    def pacing() -> str:
        stopped = [cid for cid, reason in ads_pacing() if reason != "resumed"]
        return f"{len(stopped)} campaign(s) stopped."

    periodic.register("ads.pacing", pacing)
