"""`createsuperuser`, as Django projects know it: Socialsite's `create_admin`
(an admin account in MongoDB), with Django's flag names accepted too."""

from argparse import ArgumentParser

from moderation.management.commands import create_admin


class Command(create_admin.Command):
    help = "Create an admin account (the same as create_admin)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--handle", "--username", dest="handle")
        parser.add_argument("--name")
        parser.add_argument("--password", help="prefer the prompt: flags end up in shell history")
        parser.add_argument(
            "--no-input",
            "--noinput",
            dest="no_input",
            action="store_true",
            help="fail instead of asking",
        )
        parser.add_argument("--email", help="ignored: add an address at /settings/email/")
