from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from profiles import services


class Command(BaseCommand):
    help = "Finish follows/unfollows a crashed process left half-done, and recount counters."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=int, default=300, help="seconds (default 300)")

    def handle(self, *args: Any, older_than: int, **options: Any) -> None:
        fixed = services.graph_repair(older_than_seconds=older_than)
        self.stdout.write(self.style.SUCCESS(f"{fixed} half-done edge(s) repaired."))
