import getpass

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from moderation import services
from profiles import services as profiles
from socialsite.ids import parse_handle


class Command(BaseCommand):
    help = "Create an admin account, from flags or by asking (interactive)."

    def add_arguments(self, parser):
        parser.add_argument("--handle")
        parser.add_argument("--name")
        parser.add_argument("--password", help="prefer the prompt: flags end up in shell history")
        parser.add_argument("--no-input", action="store_true", help="fail instead of asking")

    def handle(self, *args, handle, name, password, no_input, **options):
        def ask(label, value, secret=False):
            if value:
                return value
            if no_input:
                raise CommandError(f"--{label} is required with --no-input")
            return getpass.getpass(f"{label.title()}: ") if secret else input(f"{label.title()}: ")

        handle = parse_handle(ask("handle", handle))
        if handle is None:
            raise CommandError("A handle is 3-30 lowercase letters, digits or _.")
        name = ask("name", name).strip() or handle
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
