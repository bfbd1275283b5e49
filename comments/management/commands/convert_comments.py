from typing import Any

from bson import ObjectId
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from comments.stores import STORES, CommentError, get_store, shadows


class Command(BaseCommand):
    help = (
        "Copy every comment thread from the store of record (COMMENTS_STORE, or --from) "
        "into another comment store, replacing what that store held for each thread. "
        "Then switch COMMENTS_STORE, or read through it at /dev/. Safe to run again; "
        "comments written meanwhile reach the target only if it is a shadow store "
        "(COMMENTS_SHADOW_STORES). Prints its position after each batch of posts: a run "
        "that stopped resumes from there with --after."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--to", required=True, choices=list(STORES), dest="target")
        parser.add_argument(
            "--from",
            choices=list(STORES),
            dest="source",
            help="the store to read (default: COMMENTS_STORE)",
        )
        parser.add_argument(
            "--after",
            help="a post id: convert only the posts after it (a position this command printed)",
        )

    def handle(
        self,
        *args: Any,
        target: str,
        source: str | None,
        after: str | None = None,
        **options: Any,
    ) -> None:
        source = source or settings.COMMENTS_STORE
        if source == target:
            raise CommandError(f"--to {target} is the store being read: nothing to convert.")
        if after is not None and not ObjectId.is_valid(after):
            raise CommandError(f"--after {after!r} is not a post id (24 hexadecimal digits).")
        start = ObjectId(after) if after else None
        position = shadows.Progress(after=start)

        def on_batch(done: shadows.Progress) -> None:
            position.after = done.after
            self.stdout.write(
                f"... {done.threads} thread(s) converted, through post {done.after} "
                f"(to resume: --after {done.after})"
            )

        try:
            done = shadows.convert(
                source=get_store(source), target=get_store(target), after=start, on_batch=on_batch
            )
        except CommentError as exc:  # e.g. a thread past the embedded byte budget
            resume = f" Resume with --after {position.after}." if position.after else ""
            raise CommandError(f"Conversion to {target} stopped: {exc}.{resume}") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"Converted {done.threads} thread(s) ({done.comments} comment(s)) "
                f"from {source} to {target}."
            )
        )
