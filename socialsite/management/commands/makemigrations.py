from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "the documents' fields are in each app's documents.py and need no migrations."
