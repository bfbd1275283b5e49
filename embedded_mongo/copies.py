"""Copies of stored documents that do not copy what cannot change.

mongomock copies documents with `copy.deepcopy` (the snapshot of every
document an update touches, every `$set` value, aggregate stages) and
`copy.copy` (each value of a returned document). Both rebuild each ObjectId
and datetime through pickling's `__reduce_ex__`, which is most of the cost of
updating a timeline document of a few hundred entries. Those values are
immutable, so a copy may share them: this copier rebuilds only dicts and
lists, and leaves anything else to the `copy` module.
"""

import copy
import datetime
import threading
import types
import uuid
from collections import OrderedDict

import mongomock.aggregate
import mongomock.collection
import mongomock.helpers
from bson import Decimal128, Int64, ObjectId

from embedded_mongo import indexes, snapshots

_ATOMIC = frozenset(
    {str, int, float, bool, type(None), bytes, ObjectId, datetime.datetime, Decimal128, Int64}
    | {uuid.UUID}
)


def deepcopy(value, memo=None):
    if memo is not None or not indexes.enabled():  # off: mongomock as it was
        return copy.deepcopy(value, memo)
    return _deep(value)


def _deep(value):
    kind = type(value)
    if kind is dict:
        return {key: _deep(item) for key, item in value.items()}
    if kind is OrderedDict:  # mongomock keeps each stored document as one
        return OrderedDict((key, _deep(item)) for key, item in value.items())
    if kind is list:
        return [_deep(item) for item in value]
    if kind in _ATOMIC:
        return value
    return copy.deepcopy(value)


# What `aware_copy` returns as it is: immutable, and not a date to make aware.
_SHARED = _ATOMIC - {datetime.datetime}


def aware_copy(value):
    """A stored document as a reader with `tz_aware` gets it, in one pass:
    `_copy_field` and then `make_datetime_timezone_aware_in_document` walk it
    twice, rebuilding every ObjectId on the way."""
    kind = type(value)
    if kind is dict or kind is OrderedDict:
        return _aware_dict(value)
    if kind is list:
        return _aware_list(value)
    if kind is datetime.datetime:
        return value.replace(tzinfo=mongomock.helpers.utc)
    if kind in _ATOMIC:
        return value
    return copy.deepcopy(value)


# The two containers decide each item's type in the loop, without a call for
# every id, string and number: a timeline document is hundreds of entries of
# a few such values each, copied whole on every read of it.
def _aware_dict(value) -> dict:
    out = {}
    for key, item in value.items():
        kind = type(item)
        if kind in _SHARED:
            out[key] = item
        elif kind is datetime.datetime:
            out[key] = item.replace(tzinfo=mongomock.helpers.utc)
        elif kind is dict or kind is OrderedDict:
            out[key] = _aware_dict(item)
        elif kind is list:
            out[key] = _aware_list(item)
        else:
            out[key] = copy.deepcopy(item)
    return out


def _aware_list(value) -> list:
    out = []
    for item in value:
        kind = type(item)
        if kind in _SHARED:
            out.append(item)
        elif kind is dict or kind is OrderedDict:
            out.append(_aware_dict(item))
        else:
            out.append(aware_copy(item))
    return out


def shallow(value):
    if type(value) in _ATOMIC and indexes.enabled():
        return value
    return copy.copy(value)


def share_immutable_values() -> None:
    fast = types.SimpleNamespace(deepcopy=deepcopy, copy=shallow)
    mongomock.collection.copy = fast
    mongomock.aggregate.copy = fast


_updating = threading.local()


def _remember_update(original):
    def _update(self, spec, document, *args, **kwargs):
        _updating.document = document
        # As mongomock's `_update` reads it: `$` is resolved against this.
        _updating.spec = mongomock.helpers.patch_datetime_awareness_in_document(spec)
        _updating.stored = self._store._documents
        try:
            return original(self, spec, document, *args, **kwargs)
        finally:
            _updating.document = _updating.spec = _updating.stored = None

    return _update


def _snapshot_or_deepcopy(value, memo=None):
    update = getattr(_updating, "document", None)
    if memo is None and update is not None and _is_stored(value) and indexes.enabled():
        snapshot = snapshots.before_update(value, update, _updating.spec, _deep)
        if snapshot is not None:
            return snapshot
    return deepcopy(value, memo)


def _is_stored(value) -> bool:
    """Whether `value` is a document of the collection being updated, as it
    is stored (what mongomock snapshots), not a value the update copies."""
    if type(value) not in (OrderedDict, dict):
        return False
    try:
        return _updating.stored.get(value.get("_id")) is value
    except TypeError:  # an unhashable _id: not one mongomock keys its store by
        return False


def cheap_update_snapshots() -> None:
    """Before updating a document mongomock deep-copies it whole, to roll back
    a failed unique check and to tell whether anything changed; this copies
    only what the update can change (`snapshots.before_update`)."""
    collection = mongomock.collection.Collection
    collection._update = _remember_update(collection._update)
    mongomock.collection.copy = types.SimpleNamespace(deepcopy=_snapshot_or_deepcopy, copy=shallow)
