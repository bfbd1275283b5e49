from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "the tests run with pytest: `./scripts/test` (docs/testing.md)."
