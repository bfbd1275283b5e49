"""getMore: a server hands a cursor's results over in batches.

The first batch of a `find` or `aggregate` holds 101 documents, or
batchSize when the code sets one; every further batch is one `getMore`
round trip of batchSize documents, or, with none set, as many as fit in
16 MiB. Any batch holds at least one document and at most 16 MiB. A limit
only shortens the results; a negative one asks for a single batch. Like the
driver, this asks for the next batch only when the code reads past the
current one. (A server may add one empty getMore when the results end
exactly on a batch boundary; this counts only batches that hold documents.)
"""

import functools
import time

import bson
import bson.errors
import mongomock
import mongomock.command_cursor

from embedded_mongo import observer as _observer

CURSOR_METHODS = {"find", "aggregate"}
FIRST_BATCH = 101
MAX_BATCH_BYTES = 16 * 1024 * 1024


def _batch_end(docs: list, start: int, count: int) -> int:
    """Index past the batch that starts at `start`: `count` documents (0: no
    count limit) that fit, together, in MAX_BATCH_BYTES."""
    stop = len(docs) if not count else min(len(docs), start + count)
    if stop - start <= 1:
        return stop
    size, end = 0, start
    while end < stop:
        size += _bson_size(docs[end])
        if size > MAX_BATCH_BYTES and end > start:
            break
        end += 1
    return end


def _bson_size(document) -> int:
    try:
        return len(bson.encode(document))
    except (bson.errors.InvalidDocument, TypeError, OverflowError):
        return 0  # nothing a server could have stored: count it as small


def batched(cursor, batch_size: int) -> None:
    """Mark a cursor the application opened: its batches are counted."""
    if isinstance(cursor, mongomock.command_cursor.CommandCursor):
        docs = list(cursor._collection)
        cursor._collection = iter(docs)
        cursor._demo_docs, cursor._demo_emitted = docs, 0
    cursor._demo_batch_size = batch_size
    cursor._demo_batch_end = None


def _next_batch_if_due(cursor, docs_of, emitted: int) -> None:
    """Before the document at `emitted` is handed out: the first batch is the
    find itself; reading past a batch is one more round trip."""
    end = cursor._demo_batch_end
    if end is not None and emitted < end:
        return
    started = time.perf_counter()
    docs = docs_of()
    if emitted >= len(docs):
        return
    size = cursor._demo_batch_size
    trip = getattr(cursor, "_demo_trip", None)  # the find or aggregate, for the meter
    if end is None:
        cursor._demo_batch_end = _batch_end(docs, 0, size or FIRST_BATCH)
    elif not (getattr(cursor, "_limit", None) or 0) < 0:
        trip = _observer.current.observer.record("getMore", trip.collection if trip else "")
        cursor._demo_batch_end = _batch_end(docs, emitted, size)
    else:
        return
    if trip is not None:
        ms = (time.perf_counter() - started) * 1000
        trip.batch(docs, emitted, cursor._demo_batch_end, ms)


def count_batches() -> None:
    cursor_class = mongomock.collection.Cursor
    command_cursor_class = mongomock.command_cursor.CommandCursor
    find_next = cursor_class.__next__
    command_next = command_cursor_class.__next__

    def cursor_next(self):
        if hasattr(self, "_demo_batch_end"):
            docs_of = functools.partial(self._compute_results, with_limit_and_skip=True)
            _next_batch_if_due(self, docs_of, self._emitted)
        return find_next(self)

    def command_cursor_next(self):
        if hasattr(self, "_demo_batch_end"):
            _next_batch_if_due(self, lambda: self._demo_docs, self._demo_emitted)
            self._demo_emitted += 1
        return command_next(self)

    def batch_size(self, count):
        self._demo_batch_size = count
        return self

    cursor_class.__next__ = cursor_class.next = cursor_next
    command_cursor_class.__next__ = command_cursor_class.next = command_cursor_next
    cursor_class.batch_size = command_cursor_class.batch_size = batch_size
