from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from profiles import sweeps


class Command(BaseCommand):
    help = (
        "Queues again every account erasure whose worker stopped (no batch for"
        " --older-than seconds), every export build older than TASKS_LEASE_SECONDS,"
        " and deletes the exports past their keeping time."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=int, default=sweeps.ERASURE_STALLED_SECONDS)

    def handle(self, *args: Any, **options: Any) -> None:
        resumed, rebuilt, expired = sweeps.accounts_sweep(older_than_seconds=options["older_than"])
        self.stdout.write(
            f"{resumed} erasures resumed, {rebuilt} export builds resumed,"
            f" {expired} exports expired"
        )
