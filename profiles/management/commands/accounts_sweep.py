from django.core.management.base import BaseCommand

from profiles import tasks
from profiles.services import erasure, exports


class Command(BaseCommand):
    help = (
        "Queues again every account erasure whose worker stopped (no batch for"
        " --older-than seconds) and deletes the exports past their keeping time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=int, default=600)

    def handle(self, *args, **options):
        stalled = erasure.erasures_stalled(older_than_seconds=options["older_than"])
        for handle in stalled:
            tasks.erase_account.enqueue(handle)
        expired = exports.exports_expire()
        self.stdout.write(f"{len(stalled)} erasures resumed, {expired} exports expired")
