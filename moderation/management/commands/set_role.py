from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from moderation import services
from profiles.documents import ROLES
from socialsite.ids import parse_handle


class Command(BaseCommand):
    help = (
        "Set a user's role: user, moderator, admin or advertiser "
        "(logged in the audit log as 'system')."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("handle")
        parser.add_argument("role", choices=ROLES)

    def handle(self, *args: Any, handle: str, role: str, **options: Any) -> None:
        parsed = parse_handle(handle)
        if parsed is None:
            raise CommandError(f"Not a handle: {handle!r}")
        try:
            services.role_set(actor=None, handle=parsed, role=role)
        except services.ModerationError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"@{parsed} is now {role}."))
