"""Serve an in-memory MongoDB wire-protocol server for the test suite's second pass.

    .venv/bin/python scripts/wire_server.py [--port N]

Prints the server's URI (`mongodb://127.0.0.1:<port>/?directConnection=true`)
as its first line of output, then serves until it gets SIGTERM or SIGINT.
`./scripts/test` points `MONGODB_TEST_URI` at it, so the suite goes through
real pymongo: wire protocol, cursors with `getMore`, server-side unique
indexes and the command listener that counts round trips.

The server is mongoeco's (`mongoeco[wire]`, Python >= 3.13), speaking as
MongoDB 7.0 to a pymongo 4.9+ client. It keeps everything in memory and is
gone when it stops. It lives here, not in the app: the site never needs it.

One speed fix on top of mongoeco 4.11: its in-memory engine checks a compound
unique index (our `(_f, _t)` edges, `(discussion_id, slug)` comments, ...) by
scanning the whole collection on every write, so inserting n documents costs
n^2 and a 2,000-comment test holds the server's one event loop for minutes
(pymongo's monitor then times out and cancels the operation). The engine
already keeps a hash map per compound index; `_IndexedUniqueEngine` looks the
candidate's key up there instead of scanning, and leaves everything else
(single-field, collated and multikey unique indexes) to mongoeco.

Two more speed fixes, found by profiling the server under the suite's second
pass: a single-document insert also scans the whole collection to compare
`_id`s (to catch numeric ids stored under another number type, 1 vs 1.0), so
inserting n documents one by one costs n^2; `_IndexedUniqueEngine` skips the
scan when the `_id` holds no number (ObjectId, string), where the storage-key
check it keeps already finds every duplicate. And the engine copies each
document it reads or writes several times with `copy.deepcopy`, which spends
most of its time on memo bookkeeping and `__reduce_ex__` for ObjectIds and
datetimes; `_fast_deepcopy` copies dicts and lists itself, keeps immutable
scalars as they are, and hands anything else to `copy.deepcopy` (a BSON
document has no shared references or cycles, the only thing a memo is for).

And one behaviour fix: mongoeco answers a `find` or `aggregate` with no batch
size in one batch, however long. MongoDB sends 101 documents first and the
rest on `getMore`, and the round-trip budgets (docs/performance.md) count those
`getMore`s, so `_first_batch_of_101` makes the server do the same. (MongoDB's
16 MiB cap on a batch is not copied: no page here reads that much.)
"""

import argparse
import asyncio
import signal
import sys

# What the server says it is: the MongoDB release whose behaviour it follows,
# and the oldest pymongo profile our pin (pymongo>=4.10) satisfies.
MONGODB_DIALECT = "7.0"
PYMONGO_PROFILE = "4.9"


def _indexed_unique_engine():
    """mongoeco's MemoryEngine with compound unique checks served by its index map."""
    from mongoeco.core.identity import id_contains_numeric_value
    from mongoeco.engines.memory import MemoryEngine
    from mongoeco.engines.virtual_indexes import document_in_virtual_index

    class _IndexedUniqueEngine(MemoryEngine):
        def _ensure_unique_indexes(self, db_name, coll_name, candidate, **kwargs):
            if (
                kwargs.get("scan_payload_id")
                and kwargs.get("check_id_storage")
                and "_id" in candidate
                and not id_contains_numeric_value(candidate["_id"])
            ):
                # The storage-key lookup finds any equal non-numeric _id.
                kwargs = {**kwargs, "scan_payload_id": False}
            indexes_view = kwargs.get("indexes_view")
            indexes = (
                (self._indexes if indexes_view is None else indexes_view)
                .get(db_name, {})
                .get(coll_name, [])
            )
            index_data_view = kwargs.get("index_data_view")
            index_maps = (
                (self._index_data if index_data_view is None else index_data_view)
                .get(db_name, {})
                .get(coll_name, {})
            )
            looked_up = [
                index
                for index in indexes
                if index.get("unique")
                and len(index["fields"]) > 1
                and index.get("collation") is None
                and index_maps.get(index["name"]) is not None
                # The map keys a multikey document by its first array element only.
                and not self._compound_multikey_array_paths(candidate, index["fields"])
            ]
            if not looked_up:
                return super()._ensure_unique_indexes(db_name, coll_name, candidate, **kwargs)
            rest = [index for index in indexes if index not in looked_up]
            super()._ensure_unique_indexes(
                db_name,
                coll_name,
                candidate,
                **{**kwargs, "indexes_view": {db_name: {coll_name: rest}}},
            )
            storage_view = kwargs.get("storage_view")
            coll = (
                (self._storage if storage_view is None else storage_view)
                .get(db_name, {})
                .get(coll_name, {})
            )
            exclude = kwargs.get("exclude_storage_key")
            if exclude is not None and exclude not in coll:
                exclude = self._storage_key(exclude)
            for index in looked_up:
                if not document_in_virtual_index(candidate, index):
                    continue
                self._validate_compound_multikey_shape(candidate, index)
                key = self._index_key(candidate, index["fields"])
                for storage_key in index_maps[index["name"]].get(key, ()):
                    if storage_key == exclude or storage_key not in coll:
                        continue
                    existing = self._borrow_storage_document(coll[storage_key])
                    if not document_in_virtual_index(existing, index):
                        continue
                    conflict = self._unique_index_conflict(candidate, existing, index)
                    if conflict is not None:
                        raise self._unique_key_error(
                            f"Duplicate key for unique index '{index['name']}': "
                            f"{index['fields']}={conflict!r}",
                            f"{db_name}.{coll_name}",
                            candidate,
                            index=index,
                            conflict=conflict,
                        )
            return None

    return _IndexedUniqueEngine()


# MongoDB's first batch when the command sets no batch size.
MONGODB_FIRST_BATCH = 101


def _first_batch_of_101() -> None:
    from mongoeco.wire.cursors import WireCursorStore

    resolve = WireCursorStore._resolve_batch_size

    def resolve_like_mongodb(command_document):
        batch_size = resolve(command_document)
        if batch_size is None and not command_document.get("singleBatch"):
            return MONGODB_FIRST_BATCH
        return batch_size

    WireCursorStore._resolve_batch_size = staticmethod(resolve_like_mongodb)


def _fast_deepcopy_everywhere() -> None:
    """Make `copy.deepcopy` `_fast_deepcopy` in this process, mongoeco's modules included.

    Called before mongoeco is imported, so its `from copy import deepcopy`s get it.
    """
    import copy
    import datetime
    import decimal
    import uuid

    import bson

    deepcopy = copy.deepcopy
    immutable = {
        str,
        int,
        float,
        bool,
        bytes,
        type(None),
        datetime.datetime,
        datetime.date,
        datetime.timedelta,
        decimal.Decimal,
        uuid.UUID,
        bson.ObjectId,
        bson.Int64,
        bson.Decimal128,
        bson.Timestamp,
        bson.MinKey,
        bson.MaxKey,
    }

    def _fast_deepcopy(value, memo=None, _nil=None):
        kind = type(value)
        if kind in immutable:
            return value
        if memo is not None:
            return deepcopy(value, memo)
        if kind is dict:
            return {key: _fast_deepcopy(item) for key, item in value.items()}
        if kind is list:
            return [_fast_deepcopy(item) for item in value]
        return deepcopy(value)

    copy.deepcopy = _fast_deepcopy
    from mongoeco._types._bson_objectid import ObjectId

    immutable.add(ObjectId)
    for name, module in list(sys.modules.items()):
        if name.startswith("mongoeco") and getattr(module, "deepcopy", None) is deepcopy:
            module.deepcopy = _fast_deepcopy


async def serve(host: str, port: int) -> None:
    try:
        _fast_deepcopy_everywhere()
        from mongoeco.wire import AsyncMongoEcoProxyServer
    except ImportError as exc:
        sys.exit(
            f"wire_server: mongoeco[wire] is not installed ({exc}); it needs Python >= 3.13 "
            "and the dev extra: .venv/bin/python -m pip install -e '.[dev]'"
        )

    _first_batch_of_101()
    server = AsyncMongoEcoProxyServer(
        engine=_indexed_unique_engine(),
        host=host,
        port=port,
        mongodb_dialect=MONGODB_DIALECT,
        pymongo_profile=PYMONGO_PROFILE,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    address = await server.start()
    try:
        print(address.uri, flush=True)
        await stop.wait()
    finally:
        await server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 (default): any free port")
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port))


if __name__ == "__main__":
    main()
