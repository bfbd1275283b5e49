from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from profiles import selectors as people
from profiles.documents import User
from socialsite.ids import parse_handle
from timelines.delivery import upkeep
from timelines.stores import write_stores
from timelines.stores.base import KINDS


class Command(BaseCommand):
    help = (
        "Rebuild timelines (news, wall or both) from `post` and the graph: for one "
        "user (--user) or for everyone (--all). Timelines are derived data, so this "
        "is always safe."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        who = parser.add_mutually_exclusive_group()
        who.add_argument("--user", metavar="HANDLE", help="rebuild this user's timelines")
        who.add_argument(
            "--all", action="store_true", dest="everyone", help="rebuild every user's timelines"
        )
        parser.add_argument(
            "--kind", choices=KINDS, help="only this timeline kind (default: both)"
        )

    def handle(
        self, *args: Any, user: str | None, everyone: bool, kind: str | None, **options: Any
    ) -> None:
        if (user is None) == (not everyone):
            raise CommandError("Give exactly one of --user HANDLE or --all.")
        kinds = [kind] if kind else list(KINDS)
        if user is not None:
            handle = parse_handle(user)
            if handle is None or not User.objects(handle=handle).only("handle").first():
                raise CommandError(f"No such user: {user!r}.")
            owners = [handle]
        else:
            owners = None
        stores = [store.name for store in write_stores()]
        if not stores:
            self.stdout.write(
                f"FEED_MODEL is {settings.FEED_MODEL!r}: feeds are assembled at read time, "
                "so there is nothing to rebuild."
            )
            return
        if owners is None:
            owners = people.handles_all()
        for done, owner in enumerate(owners, 1):
            for k in kinds:
                upkeep.rebuild(owner, k)
            if done % 1000 == 0:
                self.stdout.write(f"  {done} of {len(owners)} users...")
        self.stdout.write(
            self.style.SUCCESS(
                f"Rebuilt {len(owners) * len(kinds)} timeline(s) "
                f"({', '.join(kinds)}) of {len(owners)} user(s) "
                f"under FEED_MODEL={settings.FEED_MODEL} (stores: {', '.join(stores)})."
            )
        )
