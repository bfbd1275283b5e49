from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from comments import services


class Command(BaseCommand):
    help = (
        "Trim the last comments that posts and embedded feed entries show "
        "(`comments_shown`) back to the newest FEED_COMMENTS_SHOWN (truncate_extra_comments in "
        "MongoDB's Storing Updates and Profiles for Social Networking Sites). Run it from cron, "
        "or after lowering the setting."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--limit",
            type=int,
            metavar="N",
            help=f"comments to keep, default FEED_COMMENTS_SHOWN ({settings.FEED_COMMENTS_SHOWN})",
        )

    def handle(self, *args: Any, limit: int | None, **options: Any) -> None:
        if limit is not None and limit < 0:
            raise CommandError("--limit must not be negative.")
        counts = services.comments_shown_truncate(limit=limit)
        kept = settings.FEED_COMMENTS_SHOWN if limit is None else limit
        self.stdout.write(f"Keeping the newest {kept} comment(s) shown.")
        self.stdout.write(f"  post: {counts.pop('posts')} post(s) trimmed")
        for collection, n in counts.items():
            self.stdout.write(
                f"  {collection}: {n} embedded entr{'y' if n == 1 else 'ies'} trimmed"
            )
        self.stdout.write(self.style.SUCCESS("Done."))
