from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "there are no migrations. `manage.py ensure_indexes` lists and creates the indexes."
