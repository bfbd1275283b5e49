"""The embedded database: mongomock made to behave like a MongoDB server.

Socialsite runs without `MONGODB_URI` ("demo mode", and the test suite's
first pass) on an in-process, in-memory mongomock database. mongomock answers
the pymongo API but is not a server, and a site shaped by it would break on a
real one. This package is kept outside `socialsite/` and every app because it
is not part of the site: only the connection setup (`socialsite/mongo.py`)
selects it, and no app module imports it (tests/test_layers.py checks).
See docs/embedded-database.md.

It gives mongomock two things a real server has and it lacks: each collection
call is atomic with respect to other threads (a server applies one operation
to a document atomically), and so is reading a cursor's results
(`concurrency`); and each call is reported to an observer as one round trip,
like the pymongo command listener does for a real server, with one more per
`getMore` batch a server would need for a cursor's results.

Its patches live one concern a module: `uniques` (fast unique-index and
`$in` checks), `bulk` (`bulk_write`), `batches` (getMore counting),
`push_sort` (compound `$push` `$sort`), `dates` (the stored form of
dates in one quick pass), `concurrency` (cursors and the
collection table under the server lock), and `reads` with `indexes`,
`planner`, `prefixes`, `orders` and `sorted_index` (lookups, ranges, prefix regexes,
`$elemMatch`, sorts in a declared index's order, `$match`-first aggregates
and TTL expiry served by secondary indexes, so a page does not scan or copy
whole collections) and `examined` (the documents the filters ran on, a
server's `totalDocsExamined`), `copies` (copies that share immutable values), `lookup`
(`$lookup` with a pipeline, batched and index-served) and `unwind` (`$unwind`
without a copy of the document per element).
"""

import functools
import threading
import time

import mongoengine
import mongomock
import mongomock.gridfs

from embedded_mongo import (
    batches,
    bulk,
    concurrency,
    copies,
    dates,
    expressions,
    lookup,
    push_sort,
    reads,
    uniques,
    unwind,
)
from embedded_mongo import observer as _observer
from embedded_mongo.state import flags as _flags
from embedded_mongo.state import server_lock as _server_lock

_depth = threading.local()

_COUNTED_METHODS = (
    "find",
    "find_one",
    "find_one_and_update",
    "find_one_and_replace",
    "find_one_and_delete",
    "insert_one",
    "insert_many",
    "update_one",
    "update_many",
    "replace_one",
    "delete_one",
    "delete_many",
    "bulk_write",
    "aggregate",
    "count_documents",
    "estimated_document_count",
    "distinct",
    "create_index",
    "create_indexes",
    "drop_index",
    "index_information",
    "drop",
)


_installed = False

_UPDATES = {"update_one", "update_many", "find_one_and_update"}


def _wrap(name, method):
    """Make a collection method atomic and count it as one round trip, with
    the filter it asked for, the documents it returned and the time it took
    (a cursor's batches add theirs as they are read: see `batches`)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        depth = getattr(_depth, "n", 0)
        started = time.perf_counter()
        with _server_lock:
            _depth.n = depth + 1
            skipping = getattr(_flags, "skip_unique", False)
            try:
                if depth == 0:
                    roundtrips = _observer.current.observer
                    query = roundtrips.call_query(name, args, kwargs)
                    trip = roundtrips.record(name, self.name, query)
                if name in _UPDATES and len(args) >= 2:
                    _flags.skip_unique = not uniques.touches_unique_key(self, args[1])
                result = method(self, *args, **kwargs)
                if depth == 0:
                    if name in batches.CURSOR_METHODS:
                        batches.batched(
                            result, kwargs.get("batch_size") or kwargs.get("batchSize") or 0
                        )
                        result._demo_trip = trip
                    else:
                        trip.docs, trip.reply = _observer.current.observer.call_result(
                            name, result
                        )
                return result
            finally:
                _depth.n = depth
                if depth == 0:
                    trip.ms += (time.perf_counter() - started) * 1000
                _flags.skip_unique = skipping

    return wrapper


def install() -> None:
    global _installed
    if _installed:
        return
    filtering = mongomock.filtering
    fast = uniques.fast_in_op(filtering._in_op)
    filtering._in_op = fast  # `$nin` looks it up by name
    filtering._filterer_inst._operator_map["$in"] = fast
    uniques.fast_unique_checks()
    batches.count_batches()
    push_sort.compound_push_sort()
    lookup.lookup_with_pipeline()
    unwind.unwind_without_copies()
    reads.route_reads()  # after push_sort: it re-indexes what an update leaves
    copies.share_immutable_values()
    copies.cheap_update_snapshots()
    dates.quick_date_walks()
    expressions.quick_expressions()
    concurrency.guard_reads()  # after reads and batches: it wraps their cursor
    mongomock.collection.Collection.bulk_write = bulk.bulk_write
    # Photos live in GridFS, which type-checks for pymongo's Database and
    # Collection; this lets it accept mongomock's as well.
    mongomock.gridfs.enable_gridfs_integration()
    for name in _COUNTED_METHODS:
        original = getattr(mongomock.collection.Collection, name, None)
        if original is not None:
            setattr(mongomock.collection.Collection, name, _wrap(name, original))
    _installed = True


def connect(db_name: str, observer=None) -> None:
    """Connect MongoEngine's default alias to an in-memory database;
    `observer` hears of every command (see `embedded_mongo.observer`)."""
    _observer.use(observer)
    install()
    mongoengine.connect(
        db=db_name,
        host="mongodb://localhost",
        mongo_client_class=mongomock.MongoClient,
        tz_aware=True,
        uuidRepresentation="standard",
    )
