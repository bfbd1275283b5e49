from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = (
        "to start again, drop the database with mongosh; "
        "the demo's embedded database is new at every start."
    )
