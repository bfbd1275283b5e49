"""Reads that a concurrent write cannot tear.

The collection calls run under the server lock (see `__init__`), but a
`find` only builds a cursor: mongomock runs the filter, the sort and the
copies when the code first reads from it, outside any lock. A write in
another thread meanwhile changed the very dicts that read walked (a stored
document gaining a field under `$set`, the store, the index maps of
indexes.py), and the read failed with "dictionary changed size during
iteration" (once in a few thousand concurrent follow and unfollow requests
of the demo). A server hands a cursor a consistent batch; here the cursor
computes its results under the same lock, and the whole of them at once.

The database's table of collections had the same gap: two threads that
first touch a new collection at once could each create its store, and the
writes into the one that lost the race were gone; listing collections
walked that table while another thread added to it.
"""

import functools

import mongomock
import mongomock.collection
import mongomock.database
import mongomock.mongo_client
from mongomock.store import CollectionStore, DatabaseStore, ServerStore

from embedded_mongo.state import server_lock


def _locked(method):
    @functools.wraps(method)
    def call(*args, **kwargs):
        with server_lock:
            return method(*args, **kwargs)

    return call


def _created_once(make):
    """`__getitem__` of a store table: `setdefault` is one atomic step, so
    two threads asking for a new name at once get the same store."""

    def getitem(self, name):
        table = self._collections if make is CollectionStore else self._databases
        try:
            return table[name]
        except KeyError:
            return table.setdefault(name, make(name) if make is CollectionStore else make())

    return getitem


def guard_reads() -> None:
    """Install after every patch of the cursor (reads.py, batches.py): this
    wraps whatever `_compute_results` they left."""
    cursor_class = mongomock.collection.Cursor
    cursor_class._compute_results = _locked(cursor_class._compute_results)
    DatabaseStore.__getitem__ = _created_once(CollectionStore)
    ServerStore.__getitem__ = _created_once(DatabaseStore)
    database_class = mongomock.database.Database
    for name in (
        "list_collection_names",
        "create_collection",
        "drop_collection",
        "rename_collection",
    ):
        setattr(database_class, name, _locked(getattr(database_class, name)))
    client_class = mongomock.mongo_client.MongoClient
    for name in ("list_database_names", "drop_database"):
        setattr(client_class, name, _locked(getattr(client_class, name)))
