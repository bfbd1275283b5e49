"""The sharding plan, read from the documents' `meta["shard_key"]`.

Seed 000's Sharding section: `user` on `_id`, the timelines on their owner,
`post` on `_id`; the graph's edge collections shard on `_f` (seed 003).
"""

from django.core.management.base import BaseCommand, CommandError
from pymongo.errors import ConnectionFailure, PyMongoError

from socialsite import indexes, mongo


def db_field(document, name: str) -> str:
    if name in ("id", "pk", "_id"):
        return "_id"
    field = document._fields.get(name)
    if field is None:
        raise CommandError(f"{document.__name__}: shard key field {name!r} is not a field.")
    return field.db_field


def index_keys(document) -> list[tuple[list[str], bool]]:
    """(db field names, unique) of every index the document declares, plus `_id`."""
    found = [(["_id"], True)]
    for spec in document._meta.get("index_specs", []):
        found.append(([key for key, _ in spec["fields"]], bool(spec.get("unique"))))
    return found


def plan() -> list[tuple[str, dict, list[str]]]:
    """(collection, shard key, problems) for every document that declares a shard key.

    shardCollection needs an index whose prefix is the shard key, and every
    unique index of a sharded collection must start with the shard key.
    """
    result = []
    for document in indexes.all_documents():
        names = document._meta.get("shard_key") or ()
        if not names:
            continue
        key = {db_field(document, name): 1 for name in names}
        fields = list(key)
        problems = []
        declared = index_keys(document)
        if not any(keys[: len(fields)] == fields for keys, _ in declared):
            problems.append(f"no index starts with the shard key {fields}")
        for keys, unique in declared:
            if unique and keys != ["_id"] and keys[: len(fields)] != fields:
                problems.append(f"unique index {keys} does not start with the shard key")
        result.append((document._get_collection_name(), key, problems))
    return result


def js_key(key: dict) -> str:
    return "{" + ", ".join(f"{name}: {value}" for name, value in key.items()) + "}"


class Command(BaseCommand):
    help = (
        "Print the enableSharding/shardCollection commands for a mongos, built from "
        "the shard keys the documents declare; --apply runs them (run ensure_indexes first)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--apply", action="store_true", help="run the commands on the connected mongos"
        )

    def handle(self, *args, apply, **options):
        db = mongo.database()
        steps = plan()
        self.stdout.write(f'sh.enableSharding("{db.name}")')
        for collection, key, _ in steps:
            self.stdout.write(f'sh.shardCollection("{db.name}.{collection}", {js_key(key)})')
        problems = [f"{c}: {p}" for c, _, found in steps for p in found]
        for problem in problems:
            self.stderr.write(f"warning: {problem}")
        if not apply:
            return
        if problems:
            raise CommandError("Fix the shard key problems above before sharding.")
        admin = db.client.admin
        if mongo.is_demo() or not self._is_mongos(admin):
            raise CommandError(
                "Not connected to a mongos: sharding commands need MONGODB_URI to point "
                "at the mongos router of a sharded cluster."
            )
        try:
            admin.command("enableSharding", db.name)
            for collection, key, _ in steps:
                admin.command("shardCollection", f"{db.name}.{collection}", key=key)
                self.stdout.write(f"sharded {db.name}.{collection} on {js_key(key)}")
        except PyMongoError as exc:
            raise CommandError(f"Sharding failed: {exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"{len(steps)} collection(s) sharded."))

    @staticmethod
    def _is_mongos(admin) -> bool:
        try:
            return admin.command("hello").get("msg") == "isdbgrid"
        except ConnectionFailure as exc:
            raise CommandError(f"Cannot reach MongoDB: {exc}") from exc
        except (PyMongoError, NotImplementedError):
            return False
