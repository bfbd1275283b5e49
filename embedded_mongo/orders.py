"""Sorted reads of a large equality group, in an order kept between reads.

A wall or an incoming page asks for `{by.id: X, ts: {$lt: cursor}}` sorted by
`(ts, _id)` with a limit. A server walks its compound index and reads 20
entries; mongomock sorts every post of X on every read, which grows with a
popular author's posts. Here the order of the whole group (`by.id` = X) is
sorted once, the way mongomock sorts (a stable sort per key, last key
first), and kept until a write touches a document of the group (the group's
generation in indexes.State moves). A read then runs the filter down that
order and stops at skip + limit.

Filtering a sorted group gives the order sorting the filtered documents
gives, as long as the sort keys compare consistently: so a group is ordered
here only when every sort value is of a plainly comparable BSON type (no
NaN, no aware datetime, no sub-document); anything else sorts as before.
"""

import datetime
import math

from bson import ObjectId
from mongomock import filtering

from embedded_mongo import indexes, planner

# Below this many documents, sorting them per query costs about what keeping an order does.
MIN_GROUP = 64
_COMPARABLE = (str, int, float, ObjectId, datetime.datetime, type(None))


def ordered(store, spec, sort):
    """Store keys of an equality group of `spec` in `sort` order, or None."""
    if not indexes.enabled() or not isinstance(spec, dict) or not sort:
        return None
    sort = list(sort.items()) if isinstance(sort, dict) else list(sort)
    if any(not isinstance(key, str) or key.startswith("$") for key, _ in sort):
        return None
    group = _equality_group(spec, planner.indexed_fields(store))
    if group is None:
        return None
    field, value = group
    state = indexes.state(store)
    keys = planner.equal(state, field, value)
    if keys is None or len(keys) < MIN_GROUP:
        return None
    lookups = (value, str(value)) if isinstance(value, ObjectId) else (value,)
    generation = tuple(state.generation(field, v) for v in lookups)
    cache_key = (field, lookups, tuple(sort))
    cached = state.orders.get(cache_key)
    if cached is not None and cached[0] == generation:
        return cached[1]
    documents, seq = state.documents, state.seq
    pairs = [(key, documents[key]) for key in sorted(keys, key=seq.__getitem__)]
    for sort_key, _ in sort:
        if not all(_comparable(sort_key, document) for _, document in pairs):
            return None
    for sort_key, direction in reversed(sort):
        pairs.sort(
            key=lambda pair, k=sort_key: filtering.resolve_sort_key(k, pair[1]),
            reverse=direction < 0,
        )
    order = [key for key, _ in pairs]
    state.orders[cache_key] = (generation, order)
    return order


def _equality_group(spec: dict, fields: dict):
    """(field, value) of a top-level equality on an indexed field other than `_id`."""
    for key, search in spec.items():
        if key.startswith("$") or key == "_id" or key not in fields:
            continue
        if isinstance(search, dict):
            if list(search) != ["$eq"]:
                continue
            search = search["$eq"]
        if indexes._plain(search):
            return key, search
    return None


def _comparable(sort_key: str, document) -> bool:
    value = filtering.resolve_sort_key(sort_key, document)[1].obj
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, datetime.datetime):
        return value.tzinfo is None
    return isinstance(value, _COMPARABLE)
