"""Which documents a filter can match, from the indexes in indexes.py.

`candidates(store, spec)` answers the store keys of a superset of what
`spec` matches, in insertion order, or None when no indexed clause narrows
it (then the caller scans, as mongomock does). It reads the clauses a server
would serve from an index, on `_id` or the first key of a declared index
(a dotted path into an array of sub-documents, `entries.id`, is a multikey
one): equality (`{f: v}`, `$eq`), `$in`, `$all` (every element's
documents), `$gt`/`$gte`/`$lt`/`$lte` ranges, and a case-sensitive prefix
regex (`^ada`: the range of strings from "ada" up to "adb"), also inside
`$and`, `$or` when every branch narrows, and the clauses of an `$elemMatch`
on an indexed array field (`entries: {$elemMatch: {id: ...}}`). The
clauses' candidate sets are intersected, the smallest first. Bounds are
taken inclusively; the filter run on each candidate afterwards applies them
exactly.
"""

import bisect
import math

from bson import ObjectId
from mongomock import filtering, helpers

from embedded_mongo import indexes, prefixes

# `_id` values a point read looks up as they are (no date to make naive).
_POINT_TYPES = frozenset({str, ObjectId, int})
# Past this share of the collection, a scan in store order is the cheaper plan.
_SCAN_SHARE = 0.5


def indexed_fields(store) -> dict:
    """field -> whether its index serves ranges (hashed and text keys do not)."""
    fields = {"_id": True}
    for index in store.indexes.values():
        field, direction = next(iter(index["key"]))  # a list, or dict items
        if isinstance(direction, (int, float)) and not isinstance(direction, bool):
            fields[field] = True
        elif direction == "hashed":
            fields.setdefault(field, False)
    return fields


def candidates(store, spec):
    if not indexes.enabled() or not isinstance(spec, dict) or not spec:
        return None
    state = indexes.state(store)
    point = spec.get("_id", state)
    if type(point) in _POINT_TYPES:  # a point read, the commonest query: nothing to plan
        return [point] if point in state.seq else []
    found = _narrow(
        state, indexed_fields(store), helpers.patch_datetime_awareness_in_document(spec)
    )
    if found is None or len(found) > _SCAN_SHARE * max(1, len(state.documents)):
        return None
    seq = state.seq
    return sorted((key for key in found if key in seq), key=seq.__getitem__)


def _both(best, found):
    """The clauses of a filter all hold: the candidates of each, intersected
    (as a server intersects index bounds, or reads a compound index on both
    fields: `{post: {$in: page}, by: reader}` is the reader's likes on the
    page, not every like of the page's posts nor every like of the reader)."""
    if found is None:
        return best
    if best is None:
        return found
    small, large = (best, found) if len(best) <= len(found) else (found, best)
    return {key for key in small if key in large}


# Candidates few enough that filtering them costs less than building the
# candidate set of a range or an `$or` to intersect them with.
_FEW = 256


def _narrow(state, fields: dict, spec: dict):
    # Equalities and `$in` first: they are cheap and usually narrow most. When
    # they leave few candidates, the ranges and `$or`s are left to the filter
    # run on each (a server walks the first index bounds and filters too),
    # rather than built over a whole collection (a keyset cursor's `ts <=`
    # holds for most posts) to be intersected.
    best = None
    plain = [
        (key, search)
        for key, search in spec.items()
        if not key.startswith("$") and key in fields and not _ranged(search)
    ]
    # The fewest documents first: `{_f: me, _t: {$in: many}}` is my few
    # edges, not the union of many people's followers to intersect them
    # with, and `{_t: me, _f: {$in: []}}` is nobody, not all my followers.
    sized = sorted(((_size(state, *item), item) for item in plain), key=lambda pair: pair[0])
    for at, (size, (key, search)) in enumerate(sized):
        # Checking what is kept against the next clause's index costs one
        # look per kept document; building that clause's set costs one per
        # document it holds: `{by: reader, post: {$in: page}}` with a reader
        # of many likes checks them, not the page's thousands of likes.
        if best is not None and (len(best) <= _FEW or len(best) <= size):
            best = _held(state, best, [item for _, item in sized[at:]])
            break
        best = _both(best, _clause(state, key, search, ranged=fields[key]))
    if best is not None and len(best) <= _FEW:
        return best
    for key, search in spec.items():
        if not key.startswith("$") and key in fields and not _ranged(search):
            continue  # counted above
        if key == "$and" and isinstance(search, list):
            for clause in search:
                if isinstance(clause, dict):
                    best = _both(best, _narrow(state, fields, clause))
        elif key == "$or" and isinstance(search, list) and search:
            best = _both(best, _union(state, fields, search))
        elif not key.startswith("$") and key in fields:
            best = _both(best, _clause(state, key, search, ranged=fields[key]))
        elif not key.startswith("$") and isinstance(search, dict) and "$elemMatch" in search:
            best = _both(best, _elem_match(state, fields, key, search["$elemMatch"]))
    return best


def _held(state, keys: set, clauses: list) -> set:
    """The few `keys` whose indexed values also meet the other equality and
    `$in` clauses, read off the maps' per-document values, not off the
    documents: `{post: {$in: page}, by: reader}` is the reader's likes of
    the page, as a server reads the `(post, by)` index, not every like of
    the reader's to be filtered."""
    for field, search in clauses:
        if isinstance(search, dict) and list(search) == ["$eq"]:
            search = search["$eq"]
        if isinstance(search, dict):
            values = search.get("$in") if list(search) == ["$in"] else None
            if not isinstance(values, (list, tuple)):
                continue
        else:
            values = [search]
        if not all(indexes._plain(v) and not isinstance(v, filtering._RE_TYPES) for v in values):
            continue
        wanted = set(values)
        if field == "_id":
            keys = {key for key in keys if key in wanted}
            continue
        held = state.hash_keys.get(field)
        if held is None:
            continue
        # mongomock also matches an ObjectId's string in an array (`equal`).
        wanted |= {str(value) for value in values if isinstance(value, ObjectId)}
        keys = {key for key in keys if not wanted.isdisjoint(held.get(key, ()))}
    return keys


def _elem_match(state, fields: dict, array: str, clauses):
    """`{array: {$elemMatch: {f: v, ...}}}`: one element meets every clause,
    so the documents are among those whose `array.f` index holds v (a
    multikey index, as a server reads it: a timeline's `entries.id`), for
    each indexed `f`. None when no clause is on an indexed field."""
    if not isinstance(clauses, dict):
        return None
    best = None
    for field, search in clauses.items():
        dotted = f"{array}.{field}"
        if field.startswith("$") or dotted not in fields or _ranged(search):
            continue
        best = _both(best, _clause(state, dotted, search, ranged=fields[dotted]))
    return best


def _ranged(search) -> bool:
    return isinstance(search, dict) and any(op in search for op in indexes._RANGE_OPS)


def _union(state, fields: dict, branches: list):
    union: set = set()
    for branch in branches:
        found = _narrow(state, fields, branch) if isinstance(branch, dict) else None
        if found is None:
            return None  # one branch needs a scan, so the whole $or does
        union |= found
    return union


def _size(state, field: str, search) -> float:
    """How many documents a plain clause leaves, read off the hash map
    without building a set (inf: unknown until its candidates are built)."""
    if isinstance(search, dict) and list(search) == ["$eq"]:
        search = search["$eq"]
    if not isinstance(search, dict):
        if field == "_id" or not indexes._plain(search):
            return 1 if field == "_id" else math.inf
        return len(state.hash_index(field).get(search, indexes._EMPTY))
    values = search.get("$in")
    if (
        list(search) == ["$in"]
        and isinstance(values, (list, tuple))
        and field != "_id"
        and all(indexes._plain(value) for value in values)
    ):
        by_value = state.hash_index(field)
        return sum(len(by_value.get(value, indexes._EMPTY)) for value in values)
    return math.inf


def _clause(state, field: str, search, ranged: bool):
    if not isinstance(search, dict):
        if isinstance(search, filtering._RE_TYPES):
            return _prefix(state, field, search, "", ranged)
        return equal(state, field, search)
    if not search or not all(op.startswith("$") for op in search):
        return None  # a sub-document compared whole
    best = None
    if "$eq" in search:
        best = _both(best, equal(state, field, search["$eq"]))
    if "$in" in search:
        best = _both(best, _in(state, field, search["$in"], ranged))
    if "$all" in search:
        best = _both(best, _all(state, field, search["$all"]))
    if "$regex" in search:
        best = _both(best, _prefix(state, field, search["$regex"], search.get("$options"), ranged))
    if ranged and any(op in search for op in indexes._RANGE_OPS):
        best = _both(best, _range(state, field, search))
    return best


def equal(state, field: str, value):
    """Keys of the documents `{field: value}` may match, or None if unknown."""
    if not indexes._plain(value):
        return None
    if field == "_id":
        return {value} if value in state.documents else indexes._EMPTY
    by_value = state.hash_index(field)
    if isinstance(value, ObjectId):  # mongomock also matches its string in an array
        return by_value.get(value, indexes._EMPTY) | by_value.get(str(value), indexes._EMPTY)
    return by_value.get(value, indexes._EMPTY)


def _in(state, field: str, values, ranged: bool):
    """`$in`: the documents of each value, and of each prefix regex in it."""
    if not isinstance(values, (list, tuple)):
        return None
    patterns = [value for value in values if isinstance(value, filtering._RE_TYPES)]
    points = [value for value in values if not isinstance(value, filtering._RE_TYPES)]
    if not all(indexes._plain(v) for v in points):
        return None
    if field == "_id":
        found = {value for value in points if value in state.documents}
    else:
        by_value = state.hash_index(field)
        found = set()
        for value in points:
            found |= by_value.get(value, indexes._EMPTY)
    for pattern in patterns:
        matches = _prefix(state, field, pattern, None, ranged)
        if matches is None:
            return None
        found |= matches
    return found


def _all(state, field: str, values):
    """`$all`: the documents holding every plain value (an element that is
    an array or an `$elemMatch` only filters)."""
    if not isinstance(values, (list, tuple)):
        return None
    best = None
    for value in values:
        if indexes._plain(value) and not isinstance(value, filtering._RE_TYPES):
            best = _both(best, equal(state, field, value))
            if not best:
                return best
    return best


def _prefix(state, field: str, pattern, options, ranged: bool):
    """A regex anchored at the start with a literal prefix, case-sensitive:
    the strings from the prefix up to the next one (docs/performance.md:
    a regex is index-bounded only as such a prefix)."""
    prefix = prefixes.regex_prefix(pattern, options)
    if prefix is None or not ranged:
        return None
    bounds = {"$gte": prefix}
    following = prefixes.successor(prefix)
    if following is not None:
        bounds["$lt"] = following
    return _range(state, field, bounds)


def _range(state, field: str, search: dict):
    lows = [search[op] for op in ("$gt", "$gte") if op in search]
    highs = [search[op] for op in ("$lt", "$lte") if op in search]
    low = next((v for v in lows if indexes._bound_class(v) is not None), None)
    high = next((v for v in highs if indexes._bound_class(v) is not None), None)
    if (
        low is not None
        and high is not None
        and indexes._bound_class(low) != indexes._bound_class(high)
    ):
        high = None  # never both true: one bound alone is still a superset
    if low is None and high is None:
        return None
    cls = indexes._bound_class(low if low is not None else high)
    sorted_list = state.range_index(field).get(cls, [])
    start = 0 if low is None else bisect.bisect_left(sorted_list, (low,))
    end = len(sorted_list) if high is None else bisect.bisect_right(sorted_list, (high, math.inf))
    found = {item[2] for item in sorted_list[start:end]}
    return found | state.odd[field] if state.odd[field] else found
