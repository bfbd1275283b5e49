import time
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
        from feeds import demo as feeds_demo
        from profiles import demo

        self.stdout.write("Seeding demo data...")
        # (stage, seconds, CPU seconds), printed at the end: where seeding goes,
        # and, on a busy machine, how much of it was this process working.
        stages = []
        started, cpu = time.perf_counter(), time.process_time()
        handles = demo.seed(users=users, maxfollows=maxfollows, seed=seed, stdout=self.stdout)
        stages.append(("profiles", time.perf_counter() - started, time.process_time() - cpu))
        for config in apps.get_app_configs():
            if config.name == "profiles":
                continue
            try:
                module = import_module(f"{config.name}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.demo":
                    raise
                continue
            # The feeds' posts are delivered last, once the other demos'
            # comments and votes are in them (feeds/demo.py).
            held = {"deliver": False} if config.name == "feeds" else {}
            started, cpu = time.perf_counter(), time.process_time()
            module.seed_more(handles=handles, seed=seed, stdout=self.stdout, **held)
            stages.append((config.label, time.perf_counter() - started, time.process_time() - cpu))
        started, cpu = time.perf_counter(), time.process_time()
        delivered = feeds_demo.deliver_pending()
        stages.append(("delivery", time.perf_counter() - started, time.process_time() - cpu))
        self.stdout.write(f"  {delivered} posts delivered into the timelines")
        self.stdout.write(
            f"Seeded {users} users in {sum(s[1] for s in stages):.1f}s "
            f"(CPU {sum(s[2] for s in stages):.1f}s): "
            + ", ".join(f"{stage} {wall:.1f}s (CPU {busy:.1f}s)" for stage, wall, busy in stages)
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo ready. Log in as alice (or any user) with password '{demo.DEMO_PASSWORD}'."
            )
        )
