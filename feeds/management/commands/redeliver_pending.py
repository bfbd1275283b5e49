from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from feeds.delivery import fanout
from feeds.services import counts
from socialsite import events


class Command(BaseCommand):
    help = (
        "Re-enqueue the delivery of posts stuck in `pending` or `delivering` for "
        "longer than --older-than seconds, and recount the likes and reposts of posts "
        "a crash left half counted (comment votes too). Run it from cron; all are idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=int,
            metavar="SECONDS",
            help=f"default FEED_PENDING_SECONDS ({settings.FEED_PENDING_SECONDS})",
        )

    def handle(self, *args, older_than, **options):
        if older_than is not None and older_than < 0:
            raise CommandError("--older-than must not be negative.")
        count = fanout.redeliver_pending(older_than_seconds=older_than)
        self.stdout.write(self.style.SUCCESS(f"{count} post(s) re-enqueued for delivery."))
        settled = counts.counts_sweep(older_than_seconds=older_than)
        self.stdout.write(self.style.SUCCESS(f"{settled} post(s) recounted."))
        # The apps above settle their own (comment votes): they listen.
        for _, line in events.pending_swept.send(sender=None, older_than_seconds=older_than):
            self.stdout.write(self.style.SUCCESS(line))
