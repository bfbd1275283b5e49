"""Django's SQL commands, answered with a sentence (docs/operations.md#commands).

Socialsite has no SQL database (DATABASES is empty, no ORM app is
installed), but `manage.py help` lists Django's own commands, and `migrate`
or `dbshell` would fail with a traceback about a database that does not
exist. The project's commands of the same names replace them: each says
what to do instead and exits with status 1, whatever arguments it gets.
"""

import sys
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandError

NO_SQL = "Socialsite keeps its data in MongoDB and has no SQL database: "


class NoSqlCommand(BaseCommand):
    """One of Django's SQL commands, replaced by the sentence `instead`."""

    instead = ""
    requires_system_checks: list[str] = []
    # Django's check that `makemigrations` and `migrate` share one autodetector
    # (django.core.checks.commands) reads this of both: the same None.
    autodetector = None

    @property
    def help(self) -> str:
        return f"Not used here. {self.instead}"

    def run_from_argv(self, argv: list[str]) -> NoReturn:
        # Any arguments: a script written for another Django project gets the
        # sentence, not a usage error.
        self.stderr.write(NO_SQL + self.instead)
        sys.exit(1)

    def handle(self, *args: Any, **options: Any) -> NoReturn:
        raise CommandError(NO_SQL + self.instead)
