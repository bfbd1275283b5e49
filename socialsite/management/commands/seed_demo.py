import gc
import time
from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings

from socialsite import demo, indexes

INLINE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off while seeding, and one collection after.
    Seeding makes millions of objects that live on (the embedded database's
    documents and indexes): each of the collector's passes walked them all
    again, a fifth of the CPU of seeding 15,000 users (docs/performance.md#growth).
    One pass at the end frees the cycles seeding left (a tenth of the
    objects), and what lives on is then frozen (`gc.freeze`: left out of
    every later pass, as Python's documentation advises before a fork, and
    `demo` forks its server next) rather than walked again by the first
    pages served."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        gc.freeze()
        if enabled:
            gc.enable()


class Command(BaseCommand):
    help = (
        "Fill the database with demo data: users with profiles, circles and a Zipf "
        "follower graph, then whatever each app's demo seeder adds."
    )

    # It builds the indexes itself before seeding: the index check would only
    # list what is about to be created.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--users", type=int, default=200)
        parser.add_argument("--maxfollows", type=int, default=40)
        parser.add_argument("--seed", type=int, default=42, help="random seed")
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing when users already exist"
        )

    def handle(
        self, *args: Any, users: int, maxfollows: int, seed: int, if_empty: bool, **options: Any
    ) -> None:
        if users < 2:
            raise CommandError("--users must be at least 2")
        seeders = demo.seeders()
        if any(seeder.holds_demo() for seeder in seeders):
            if if_empty:
                self.stdout.write("Users exist already; not seeding.")
                return
            raise CommandError("The database already has users; seed an empty database.")
        indexes.ensure_all()

        self.stdout.write("Seeding demo data...")
        seeding = demo.Seeding(users=users, maxfollows=maxfollows, seed=seed, stdout=self.stdout)
        # (stage, seconds, CPU seconds), printed at the end: where seeding goes,
        # and, on a busy machine, how much of it was this process working.
        stages = []
        # The seeders' tasks run inline: the data is whole when the command
        # returns, and `demo` forks its server from this process next, which
        # must hold no worker thread of the "thread" task backend.
        with override_settings(TASKS=INLINE_TASKS), _no_cycle_collection():
            for seeder in seeders:
                started, cpu = time.perf_counter(), time.process_time()
                seeder.run(seeding)
                stages.append(
                    (seeder.label, time.perf_counter() - started, time.process_time() - cpu)
                )
        self.stdout.write(
            f"Seeded {users} users in {sum(s[1] for s in stages):.1f}s "
            f"(CPU {sum(s[2] for s in stages):.1f}s): "
            + ", ".join(f"{stage} {wall:.1f}s (CPU {busy:.1f}s)" for stage, wall, busy in stages)
        )
        self.stdout.write(self.style.SUCCESS(seeding.greeting))
