"""Counting database round trips (docs/performance.md): budgets are held by counts, not clocks.

On a real server a pymongo `CommandListener` sees every command sent,
`getMore` included: a cursor's results past its first batch (101 documents
unless a batch size is set) cost one more round trip per batch. In demo mode
`embedded_mongo` counts each collection call and each such batch the
same way. Tests, benchmarks, `feed_stats`, the request log, the
`Server-Timing` header and the staff footer meter read the same counter.

Recording stays cheap because it runs for every command of every page: a
trip keeps references to the command and the reply, and the filter's shape
and the reply's BSON size are worked out only when someone reads `.details`.
"""

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import bson
import bson.errors
from pymongo import monitoring

# Commands that are driver housekeeping, not work the page asked for.
_IGNORED = {"endSessions", "hello", "isMaster", "ismaster", "ping", "saslStart", "saslContinue"}
# Where each command keeps the filter its shape is shown for.
_FILTER_FIELDS = {
    "find": "filter",
    "count": "query",
    "distinct": "query",
    "findAndModify": "query",
}
# Trips whose filter and reply a counter keeps for `.details`: the latest ones.
_KEEP_DETAILS = 5000
# Write commands: their reply's `n` is the documents they wrote or matched.
_WRITES = {"insert", "update", "delete"}


class Command(NamedTuple):
    """One round trip as the meter lists it; `shape` is the filter without its values."""

    name: str
    collection: str
    shape: str
    docs: int
    ms: float
    bytes: int


class Trip:
    """One recorded round trip, filled in when its reply arrives.

    `query` is a filter dict, an aggregation pipeline or a server command as
    `(name, document)`; `reply` is what came back (a document, a list of them, or a
    function giving them). Both are kept by reference, not copied.
    """

    __slots__ = ("collection", "docs", "ms", "name", "query", "reply")

    def __init__(self, name: str, collection: str = "", query: object = None) -> None:
        self.name = name
        self.collection = collection
        self.query = query
        self.docs = 0
        self.ms = 0.0
        self.reply: Mapping[str, Any] | list[Any] | Callable[[], list[Any]] | None = None

    def batch(self, documents: list, start: int, end: int, ms: float) -> None:
        """`documents[start:end]` came back as one batch of a cursor, in `ms`."""
        self.docs += end - start
        self.ms += ms
        self.reply = lambda: documents[start:end]

    def command(self) -> Command:
        return Command(
            self.name, self.collection, shape(self.query), self.docs, self.ms, _size(self.reply)
        )


class Counter:
    """The round trips of one `count()` block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = 0
        self.commands: list[str] = []
        self.trips: list[Trip] = []

    def add(self, trip: Trip) -> None:
        with self._lock:
            self.total += 1
            self.commands.append(trip.name)
            self.trips.append(trip)
            if self.total % _KEEP_DETAILS == 0:
                # A long count (a benchmark, a seeding) must not hold every
                # filter and reply it saw: older trips keep their numbers only.
                for old in self.trips[-2 * _KEEP_DETAILS : -_KEEP_DETAILS]:
                    old.query = old.reply = None

    @property
    def docs(self) -> int:
        """Documents the database returned (or, for writes, wrote), summed."""
        return sum(trip.docs for trip in self.trips)

    @property
    def ms(self) -> float:
        """Time spent waiting on the database, in ms."""
        return sum(trip.ms for trip in self.trips)

    @property
    def details(self) -> list[Command]:
        return [trip.command() for trip in self.trips]


_current = threading.local()
_global_lock = threading.Lock()
# Only a number: a list of every command since start-up would grow forever.
_global = {"total": 0}


def record(name: str, collection: str = "", query: object = None) -> Trip:
    """Count one round trip (called by the listener or the demo wrapper).

    Returns the trip, for the caller to fill in `docs`, `ms` and `reply`
    when the answer arrives; every counter open on this thread shares it.
    """
    trip = Trip(name, collection, query)
    with _global_lock:
        _global["total"] += 1
    for counter in getattr(_current, "counters", ()):
        counter.add(trip)
    return trip


class _Listener(monitoring.CommandListener):
    """Pairs each command's start with its outcome by request id.

    pymongo publishes all three events on the thread that runs the command,
    so the trips waiting for their reply are kept per thread.
    """

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name in _IGNORED:
            return
        command = event.command
        collection = command.get(event.command_name)
        if event.command_name == "getMore":
            collection = command.get("collection")
        trip = record(
            event.command_name,
            collection if isinstance(collection, str) else "",
            (event.command_name, command),
        )
        pending = _pending()
        if len(pending) > 1000:  # an outcome never reported: do not hoard trips
            pending.clear()
        pending[event.request_id] = trip

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        trip = _pending().pop(event.request_id, None)
        if trip is not None:
            trip.ms = event.duration_micros / 1000
            trip.reply = event.reply
            trip.docs = _docs_in(event.command_name, event.reply)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        trip = _pending().pop(event.request_id, None)
        if trip is not None:
            trip.ms = event.duration_micros / 1000


def _pending() -> dict[int, Trip]:
    pending = getattr(_current, "pending", None)
    if pending is None:
        pending = _current.pending = {}
    return pending


def _docs_in(name: str, reply: Mapping[str, Any]) -> int:
    """Documents in a server reply: a cursor's batch, a write's `n`."""
    cursor = reply.get("cursor")
    if isinstance(cursor, dict):
        batch = cursor.get("firstBatch", cursor.get("nextBatch"))
        return len(batch) if batch is not None else 0
    if name in _WRITES:
        return int(reply.get("n") or 0)
    if name == "findAndModify":
        return int(reply.get("value") is not None)
    if name == "distinct":
        return len(reply.get("values") or ())
    return 0


listener = _Listener()


@contextmanager
def count() -> Iterator[Counter]:
    """Count the round trips made by this thread inside the block.

    Blocks nest, and an outer block counts what the inner ones count: a test
    that counts around a request sees the trips the request log counts too.

    >>> with count() as c: ...
    >>> c.total, c.docs, c.ms, c.details
    """
    if not hasattr(_current, "counters"):
        _current.counters = []
    counter = Counter()
    _current.counters.append(counter)
    try:
        yield counter
    finally:
        _current.counters.remove(counter)


def total() -> int:
    """Round trips made by every thread since start-up."""
    return _global["total"]


# --- Counting collection calls (the demo database's wrapper) ---------------------

_UNFILTERED = {
    "insert_one",
    "insert_many",
    "bulk_write",
    "estimated_document_count",
    "create_index",
    "create_indexes",
    "drop_index",
    "index_information",
    "drop",
}


def call_query(name: str, args: Sequence[object], kwargs: Mapping[str, object]) -> object:
    """The filter (or pipeline) a pymongo-style collection call asked for, by
    reference: its shape is worked out only when someone reads it."""
    if name in _UNFILTERED:
        return None
    position = 1 if name == "distinct" else 0
    if len(args) > position:
        return args[position]
    return kwargs.get("pipeline" if name == "aggregate" else "filter")


# `result` is whatever the collection method returned (a document, a list,
# a pymongo result object), told apart by what it holds.
def call_result(name: str, result: Any) -> tuple[int, object]:
    """Documents a server would count in its reply to a collection call that
    returns no cursor, and the reply itself (for its size) when it is one."""
    if name.startswith("find_one"):
        return int(result is not None), result
    if name == "count_documents":
        return 1, None  # a server answers it with one {n: ...} document
    if name == "distinct":
        return len(result), None
    raw = getattr(result, "raw_result", None)
    if isinstance(raw, dict) and "n" in raw:
        return int(raw["n"] or 0), None
    if hasattr(result, "inserted_ids"):
        return len(result.inserted_ids), None
    if hasattr(result, "inserted_id"):
        return 1, None
    counts = ("inserted_count", "matched_count", "deleted_count", "upserted_count")
    return sum(getattr(result, field, 0) or 0 for field in counts), None


# --- Shapes and sizes, worked out only when asked for ----------------------------

# A filter with its values hidden: keys kept, every value "?".
type Shape = str | dict[str, Shape] | list[Shape]


def shape(query: object) -> str:
    """The filter with every value replaced by "?": what was asked, not for whom.

    A server command shows its filter (the first statement's, for writes);
    a pipeline shows its `$match` filters and the names of its other stages.
    """
    if query is None:
        return ""
    if isinstance(query, tuple):
        return _command_shape(*query)
    if isinstance(query, list):
        return _dumps([_stage(stage) for stage in query])
    return _dumps(_hide(query)) if isinstance(query, dict) else "?"


def _command_shape(name: str, command: Mapping[str, Any]) -> str:
    if name in _FILTER_FIELDS:
        return shape(command.get(_FILTER_FIELDS[name]) or {})
    if name == "aggregate":
        return shape(list(command.get("pipeline") or []))
    if name in ("update", "delete"):
        statements = command.get(name + "s") or [{}]
        return shape(statements[0].get("q") or {})
    return ""  # insert, getMore, index commands: no filter


def _stage(stage: object) -> Shape:
    if not isinstance(stage, dict) or not stage:
        return "?"
    operator = next(iter(stage))
    if operator == "$match":
        return {"$match": _hide(stage[operator])}
    return operator


def _hide(value: object) -> Shape:
    """Keep keys (fields and operators), replace every value."""
    if isinstance(value, dict):
        return {str(key): _hide(inner) for key, inner in value.items()}
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
        return [_hide(inner) for inner in value]  # $and / $or / $nor: clauses, not values
    return "?"


def _dumps(value: Shape) -> str:
    return json.dumps(value, ensure_ascii=False)


# Any: a reply is whatever the driver or the embedded database handed back,
# measured defensively (what cannot be encoded counts 0).
def _size(reply: Any) -> int:
    """BSON bytes of what came back (0 when nothing did or it cannot be encoded)."""
    if reply is None:
        return 0
    try:
        if callable(reply):
            reply = reply()
        if isinstance(reply, (list, tuple)):
            return sum(_size(document) for document in reply)
        raw = getattr(reply, "raw", None)
        if isinstance(raw, bytes):
            return len(raw)
        return len(bson.encode(reply))
    except (bson.errors.InvalidDocument, TypeError, ValueError, OverflowError):
        return 0
