from importlib import import_module

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError

from profiles.documents import User
from socialsite import indexes


class Command(BaseCommand):
    help = (
        "Fill the database with demo data: users with profiles, circles and a Zipf "
        "follower graph, then whatever each app's `demo.seed_more` adds."
    )

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=200)
        parser.add_argument("--maxfollows", type=int, default=40)
        parser.add_argument("--seed", type=int, default=42, help="random seed")
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing when users already exist"
        )

    def handle(self, *args, users, maxfollows, seed, if_empty, **options):
        if users < 2:
            raise CommandError("--users must be at least 2")
        if User.objects.limit(1).count(with_limit_and_skip=True):
            if if_empty:
                self.stdout.write("Users exist already; not seeding.")
                return
            raise CommandError("The database already has users; seed an empty database.")
        indexes.ensure_all()
        from profiles import demo

        self.stdout.write("Seeding demo data...")
        handles = demo.seed(users=users, maxfollows=maxfollows, seed=seed, stdout=self.stdout)
        for config in apps.get_app_configs():
            if config.name == "profiles":
                continue
            try:
                module = import_module(f"{config.name}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.demo":
                    raise
                continue
            module.seed_more(handles=handles, seed=seed, stdout=self.stdout)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready. Log in as alice (or any user) with password '{demo.DEMO_PASSWORD}'."
            )
        )
