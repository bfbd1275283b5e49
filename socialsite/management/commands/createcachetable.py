from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "the caches are in memory or in Redis (docs/operations.md)."
