"""The indexes every document declares: find them, compare them with the
database's, and create or rebuild what is missing or different.

Indexes are part of the schema (docs/performance.md#real-mongodb-semantics):
a unique index is what keeps one like, one repost, one follow edge or one
vote per person, and without it duplicates go in silently. So the embedded
database creates them all when it starts (socialsite/mongo.py), and against
a real server `drift()` lists each declared index that is missing or
differs, as Django lists unapplied migrations: the system check of
socialsite/checks.py shows it in `manage.py check` and at start-up, and
`/healthz` in its `indexes` field. `manage.py ensure_indexes` runs
`ensure_all()`, which fixes it (docs/operations.md#indexes).
"""

import time
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, NamedTuple

import mongoengine as me
from django.apps import apps
from mongoengine.base import common
from pymongo.errors import PyMongoError
from pymongo.operations import IndexModel

# The options that make two indexes of the same name different ones.
_OPTIONS = ("unique", "sparse", "expireAfterSeconds", "partialFilterExpression")


def all_documents() -> list[type[me.Document]]:
    for config in apps.get_app_configs():
        for module in ("documents",):
            try:
                import_module(f"{config.name}.{module}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.{module}":
                    raise
    found = {}
    for cls in common._document_registry.values():
        if (
            issubclass(cls, me.Document)
            and not cls._meta.get("abstract")
            and "collection" in cls._meta
        ):
            found[cls._get_collection_name()] = cls
    return [found[name] for name in sorted(found)]


@dataclass(frozen=True)
class Declared:
    """One index a document's `meta` declares, as `create_index` gets it."""

    collection: str
    name: str
    keys: tuple[tuple[str, Any], ...]
    options: dict = field(default_factory=dict)  # create_index's keyword arguments

    def differences(self, present: dict) -> list[str]:
        """How the database's index of this name (an `index_information()`
        entry) differs from this one; empty when it is the same index."""
        found = []
        keys = tuple((k, _direction(d)) for k, d in present.get("key", ()))
        if any(d == "text" for _, d in self.keys):
            pass  # a server stores a text index's keys as _fts/_ftsx: its name says enough
        elif keys != tuple((k, _direction(d)) for k, d in self.keys):
            found.append(f"keys {_keys(keys)}, declared {_keys(self.keys)}")
        for option in _OPTIONS:
            want, have = self.options.get(option), present.get(option)
            if option in ("unique", "sparse"):
                want, have = bool(want), bool(have)
            if _plain(want) != _plain(have):
                found.append(f"{option} {_shown(have)}, declared {_shown(want)}")
        return found


def _direction(direction: Any) -> Any:
    # A server may answer 1.0 for 1; "hashed", "text", "2dsphere" stay as they are.
    if isinstance(direction, float) and direction.is_integer():
        return int(direction)
    return direction


def _plain(value: Any) -> Any:
    """A value compared as data: sub-documents as plain dicts (a server answers
    SON), whole numbers as ints."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return _direction(value)


def _keys(keys: tuple) -> str:
    return "{" + ", ".join(f"{k}: {d}" for k, d in keys) + "}"


def _shown(value: Any) -> str:
    return "none" if value is None else str(_plain(value))


def declared(document: type[me.Document]) -> list[Declared]:
    """The indexes `document.ensure_indexes()` would create, with their names
    (a spec without one gets the server's default name, as pymongo makes it)."""
    collection = document._get_collection_name()
    index_opts = document._meta.get("index_opts") or {}
    found = []
    cls_indexed = False
    for spec in document._meta.get("index_specs") or []:
        spec = dict(spec)
        keys = tuple((k, d) for k, d in spec.pop("fields"))
        cls_indexed = cls_indexed or bool(keys and keys[0][0] == "_cls")
        options = {**index_opts, **spec}
        options.pop("cls", None)  # MongoEngine's own, never sent to the server
        found.append(_declared(collection, keys, options))
    meta = document._meta
    if meta.get("allow_inheritance") and meta.get("index_cls", True) and not cls_indexed:
        options = {k: v for k, v in index_opts.items() if k != "cls"}
        found.append(_declared(collection, (("_cls", 1),), options))
    return found


def _declared(collection: str, keys: tuple, options: dict) -> Declared:
    name = IndexModel(list(keys), **options).document["name"]
    return Declared(collection, name, keys, {**options, "name": name})


class Drift(NamedTuple):
    """A declared index the database lacks ("missing") or holds otherwise ("differs")."""

    collection: str
    name: str
    problem: str
    detail: str = ""

    @property
    def label(self) -> str:
        return f"{self.collection}.{self.name}"


def drift() -> list[Drift]:
    """Every declared index that is missing from the database or differs
    there, in collection order: one `listIndexes` per collection."""
    found = []
    for document in all_documents():
        present = document._get_collection().index_information()
        for index in declared(document):
            if index.name not in present:
                other = _same_keys(index, present)
                detail = f"an index of the same keys is named {other}" if other else ""
                found.append(Drift(index.collection, index.name, "missing", detail))
                continue
            differences = index.differences(present[index.name])
            if differences:
                found.append(
                    Drift(index.collection, index.name, "differs", "; ".join(differences))
                )
    return found


def _same_keys(index: Declared, present: dict) -> str | None:
    """The name of an undeclared index with `index`'s keys: a server refuses
    to create a second one of the same keys (IndexOptionsConflict)."""
    want = tuple((k, _direction(d)) for k, d in index.keys)
    for name, info in present.items():
        if name != "_id_" and tuple((k, _direction(d)) for k, d in info.get("key", ())) == want:
            return str(name)
    return None


def summary(found: list[Drift]) -> str:
    """`/healthz`'s `indexes` field: "ok", or "missing: a.x, b.y; differs: c.z"."""
    parts = [
        f"{problem}: " + ", ".join(d.label for d in found if d.problem == problem)
        for problem in ("missing", "differs")
        if any(d.problem == problem for d in found)
    ]
    return "; ".join(parts) or "ok"


# `/healthz` is probed every few seconds: it compares at most once a minute.
HEALTH_CACHE_SECONDS = 60.0
_health: dict[str, Any] = {"at": None, "answer": None}


def health() -> str:
    """`summary(drift())`, remembered for HEALTH_CACHE_SECONDS; "unknown: why"
    when the database would not list its indexes."""
    now = time.monotonic()
    at = _health["at"]
    if at is not None and now - at < HEALTH_CACHE_SECONDS:
        return str(_health["answer"])
    try:
        answer = summary(drift())
    except Exception as exc:  # a health probe answers, whatever the listing did
        answer = f"unknown: {type(exc).__name__}"
    _health.update(at=now, answer=answer)
    return answer


def forget_health() -> None:
    """Compare again at the next `/healthz` (after indexes changed)."""
    _health.update(at=None, answer=None)


class Change(NamedTuple):
    """What `ensure_all` did to one index: "created", "rebuilt" or "failed"."""

    action: str
    collection: str
    name: str
    detail: str = ""


def ensure_all() -> list[Change]:
    """Create every declared index that is missing; drop and create again any
    that differs (a server will not change an index's options in place).
    An index that cannot be built (duplicates under a unique one) is reported
    as "failed" and the rest go on."""
    changes = []
    for document in all_documents():
        collection = document._get_collection()
        background = document._meta.get("index_background", False)
        present = collection.index_information()
        for index in declared(document):
            action, drop = "created", None
            if index.name in present:
                differences = index.differences(present[index.name])
                if not differences:
                    continue
                action, drop, detail = "rebuilt", index.name, "; ".join(differences)
            elif (other := _same_keys(index, present)) is not None:
                action, drop, detail = "rebuilt", other, f"was named {other}"
            else:
                detail = ""
            try:
                if drop is not None:
                    collection.drop_index(drop)
                collection.create_index(list(index.keys), background=background, **index.options)
            except PyMongoError as exc:
                changes.append(Change("failed", index.collection, index.name, str(exc)))
                continue
            changes.append(Change(action, index.collection, index.name, detail))
    forget_health()
    return changes
