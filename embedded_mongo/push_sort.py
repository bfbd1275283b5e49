"""`$push` with a compound `$sort`, as a server applies it.

mongomock sorts a `$push` `$each` by ONE key of a compound `$sort` (whichever
a set yields first), so entries of the same millisecond land out of
(ts, id) order and the `$slice` after it may keep the wrong ones. A server
sorts by every key in turn. This takes a compound `$sort` (and the `$slice`
that applies after it) out of the update, lets mongomock push, then sorts
and slices the array the way a server does.
"""

import datetime

import mongomock
from bson import ObjectId


def compound_push_sort() -> None:
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
    if not _native_sort(items, order):
        _bson_sort(items, order)
    if keep is not None:
        document[name] = items[:keep] if keep >= 0 else items[keep:]


# One type per key among these, and Python orders them as BSON does.
_NATIVE_TYPES = frozenset({datetime.datetime, ObjectId, str, int, float})


def _native_sort(items: list, order: dict) -> bool:
    """Sort with Python's own comparisons when they agree with BSON's: every
    key a top-level field holding one of `_NATIVE_TYPES`, the same type in
    every item, one direction for all keys. A timeline's `{ts: -1, id: -1}`
    is that; BSON's type-by-type comparison made each push cost a sort of
    hundreds of entries in pure Python. False (nothing changed) otherwise."""
    keys = list(order)
    if len(set(order.values())) != 1 or any("." in key for key in keys):
        return False
    kinds: dict = {}
    for item in items:
        if type(item) is not dict:
            return False
        for key in keys:
            kind = type(item.get(key))
            if kind not in _NATIVE_TYPES or kinds.setdefault(key, kind) is not kind:
                return False
    try:
        items.sort(key=lambda item: tuple(item[key] for key in keys), reverse=order[keys[0]] < 0)
    except TypeError:  # aware and naive datetimes: leave it to the BSON sort
        return False
    return True


def _bson_sort(items: list, order: dict) -> None:
    # Stable sorts, last key first: the result is ordered by every key in turn.
    for key, direction in reversed(list(order.items())):
        items.sort(
            key=lambda item, key=key: mongomock.filtering.resolve_sort_key(key, item),
            reverse=direction < 0,
        )
