from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "each app's documents.py describes its collections."
