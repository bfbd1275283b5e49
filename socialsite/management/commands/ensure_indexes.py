from django.core.management.base import BaseCommand

from socialsite import indexes


class Command(BaseCommand):
    help = "Create every index that every document declares. Safe to run again."

    def handle(self, *args, **options):
        created = indexes.ensure_all()
        for collection, name in created:
            self.stdout.write(f"created {collection}.{name}")
        total = sum(len(d._get_collection().index_information()) for d in indexes.all_documents())
        self.stdout.write(
            self.style.SUCCESS(f"{len(created)} index(es) created; {total} in place in all.")
        )
