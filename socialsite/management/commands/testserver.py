from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "serve the demo with `./scripts/run` (or `manage.py demo`)."
