from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = (
        'open one with `mongosh "$MONGODB_URI"` (the embedded demo database '
        "lives inside the server process and has no shell)."
    )
