"""Who each collection's documents belong to: the registry that export and
erasure walk (docs/accounts.md#export-and-erasure).

Every collection declares, in its app's `owners.py`, the fields that can
name a person (by handle, address or display name) and how that app takes
the person out of it: deleted with them, cut out of others' documents, or
left as a placeholder that names no one. The app's own services do the
work, so no app writes another's collections, and this core module only
holds the callables the apps above register (as with domain events, the
dependency still points down). A collection that names no one says so with
`fields=()`; a test fails for any collection that says nothing, so a new
one cannot be forgotten.

`erase(handle, limit)` does at most about `limit` documents' worth of work
(writes, not people or conversations: a conversation of a thousand buckets
is many batches) and returns how many it changed; the walk calls it until it
returns 0. It must be safe to run again from the start after a crash
(queries by the person, so what is done no longer matches). An eraser whose
batch can run long calls `lease_keep()` between its writes: the walk then
tells the sweeper it is alive, so no second walk starts beside it.

Exports are registered the same way, one JSON file each: `export(handle)`
returns the file's records, only what the person owns or wrote, with other
people named by handle alone.
"""

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.apps import apps

if TYPE_CHECKING:
    import mongoengine as me

Eraser = Callable[[str, int], int]
Exporter = Callable[[str], Iterable[dict]]


@dataclass(frozen=True)
class Owned:
    collection: str
    fields: tuple[str, ...]  # the fields that can name the person; () = none
    erase: Eraser | None
    app: str  # the registering app's label: the walk goes top app first
    why: str = ""  # for fields=(): why nobody is named; or what is kept


@dataclass(frozen=True)
class ExportFile:
    name: str  # "posts" -> posts.json in the zip
    export: Exporter
    app: str


_OWNED: dict[str, Owned] = {}
_EXPORTS: dict[str, ExportFile] = {}


def owned(
    collection: str,
    *,
    app: str,
    fields: tuple[str, ...],
    erase: Eraser | None = None,
    why: str = "",
) -> None:
    """Declare `collection`'s person fields and its eraser (one per collection)."""
    if fields and erase is None and not why:
        raise ValueError(f"{collection}: fields that name a person need an eraser or a why")
    if not fields and not why:
        raise ValueError(f"{collection}: say why no field names a person")
    _OWNED[collection] = Owned(collection, tuple(fields), erase, app, why)


_LEASE: ContextVar[Callable[[], None] | None] = ContextVar("erasure_lease", default=None)


@contextmanager
def lease_kept(refresh: Callable[[], None]) -> Iterator[None]:
    """While the walk runs an eraser: `lease_keep()` calls `refresh`."""
    token = _LEASE.set(refresh)
    try:
        yield
    finally:
        _LEASE.reset(token)


def lease_keep() -> None:
    """An eraser's "still working" inside a long batch; nothing outside a walk."""
    refresh = _LEASE.get()
    if refresh is not None:
        refresh()


def exported(name: str, *, app: str, export: Exporter) -> None:
    _EXPORTS[name] = ExportFile(name, export, app)


def _app_rank(label: str) -> int:
    """Installed-app order, reversed: the apps on top first, so an app's
    eraser still finds the lower apps' documents it reads (a comment's post,
    a like's post) before their own erasers run."""
    labels = [config.label for config in apps.get_app_configs()]
    return -labels.index(label) if label in labels else 0


def declared() -> dict[str, Owned]:
    return dict(_OWNED)


def naming(handle: str, *, besides: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(collection, field) for every field an eraser answers for that still
    holds the handle in some document: the erasure's verification pass
    (profiles/services/erasure_walk.py). One indexed read of one document per field; a
    field no index leads (a display name, a session's data) is not asked,
    since a scan of a large collection per erasure would cost more than the
    erasers' own queries guarantee (each of those is indexed). `besides`:
    collections not asked (the erasure's own job)."""
    from socialsite.indexes import all_documents

    documents = {document._get_collection_name(): document for document in all_documents()}
    found = []
    for entry in _OWNED.values():
        document = documents.get(entry.collection)
        # A collection with no eraser keeps what names the person on purpose
        # (the audit log), or loses it with another's (followers, following).
        if document is None or entry.erase is None or entry.collection in besides:
            continue
        led = _index_leaders(document)
        collection = document._get_collection()
        for field in entry.fields:
            if field not in led:
                continue
            if list(collection.find({field: handle}, {"_id": 1}).limit(1)):
                found.append((entry.collection, field))
    return found


def _index_leaders(document: "type[me.Document]") -> set[str]:
    """The stored names of the fields the document's indexes start with."""
    leaders = {"_id"}
    for spec in document._meta.get("indexes", []):
        fields = spec["fields"] if isinstance(spec, dict) else spec
        if not fields:
            continue
        first = fields[0].lstrip("+-$#")
        head, _, rest = first.partition(".")
        field = document._fields.get(head)
        stored = field.db_field if field is not None else head
        leaders.add(f"{stored}.{rest}" if rest else stored)
    return leaders


def erasers() -> list[Owned]:
    """Every registered eraser, in the order the walk runs them."""
    ranked = sorted(
        (entry for entry in _OWNED.values() if entry.erase is not None),
        key=lambda entry: _app_rank(entry.app),
    )
    return ranked


def export_files() -> list[ExportFile]:
    return sorted(_EXPORTS.values(), key=lambda entry: entry.name)


def _sessions_erase(handle: str, limit: int) -> int:
    from socialsite.documents import SessionRecord

    return SessionRecord._get_collection().delete_many({"user": handle}).deleted_count


def _marks_erase(handle: str, limit: int) -> int:
    from socialsite.durable import marks_erase

    return marks_erase(handle, limit)


def register_core() -> None:
    """The core's own collections (socialsite's AppConfig.ready)."""
    owned("session", app="socialsite", fields=("user", "data"), erase=_sessions_erase)
    owned("ratelimit", app="socialsite", fields=(), why="keys are keyed hashes")
    owned("once_key", app="socialsite", fields=(), why="keys are keyed hashes")
    owned("periodic_job", app="socialsite", fields=(), why="the sweepers' schedule")
    owned("task_mark", app="socialsite", fields=("args",), erase=_marks_erase)


def undeclared() -> list[str]:
    """The collections of documents whose owners no app declared (a system
    check and a test fail on any)."""
    from socialsite.indexes import all_documents

    names = [document._get_collection_name() for document in all_documents()]
    return sorted(name for name in names if name not in _OWNED)
