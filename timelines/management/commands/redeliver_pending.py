from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from feeds import sweeps


class Command(BaseCommand):
    help = (
        "Re-enqueue the delivery of posts stuck in `pending` or `delivering` for "
        "longer than --older-than seconds, and recount the likes and reposts of posts "
        "a crash left half counted (comment votes too). The worker loop runs the same "
        "every TASKS_SWEEP_SECONDS; all are idempotent."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--older-than",
            type=int,
            metavar="SECONDS",
            help=f"default FEED_PENDING_SECONDS ({settings.FEED_PENDING_SECONDS})",
        )

    def handle(self, *args: Any, older_than: int | None, **options: Any) -> None:
        if older_than is not None and older_than < 0:
            raise CommandError("--older-than must not be negative.")
        for line in sweeps.pending_sweep(older_than_seconds=older_than):
            self.stdout.write(self.style.SUCCESS(line))
