"""Demo mode: an in-process mongomock database.

This is the only application module that imports mongomock. It gives
mongomock two things a real server has and it lacks: each collection call is
atomic with respect to other threads (a server applies one operation to a
document atomically), and each call is counted as one round trip, like the
pymongo command listener does for a real server.
"""

import functools
import threading

import mongoengine
import mongomock
import mongomock.gridfs

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


def _wrap(name, method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        depth = getattr(_depth, "n", 0)
        with _server_lock:
            _depth.n = depth + 1
            try:
                if depth == 0:
                    roundtrips.record(name)
                return method(self, *args, **kwargs)
            finally:
                _depth.n = depth

    return wrapper


def install() -> None:
    global _installed
    if _installed:
        return
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
