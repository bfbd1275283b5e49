"""Demo mode: an in-process mongomock database.

This is the only application module that imports mongomock. It gives
mongomock two things a real server has and it lacks: each collection call is
atomic with respect to other threads (a server applies one operation to a
document atomically), and each call is counted as one round trip, like the
pymongo command listener does for a real server, with one more per `getMore`
batch a server would need for a cursor's results.
"""

import functools
import re
import threading

import bson
import bson.errors
import mongoengine
import mongomock
import mongomock.command_cursor
import mongomock.gridfs
from pymongo.errors import DuplicateKeyError

from socialsite import roundtrips

# One lock for the whole in-memory server: operations are serialised the way a
# single mongod serialises writes to a document. Re-entrant because mongomock
# methods call each other (find_one -> find).
_server_lock = threading.RLock()
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
_flags = threading.local()


def _value_at(document, dotted: str):
    value = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _fast_unique_checks():
    """mongomock re-checks every unique index by scanning the collection after
    each modified document, so an update_many over n documents costs n * n.
    An update that changes no unique-index field cannot break uniqueness: skip
    the scan then. Inserts (including upserts) are always checked."""
    collection_class = mongomock.collection.Collection
    original_ensure = collection_class._ensure_uniques
    original_insert = collection_class._insert

    def ensure_uniques(self, new_data):
        if getattr(_flags, "checked_batch", False):
            return None
        if getattr(_flags, "skip_unique", False) and not getattr(_flags, "inserting", False):
            return None
        for index in self._store.indexes.values():
            if not index.get("unique"):
                continue
            if index.get("partialFilterExpression") is not None:
                return original_ensure(self, new_data)
            keys = [key for key, _ in index["key"]]
            wanted = tuple(_value_at(new_data, key) for key in keys)
            if index.get("sparse") and set(wanted) == {None}:
                continue
            # A direct comparison of the key values: the same check as
            # mongomock's, without running a query per stored document.
            same = 0
            for document in self._store.documents:
                if tuple(_value_at(document, key) for key in keys) == wanted:
                    same += 1
                    if same > 1:
                        raise DuplicateKeyError("E11000 Duplicate Key Error", 11000)
        return None

    def insert(self, *args, **kwargs):
        inserting = getattr(_flags, "inserting", False)
        _flags.inserting = True
        try:
            return original_insert(self, *args, **kwargs)
        finally:
            _flags.inserting = inserting

    original_insert_many = collection_class.insert_many

    def insert_many(self, documents, *args, **kwargs):
        """Check a whole batch against the unique indexes in one pass; if it
        is clean, insert without a scan per document. A batch with a clash
        takes mongomock's own path, which reports it exactly."""
        documents = list(documents)
        clean = _batch_is_unique(self, documents)
        previous = getattr(_flags, "checked_batch", False)
        _flags.checked_batch = clean
        try:
            return original_insert_many(self, documents, *args, **kwargs)
        finally:
            _flags.checked_batch = previous

    collection_class._ensure_uniques = ensure_uniques
    collection_class._insert = insert
    collection_class.insert_many = insert_many


def _batch_is_unique(collection, documents) -> bool:
    for index in collection._store.indexes.values():
        if not index.get("unique"):
            continue
        if index.get("partialFilterExpression") is not None or index.get("sparse"):
            return False
        keys = [key for key, _ in index["key"]]
        seen = {tuple(_value_at(d, k) for k in keys) for d in collection._store.documents}
        for document in documents:
            value = tuple(_value_at(document, k) for k in keys)
            if value in seen:
                return False
            seen.add(value)
    return True


class _BulkResult:
    def __init__(self):
        self.acknowledged = True
        self.inserted_count = self.matched_count = self.modified_count = 0
        self.deleted_count = self.upserted_count = 0
        self.upserted_ids: dict = {}


def _bulk_write(self, requests, ordered=True, **kwargs):
    """bulk_write for mongomock, which cannot build pymongo 4.9+'s operations.

    Applies each operation with the matching single-document call, under the
    server lock, and counts the whole batch as one round trip like a server.
    """
    from pymongo import DeleteMany, DeleteOne, InsertOne, ReplaceOne, UpdateMany, UpdateOne
    from pymongo.errors import BulkWriteError, DuplicateKeyError

    result, errors = _BulkResult(), []
    for index, op in enumerate(requests):
        try:
            if isinstance(op, InsertOne):
                self.insert_one(op._doc)
                result.inserted_count += 1
                continue
            if isinstance(op, (UpdateOne, UpdateMany, ReplaceOne)):
                call = {
                    UpdateOne: self.update_one,
                    UpdateMany: self.update_many,
                    ReplaceOne: self.replace_one,
                }[type(op)]
                extra = {}
                if getattr(op, "_array_filters", None):
                    extra["array_filters"] = op._array_filters
                res = call(op._filter, op._doc, upsert=op._upsert, **extra)
                result.matched_count += res.matched_count
                result.modified_count += res.modified_count
                if res.upserted_id is not None:
                    result.upserted_count += 1
                    result.upserted_ids[index] = res.upserted_id
                continue
            if isinstance(op, (DeleteOne, DeleteMany)):
                call = self.delete_one if isinstance(op, DeleteOne) else self.delete_many
                result.deleted_count += call(op._filter).deleted_count
                continue
            raise TypeError(f"unsupported bulk operation {op!r}")
        except DuplicateKeyError as exc:
            errors.append({"index": index, "code": 11000, "errmsg": str(exc), "op": op})
            if ordered:
                break
    if errors:
        raise BulkWriteError(
            {
                "writeErrors": errors,
                "nInserted": result.inserted_count,
                "nMatched": result.matched_count,
                "nModified": result.modified_count,
                "nRemoved": result.deleted_count,
                "nUpserted": result.upserted_count,
                "upserted": [],
                "writeConcernErrors": [],
            }
        )
    return result


_UPDATES = {"update_one", "update_many", "find_one_and_update"}


def _touches_unique_key(collection, update) -> bool:
    """Whether an update document may change a field of a unique index."""
    if not isinstance(update, dict):
        return True  # an aggregation pipeline: assume it may
    fields = [f for op, spec in update.items() if isinstance(spec, dict) for f in spec]
    keys = [
        key
        for index in collection._store.indexes.values()
        if index.get("unique")
        for key, _ in index["key"]
    ]
    return any(
        f == k or f.startswith(k + ".") or k.startswith(f + ".") for f in fields for k in keys
    )


def _wrap(name, method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        depth = getattr(_depth, "n", 0)
        with _server_lock:
            _depth.n = depth + 1
            skipping = getattr(_flags, "skip_unique", False)
            try:
                if depth == 0:
                    roundtrips.record(name)
                if name in _UPDATES and len(args) >= 2:
                    _flags.skip_unique = not _touches_unique_key(self, args[1])
                result = method(self, *args, **kwargs)
                if depth == 0 and name in _CURSOR_METHODS:
                    _batched(result, kwargs.get("batch_size") or kwargs.get("batchSize") or 0)
                return result
            finally:
                _depth.n = depth
                _flags.skip_unique = skipping

    return wrapper


# --- getMore: a server hands a cursor's results over in batches ----------------
# The first batch of a `find` or `aggregate` holds 101 documents, or
# batchSize when the code sets one; every further batch is one `getMore`
# round trip of batchSize documents, or, with none set, as many as fit in
# 16 MiB. Any batch holds at least one document and at most 16 MiB. A limit
# only shortens the results; a negative one asks for a single batch. Like the
# driver, this asks for the next batch only when the code reads past the
# current one. (A server may add one empty getMore when the results end
# exactly on a batch boundary; this counts only batches that hold documents.)
_CURSOR_METHODS = {"find", "aggregate"}
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


def _batched(cursor, batch_size: int) -> None:
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
    docs = docs_of()
    if emitted >= len(docs):
        return
    size = cursor._demo_batch_size
    if end is None:
        cursor._demo_batch_end = _batch_end(docs, 0, size or FIRST_BATCH)
    elif not (getattr(cursor, "_limit", None) or 0) < 0:
        roundtrips.record("getMore")
        cursor._demo_batch_end = _batch_end(docs, emitted, size)


def _count_batches() -> None:
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


# --- $push with a compound $sort ----------------------------------------------
# mongomock sorts a `$push` `$each` by ONE key of a compound `$sort` (whichever
# a set yields first), so entries of the same millisecond land out of
# (ts, id) order and the `$slice` after it may keep the wrong ones. A server
# sorts by every key in turn. This takes a compound `$sort` (and the `$slice`
# that applies after it) out of the update, lets mongomock push, then sorts
# and slices the array the way a server does.


def _compound_push_sort() -> None:
    collection_class = mongomock.collection.Collection
    original = collection_class._apply_update_document

    def apply_update_document(self, existing_document, spec, document, was_insert):
        pushes = document.get("$push") if isinstance(document, dict) else None
        compound = {
            field: value
            for field, value in (pushes or {}).items()
            if "$" not in field
            and isinstance(value, dict)
            and isinstance(value.get("$sort"), dict)
            and len(value["$sort"]) > 1
        }
        if not compound:
            return original(self, existing_document, spec, document, was_insert)
        plain = {
            field: {k: v for k, v in value.items() if k not in ("$sort", "$slice")}
            if field in compound
            else value
            for field, value in pushes.items()
        }
        result = original(self, existing_document, spec, {**document, "$push": plain}, was_insert)
        for field, value in compound.items():
            _sort_and_slice(existing_document, field, value["$sort"], value.get("$slice"))
        return result

    collection_class._apply_update_document = apply_update_document


def _sort_and_slice(document: dict, dotted: str, order: dict, keep) -> None:
    *parents, name = dotted.split(".")
    for part in parents:
        document = document[part]
    items = document[name]
    # Stable sorts, last key first: the result is ordered by every key in turn.
    for key, direction in reversed(list(order.items())):
        items.sort(
            key=lambda item, key=key: mongomock.filtering.resolve_sort_key(key, item),
            reverse=direction < 0,
        )
    if keep is not None:
        document[name] = items[:keep] if keep >= 0 else items[keep:]


def _fast_in_op(original):
    """mongomock's `$in` re-examines the whole list for every document, which
    makes a fan-out over n readers cost n * n. This remembers, for the list of
    the running query, a set of its hashable values."""
    remembered: list = [None, None]  # [the list, (set of values, has regex)]

    def in_op(doc_val, search_val):
        if not isinstance(search_val, (list, tuple)):
            return original(doc_val, search_val)
        if remembered[0] is not search_val:
            try:
                values = frozenset(search_val)
            except TypeError:
                return original(doc_val, search_val)
            has_regex = any(isinstance(x, re.Pattern) for x in search_val)
            remembered[:] = [search_val, (values, has_regex)]
        values, has_regex = remembered[1]
        if has_regex or doc_val is mongomock.filtering.NOTHING:
            return original(doc_val, search_val)
        items = doc_val if isinstance(doc_val, (list, tuple)) else [doc_val]
        try:
            return any(item in values for item in items)
        except TypeError:  # an unhashable value in the document
            return original(doc_val, search_val)

    return in_op


def install() -> None:
    global _installed
    if _installed:
        return
    filtering = mongomock.filtering
    fast = _fast_in_op(filtering._in_op)
    filtering._in_op = fast  # `$nin` looks it up by name
    filtering._filterer_inst._operator_map["$in"] = fast
    _fast_unique_checks()
    _count_batches()
    _compound_push_sort()
    mongomock.collection.Collection.bulk_write = _bulk_write
    # Photos live in GridFS, which type-checks for pymongo's Database and
    # Collection; this lets it accept mongomock's as well.
    mongomock.gridfs.enable_gridfs_integration()
    for name in _COUNTED_METHODS:
        original = getattr(mongomock.collection.Collection, name, None)
        if original is not None:
            setattr(mongomock.collection.Collection, name, _wrap(name, original))
    _installed = True


def connect(db_name: str) -> None:
    install()
    mongoengine.connect(
        db=db_name,
        host="mongodb://localhost",
        mongo_client_class=mongomock.MongoClient,
        tz_aware=True,
        uuidRepresentation="standard",
    )
