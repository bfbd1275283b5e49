import getpass
import sys
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from moderation import services
from profiles import services as profiles
from socialsite.ids import parse_handle


class Command(BaseCommand):
    help = "Create an admin account, from flags or by asking (interactive)."
    stealth_options = ("stdin",)

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--handle")
        parser.add_argument("--name")
        parser.add_argument("--password", help="prefer the prompt: flags end up in shell history")
        parser.add_argument("--no-input", action="store_true", help="fail instead of asking")

    def execute(self, *args: Any, **options: Any) -> str | None:
        self.stdin: Any = options.get("stdin", sys.stdin)  # tests pass a fake terminal
        return super().execute(*args, **options)

    def handle(
        self,
        *args: Any,
        handle: str | None,
        name: str | None,
        password: str | None,
        no_input: bool,
        **options: Any,
    ) -> None:
        def ask(label: str, value: str | None, secret: bool = False) -> str:
            if value:
                return value
            if no_input:
                raise CommandError(f"--{label} is required with --no-input")
            if not (hasattr(self.stdin, "isatty") and self.stdin.isatty()):
                raise CommandError(f"Not a terminal: give --{label} (and --no-input).")
            if not secret:
                return input(f"{label.title()}: ")
            first = getpass.getpass("Password: ")
            if first != getpass.getpass("Password (again): "):
                raise CommandError("The passwords do not match.")
            return first

        handle = parse_handle(ask("handle", handle))
        if handle is None:
            raise CommandError("A handle is 3-30 lowercase letters, digits or _.")
        name = (name or "").strip() or ("" if no_input else ask("name", None).strip()) or handle
        password = ask("password", password, secret=True)
        try:
            password_validation.validate_password(password)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        try:
            profiles.user_create(handle=handle, name=name, password=password, role="admin")
        except profiles.HandleTaken as exc:
            raise CommandError(f"@{handle} exists already; use set_role.") from exc
        services.audit(
            moderator="system",
            action="user.role",
            target=services.Target("user", handle),
            role="admin",
        )
        self.stdout.write(self.style.SUCCESS(f"Admin @{handle} created."))
