from django.core.management.base import BaseCommand

from profiles import sweeps


class Command(BaseCommand):
    help = (
        "Queues again every account erasure whose worker stopped (no batch for"
        " --older-than seconds) and deletes the exports past their keeping time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=int, default=sweeps.ERASURE_STALLED_SECONDS)

    def handle(self, *args, **options):
        resumed, expired = sweeps.accounts_sweep(older_than_seconds=options["older_than"])
        self.stdout.write(f"{resumed} erasures resumed, {expired} exports expired")
