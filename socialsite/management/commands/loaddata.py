from socialsite.management.no_sql import NoSqlCommand


class Command(NoSqlCommand):
    instead = "use mongorestore. Demo data: `manage.py seed_demo`."
