from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from socialsite import indexes, mongo


class Command(BaseCommand):
    help = (
        "Run the site with demo data: indexes, seed (when the database is empty), "
        "static files (when DEBUG is off), then the development server in this same "
        "process (the demo database lives in its memory, so there is no autoreloader)."
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
        collect_static(self.stdout)
        call_command("runserver", addrport, use_reloader=False, use_threading=True)


def collect_static(stdout) -> bool:
    """With DEBUG off, pages name static files by their hashed names, looked up in
    STATIC_ROOT's manifest (socialsite/checks.py): collect them, every start, so
    the manifest matches the code. True when it did."""
    if settings.DEBUG:
        return False
    call_command("collectstatic", interactive=False, verbosity=0)
    stdout.write(f"Static files collected in {settings.STATIC_ROOT}.")
    return True
