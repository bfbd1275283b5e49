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
import types
import uuid

import mongomock.aggregate
import mongomock.collection
from bson import Decimal128, Int64, ObjectId

from socialsite.demo_db import indexes

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
    if kind is list:
        return [_deep(item) for item in value]
    if kind in _ATOMIC:
        return value
    return copy.deepcopy(value)


def shallow(value):
    if type(value) in _ATOMIC and indexes.enabled():
        return value
    return copy.copy(value)


def share_immutable_values() -> None:
    fast = types.SimpleNamespace(deepcopy=deepcopy, copy=shallow)
    mongomock.collection.copy = fast
    mongomock.aggregate.copy = fast
