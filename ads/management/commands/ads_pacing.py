"""`manage.py ads_pacing`: stop campaigns past their end or over their budget."""

from typing import Any

from django.core.management.base import BaseCommand

from ads.services import ads_pacing


class Command(BaseCommand):
    help = (
        "Deactivate ad campaigns that have ended or spent their budget, finish zone"
        " changes left half done, and say which."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        swept = ads_pacing()
        stopped = [(cid, reason) for cid, reason in swept if reason != "resumed"]
        for campaign_id, reason in swept:
            if reason == "resumed":
                self.stdout.write(f"finished {campaign_id}'s half-done zone change")
                continue
            why = "its end has passed" if reason == "ended" else "its budget is spent"
            self.stdout.write(f"deactivated {campaign_id}: {why}")
        self.stdout.write(f"{len(stopped)} campaign(s) deactivated.")
