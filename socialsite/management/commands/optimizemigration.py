from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "there are no migrations to optimize."
