from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from socialsite import indexes, mongo


class Command(BaseCommand):
    help = (
        "Run the site with demo data: indexes, seed (when the database is empty), "
        "then the development server in this same process (the demo database lives "
        "in its memory, so there is no autoreloader)."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--users", type=int, default=settings.DEMO_USERS)
        parser.add_argument("--maxfollows", type=int, default=settings.DEMO_MAXFOLLOWS)

    def handle(self, *args, addrport, users, maxfollows, **options):
        created = indexes.ensure_all()
        self.stdout.write(f"{len(created)} index(es) created.")
        call_command(
            "seed_demo", users=users, maxfollows=maxfollows, if_empty=True, stdout=self.stdout
        )
        if mongo.is_demo():
            self.stdout.write(
                self.style.WARNING("DEMO MODE: in-memory database; set MONGODB_URI for MongoDB.")
            )
        call_command("runserver", addrport, use_reloader=False, use_threading=True)
