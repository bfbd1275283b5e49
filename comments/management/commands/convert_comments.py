from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from comments.stores import STORES, CommentError, get_store, shadows


class Command(BaseCommand):
    help = (
        "Copy every comment thread from the store of record (COMMENTS_STORE, or --from) "
        "into another comment store, replacing what that store held for each thread. "
        "Then switch COMMENTS_STORE, or read through it at /dev/. Safe to run again; "
        "comments written meanwhile reach the target only if it is a shadow store "
        "(COMMENTS_SHADOW_STORES)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--to", required=True, choices=list(STORES), dest="target")
        parser.add_argument(
            "--from",
            choices=list(STORES),
            dest="source",
            help="the store to read (default: COMMENTS_STORE)",
        )

    def handle(self, *args, target, source, **options):
        source = source or settings.COMMENTS_STORE
        if source == target:
            raise CommandError(f"--to {target} is the store being read: nothing to convert.")
        try:
            threads, comments = shadows.convert(source=get_store(source), target=get_store(target))
        except CommentError as exc:  # e.g. a thread past the embedded byte budget
            raise CommandError(f"Conversion to {target} stopped: {exc}") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Converted {threads} thread(s) ({comments} comment(s)) from {source} to {target}."
            )
        )
