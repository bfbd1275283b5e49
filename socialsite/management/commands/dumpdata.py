from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "use mongodump. A person's own data: their export at /settings/export/."
