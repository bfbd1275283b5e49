from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = (
        "there is nothing to migrate. `manage.py "
        "ensure_indexes` creates the indexes (`./scripts/run` does it)."
    )
