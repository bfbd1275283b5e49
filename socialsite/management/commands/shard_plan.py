"""The sharding plan, read from the documents' meta (docs/performance.md).

`meta["shard_key"]` is the tuple of fields MongoEngine adds to the filter of
every single-document save and delete. `meta["shard_hashed"]`, a project key
MongoEngine ignores, names the one field of that key that is hashed: a
monotonic value (an ObjectId `_id`) or a key read only by equality is hashed
so that inserts spread over every shard instead of landing in the last chunk.

Seed 000's Sharding section gives `user` on `_id` and the timelines on their
owner; `post` is on a hashed `_id`, and the graph's edge collections on
`{_f, _t}` (Socialite's user graph service), so a celebrity's edges can split into many chunks.
Collections without a `shard_key` stay unsharded on the primary shard.
"""

from argparse import ArgumentParser
from typing import Any

import mongoengine as me
from django.core.management.base import BaseCommand, CommandError
from pymongo.database import Database
from pymongo.errors import ConnectionFailure, PyMongoError

from socialsite import indexes, mongo

HASHED = "hashed"


def db_field(document: type[me.Document], name: str) -> str:
    if name in ("id", "pk", "_id"):
        return "_id"
    field = document._fields.get(name)
    if field is None:
        raise CommandError(f"{document.__name__}: shard key field {name!r} is not a field.")
    return field.db_field


def index_keys(document: type[me.Document]) -> list[tuple[list[str], bool]]:
    """(db field names, unique) of every index the document declares, plus `_id`."""
    found = [(["_id"], True)]
    for spec in document._meta.get("index_specs", []):
        found.append(([key for key, _ in spec["fields"]], bool(spec.get("unique"))))
    return found


def shard_key(document: type[me.Document]) -> dict:
    """The document's shard key as shardCollection takes it, e.g. `{"_id": "hashed"}`."""
    hashed = document._meta.get("shard_hashed")
    names = document._meta.get("shard_key") or ()
    if hashed is not None and hashed not in names:
        raise CommandError(
            f"{document.__name__}: shard_hashed {hashed!r} is not a field of the shard key."
        )
    return {db_field(document, name): HASHED if name == hashed else 1 for name in names}


def key_problems(document: type[me.Document], key: dict) -> list[str]:
    """What would make shardCollection fail or a unique index unenforceable.

    A ranged key needs an index led by it (`ensure_indexes` makes it), and
    every unique index must start with it. A hashed key's index is made by the
    plan itself, and a unique index other than `_id` (which is then the key)
    cannot be enforced across shards at all.
    """
    fields = list(key)
    declared = index_keys(document)
    problems = []
    hashed = HASHED in key.values()
    if not hashed and not any(keys[: len(fields)] == fields for keys, _ in declared):
        problems.append(f"no index starts with the shard key {fields}")
    for keys, unique in declared:
        if not unique or keys == ["_id"]:
            continue
        if hashed:
            problems.append(f"unique index {keys} cannot be enforced on a hashed shard key")
        elif keys[: len(fields)] != fields:
            problems.append(f"unique index {keys} does not start with the shard key")
    return problems


def plan() -> list[tuple[str, dict, list[str]]]:
    """(collection, shard key, problems) for every document that declares a shard key."""
    result = []
    for document in indexes.all_documents():
        key = shard_key(document)
        if key:
            result.append((document._get_collection_name(), key, key_problems(document, key)))
    return result


def unsharded() -> list[str]:
    return [
        document._get_collection_name()
        for document in indexes.all_documents()
        if not document._meta.get("shard_key")
    ]


def js_key(key: dict) -> str:
    """`{_f: 1, _t: 1}`, `{_id: "hashed"}`: the key as mongosh spells it."""

    def spelled(value: object) -> str:
        return f'"{value}"' if isinstance(value, str) else str(value)

    return "{" + ", ".join(f"{name}: {spelled(value)}" for name, value in key.items()) + "}"


class Command(BaseCommand):
    help = (
        "Print the enableSharding/shardCollection commands for a mongos, built from "
        "the shard keys the documents declare; --apply runs them (run ensure_indexes first)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--apply", action="store_true", help="run the commands on the connected mongos"
        )

    def handle(self, *args: Any, apply: bool, **options: Any) -> None:
        db = mongo.database()
        steps = plan()
        self.stdout.write(f'sh.enableSharding("{db.name}")')
        for collection, key, _ in steps:
            if HASHED in key.values():
                # shardCollection makes this index only on an empty collection.
                self.stdout.write(
                    f'db.getSiblingDB("{db.name}").{collection}.createIndex({js_key(key)})'
                )
            self.stdout.write(f'sh.shardCollection("{db.name}.{collection}", {js_key(key)})')
        self.stdout.write(f"// unsharded (primary shard): {', '.join(unsharded()) or 'none'}")
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
                if HASHED in key.values():
                    db[collection].create_index(list(key.items()))
                admin.command("shardCollection", f"{db.name}.{collection}", key=key)
                self.stdout.write(f"sharded {db.name}.{collection} on {js_key(key)}")
        except PyMongoError as exc:
            raise CommandError(f"Sharding failed: {exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"{len(steps)} collection(s) sharded."))

    @staticmethod
    def _is_mongos(admin: Database) -> bool:
        try:
            return admin.command("hello").get("msg") == "isdbgrid"
        except ConnectionFailure as exc:
            raise CommandError(f"Cannot reach MongoDB: {exc}") from exc
        except (PyMongoError, NotImplementedError):
            return False
