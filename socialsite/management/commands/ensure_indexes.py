from typing import Any

from django.core.management.base import BaseCommand, CommandError

from socialsite import indexes


class Command(BaseCommand):
    help = (
        "Create every index that every document declares, and rebuild any that differs "
        "from its declaration. Says what it changed; safe to run again."
    )
    # The index check (socialsite/checks.py) would list what this is about to fix.
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        changes = indexes.ensure_all()
        for change in changes:
            line = f"{change.action} {change.collection}.{change.name}"
            if change.detail:
                line += f" ({change.detail})"
            self.stdout.write(self.style.ERROR(line) if change.action == "failed" else line)
        counts = {
            action: sum(1 for c in changes if c.action == action)
            for action in ("created", "rebuilt", "failed")
        }
        total = sum(len(d._get_collection().index_information()) for d in indexes.all_documents())
        self.stdout.write(
            self.style.SUCCESS(
                f"{counts['created']} index(es) created, {counts['rebuilt']} rebuilt; "
                f"{total} in place in all."
            )
        )
        if counts["failed"]:
            raise CommandError(
                f"{counts['failed']} index(es) could not be built; see above. A unique index "
                "fails on documents that already break it: remove the duplicates, then run "
                "this again."
            )
