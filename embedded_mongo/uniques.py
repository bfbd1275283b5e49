"""Fast unique-index and `$in` checks for mongomock, whose own are O(n^2)."""

import re
from collections.abc import Mapping
from datetime import datetime

import bson
import mongomock
from bson import ObjectId
from bson.errors import InvalidDocument
from mongomock import helpers
from mongomock.results import InsertManyResult
from pymongo.errors import DuplicateKeyError

from embedded_mongo import indexes, planner
from embedded_mongo.state import flags as _flags
from embedded_mongo.state import value_at as _value_at


def fast_unique_checks():
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
            # mongomock's, without running a query per stored document, and
            # only on the documents that hold every key's value (a poll's
            # votes are unique on (post, voter): the post's alone are all its
            # voters, and checking each new vote against them all made a
            # popular poll's votes cost voters * voters).
            same = 0
            for document in _holding_all(self._store, keys, wanted):
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

    def insert_many(self, documents, ordered=True, bypass_document_validation=False, session=None):
        """Check a whole batch against the unique indexes in one pass; if it
        is clean, insert without a scan per document (`_insert_checked`). A
        batch with a clash takes mongomock's own path, which reports it exactly."""
        documents = list(documents)
        clean = batch_is_unique(self, documents)
        if clean and documents and session is None:
            if not bypass_document_validation:
                for document in documents:
                    mongomock.collection.validate_is_mutable_mapping("document", document)
            return _insert_checked(self, documents, ordered)
        previous = getattr(_flags, "checked_batch", False)
        _flags.checked_batch = clean
        try:
            return original_insert_many(
                self, documents, ordered, bypass_document_validation, session
            )
        finally:
            _flags.checked_batch = previous

    collection_class._ensure_uniques = ensure_uniques
    collection_class._insert = insert
    collection_class.insert_many = insert_many


def _insert_checked(collection, documents: list, ordered: bool):
    """mongomock's `_insert` of a list whose unique keys were checked as a
    batch: each document validated, encoded (what cannot be BSON is refused)
    and stored as a copy with the server's dates, its `_id` filled in and
    checked, as there, but without what mongomock repeats per document (a
    version parse, a TTL sweep and a reader lock to look the `_id` up, the
    unique-index pass, the store's writer lock and index look-up per
    document: taken once for the batch). Seeding the demo inserts ~400,000
    documents this way at 15,000 users (docs/benchmarks.md#seeding)."""
    store = collection._store
    store._remove_expired_documents()  # once: the batch is one command
    held = store._documents
    inserted, errors = [], []
    state = indexes.live_state(store)
    with store._rwlock.writer():
        for index, data in enumerate(documents):
            if not all(isinstance(key, str) for key in data):
                raise ValueError("Document keys must be strings")
            _validate_data_fields(data)
            bson.encode(data)
            if "_id" not in data:
                data["_id"] = ObjectId()
            key = indexes.store_key(data["_id"])
            if key in held:
                message = str(DuplicateKeyError("E11000 Duplicate Key Error", 11000))
                errors.append({"index": index, "code": 11000, "errmsg": message, "op": data})
                if ordered:
                    break
                continue
            # What the store's `__setitem__` does (reads.py keeps the indexes).
            held[key] = stored = helpers.patch_datetime_awareness_in_document(data)
            if state is not None:
                state.on_set(key, stored)
            inserted.append(data["_id"])
    if errors:
        raise mongomock.BulkWriteError({"writeErrors": errors, "nInserted": len(inserted)})
    return InsertManyResult(inserted, acknowledged=True)


# Values whose type says they are no mapping: mongomock's `isinstance(value,
# Mapping)` (an ABC check) is not asked of each of them.
_NOT_MAPPINGS = frozenset({str, int, float, bool, type(None), bytes, list, ObjectId, datetime})


def _validate_data_fields(data) -> None:
    """mongomock's `_validate_data_fields`, with the same errors: no null
    character in a field name (in sub-documents, not inside arrays, as
    there), no top-level name starting with `$`."""
    _no_null_character(data)
    for key in data:
        if key.startswith("$"):
            raise InvalidDocument(
                f'Top-level field names cannot start with the "$" sign (found: {key})'
            )


def _no_null_character(data) -> None:
    for key, value in data.items():
        if "\0" in key:
            raise InvalidDocument(f"Field names cannot contain the null character (found: {key})")
        kind = type(value)
        if kind is dict or (kind not in _NOT_MAPPINGS and isinstance(value, Mapping)):
            _no_null_character(value)


def batch_is_unique(collection, documents) -> bool:
    for index in collection._store.indexes.values():
        if not index.get("unique"):
            continue
        if index.get("partialFilterExpression") is not None or index.get("sparse"):
            return False
        keys = [key for key, _ in index["key"]]
        store = collection._store
        values = [tuple(_value_at(document, k) for k in keys) for document in documents]
        if len(set(values)) < len(values):
            return False
        if not store._documents:
            continue  # nothing stored to clash with (a seeded collection's one insert)
        held = [_indexed(store, keys[0], value[0]) for value in values]
        if any(found is None for found in held):
            # One pass over the collection, rather than one per document.
            batch = set(values)
            if any(tuple(_value_at(d, k) for k in keys) in batch for d in store.documents):
                return False
            continue
        for value, stored in zip(values, held, strict=True):
            if any(tuple(_value_at(d, k) for k in keys) == value for d in stored):
                return False
    return True


def _indexed(store, field: str, value):
    """The stored documents that may hold `value` exactly at `field` (the ones
    its index files under it: a superset), or None when the index cannot tell
    (None, arrays and sub-documents are found by a walk the index does not make)."""
    if value is None or not indexes.enabled():
        return None
    keys = planner.equal(indexes.state(store), field, value)
    if keys is None:
        return None
    documents = store._documents
    return [documents[key] for key in keys if key in documents]


def _holding_all(store, keys: list[str], wanted: tuple):
    """The stored documents that may hold `wanted` at `keys` (a superset):
    those every key's index files under its value, or, when no key's index
    can tell, every document."""
    found = None
    if indexes.enabled():
        state = indexes.state(store)
        for key, value in zip(keys, wanted, strict=True):
            if value is None:
                continue
            held = planner.equal(state, key, value)
            if held is not None:
                found = held if found is None else found & held
    if found is None:
        return store.documents
    documents = store._documents
    return [documents[key] for key in found if key in documents]


def touches_unique_key(collection, update) -> bool:
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


def fast_in_op(original):
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
