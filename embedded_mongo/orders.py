"""Sorted reads served by a declared index, as a server walks one.

A page asks for a filter in a sort order, with a limit: a wall
`{by.id: X, ts: {$lte: cursor}}` by `(ts, _id)` (index `(by.id, ts, _id)`),
a search's posts `{terms: "coffee", ...}` by `(ts, _id)` (`(terms, ts,
_id)`), the people whose name has a word starting "al" `{name_terms: "al",
_id: {$gt: after}}` by `_id` (`(name_terms, _id)`), or the handles from
"al" `{_id: {$gte: "al", $lt: "am"}}` by `_id`. mongomock runs the filter
on every candidate and sorts every match, on every read. A server reads the
index whose first keys the filter fixes and whose next keys are the sort,
from the range's bound, and stops when it has the page. `ordered` finds such
an index among the collection's declared ones and walks its
`sorted_index.SortedIndex` the same way: the caller runs the filter on each
document it yields and stops at skip + limit.

A plan is a declared index (or `_id`'s) whose first keys are fixed by
equality, `$in` or `$all` (at top level or inside `$and`), and whose next
keys are the sort keys, all in one direction (a key fixed to one value
leaves the sort); a range on the first sort key bounds the walk. With
`$in` the groups of its values are merged in sort order (up to MAX_POINTS,
as a server explodes them). An `$or` whose every branch, with the clauses
beside it, has a plan walks them merged (a server's SORT_MERGE). The plan
that reads the fewest documents wins. A filter with an equality group of
fewer than MIN_GROUP documents, or one smaller than the best plan would
read, is left to the planner and a sort of that group, which costs less.

The order is mongomock's: documents with equal sort values come in insertion
order (sorted_index.py), so a read answers what the scan and its sort did.
"""

import bisect
import heapq
import itertools
import math

from bson import ObjectId
from mongomock import filtering, helpers

from embedded_mongo import indexes, planner, prefixes
from embedded_mongo.sorted_index import sort_value

# Below this many documents, sorting a group per read costs less than a walk.
MIN_GROUP = 64
# The groups one plan merges: a server explodes an `$in` into at most 200
# index scans merged in sort order (internalQueryMaxScansToExplode).
MAX_POINTS = 200


class _Clauses:
    """What a conjunction fixes: field -> the point lists that bound it (an
    equality is one point, an `$in` its values, each `$all` element one),
    field -> its range conditions, and its `$or`s."""

    def __init__(self) -> None:
        self.points: dict = {}
        self.ranges: dict = {}
        self.ors: list = []

    def copy(self) -> "_Clauses":
        found = _Clauses()
        found.points = {field: list(options) for field, options in self.points.items()}
        found.ranges = {field: list(bounds) for field, bounds in self.ranges.items()}
        return found

    def read(self, spec: dict) -> "_Clauses":
        for key, search in spec.items():
            if key == "$and" and isinstance(search, list):
                for clause in search:
                    if isinstance(clause, dict):
                        self.read(clause)
            elif key == "$or" and isinstance(search, list) and search:
                self.ors.append(search)
            elif isinstance(key, str) and not key.startswith("$"):
                self._field(key, search)
        return self

    def _field(self, field: str, search) -> None:
        if isinstance(search, filtering._RE_TYPES):
            self._prefix(field, search, None)
        elif not isinstance(search, dict):
            self._points(field, [search])
        elif search and all(isinstance(op, str) and op.startswith("$") for op in search):
            if "$eq" in search:
                self._points(field, [search["$eq"]])
            values = search.get("$in")
            if isinstance(values, (list, tuple)):
                self._points(field, list(values))
            values = search.get("$all")
            if isinstance(values, (list, tuple)):
                for value in values:
                    self._points(field, [value])
            if "$regex" in search:
                self._prefix(field, search["$regex"], search.get("$options"))
            if any(op in search for op in indexes._RANGE_OPS):
                self.ranges.setdefault(field, []).append(search)

    def _points(self, field: str, values: list) -> None:
        if not all(_point(value) for value in values):
            return
        points = []
        for value in values:
            points.append(value)
            if isinstance(value, ObjectId):  # mongomock also matches its string in an array
                points.append(str(value))
        self.points.setdefault(field, []).append(points)

    def _prefix(self, field: str, pattern, options) -> None:
        prefix = prefixes.regex_prefix(pattern, options)
        if prefix is not None:
            bounds = {"$gte": prefix}
            following = prefixes.successor(prefix)
            if following is not None:
                bounds["$lt"] = following
            self.ranges.setdefault(field, []).append(bounds)


def _point(value) -> bool:
    return indexes._plain(value) and not isinstance(value, filtering._RE_TYPES)


def ordered(store, spec, sort):
    """Store keys of a superset of what `spec` matches, in `sort` order
    (lazily: the caller stops at its limit), or None when no declared index
    serves the sort or a sort of a small group is cheaper."""
    if not indexes.enabled() or not isinstance(spec, dict) or not sort:
        return None
    sort = tuple((key, d) for key, d in (sort.items() if isinstance(sort, dict) else sort))
    if any(not isinstance(key, str) or key.startswith("$") for key, _ in sort):
        return None
    if len({direction for _, direction in sort}) != 1 or sort[0][1] not in (1, -1):
        return None
    state = indexes.state(store)
    clauses = _Clauses().read(helpers.patch_datetime_awareness_in_document(spec))
    # What the planner's candidates and a sort of them would read.
    group = _smallest(state, planner.indexed_fields(store), clauses)
    if group < MIN_GROUP:
        return None
    declared = _declared(store)
    plan = _best(state, declared, clauses, sort)
    if plan is None:
        for branches in clauses.ors:
            plan = _merged(state, declared, clauses, branches, sort)
            if plan is not None:
                break
    if plan is None or plan[0] > group:
        return None
    return _walk(state, plan[1], sort)


def _declared(store) -> list:
    """The key lists of the collection's indexes that keep an order."""
    found = [(("_id", 1),)]
    for index in store.indexes.values():
        key = index["key"]
        keys = tuple(key.items() if isinstance(key, dict) else key)
        if all(type(direction) is int for _, direction in keys) and keys != found[0]:
            found.append(keys)
    return found


def _smallest(state, fields: dict, clauses: _Clauses) -> float:
    """The fewest documents an equality on an indexed field leaves."""
    smallest = math.inf
    for field, options in clauses.points.items():
        if field in fields:
            smallest = min(smallest, *(_cost(state, field, points) for points in options))
    return smallest


def _best(state, declared: list, clauses: _Clauses, sort: tuple):
    """(documents it reads, [(index, its groups, range)]) of the cheapest plan, or None."""
    best = None
    for keys in declared:
        for prefix in range(len(keys), -1, -1):
            plan = _on_index(state, keys, prefix, clauses, sort)
            if plan is not None and (best is None or plan[0] < best[0]):
                best = plan
    return best


def _on_index(state, keys: tuple, prefix: int, clauses: _Clauses, sort: tuple):
    fixed = [field for field, _ in keys[:prefix]]
    if any(field not in clauses.points for field in fixed):
        return None
    # Per fixed field, its narrowest point list. One point fixes the field:
    # the index need not hold it among the sort keys (its documents are
    # still ordered by it, for an array's first element sorts them).
    choice = [
        min(clauses.points[field], key=lambda points, f=field: _cost(state, f, points))
        for field in fixed
    ]
    single = {
        field
        for field, points in zip(fixed, choice, strict=True)
        if len(set(map(_hashed, points))) == 1
    }
    rest = tuple((field, direction) for field, direction in sort if field not in single)
    if not rest or any(field in fixed for field, _ in rest):
        return None
    window = keys[prefix : prefix + len(rest)]
    if [field for field, _ in window] != [field for field, _ in rest]:
        return None
    pairs = list(zip(window, rest, strict=True))
    if not (all(d == s for (_, d), (_, s) in pairs) or all(d == -s for (_, d), (_, s) in pairs)):
        return None
    groups = list(itertools.product(*choice))
    if len(groups) > MAX_POINTS:
        return None
    # A range on the first sort key bounds the walk.
    bounds = _bounds(clauses.ranges.get(sort[0][0], ())) if sort[0] == rest[0] else None
    if fixed:
        cost = sum(_cost(state, fixed[0], [group[0]]) for group in groups)
    else:
        cost = _range_size(state, rest[0][0], bounds) if bounds else len(state.documents)
    return cost, [(tuple(fixed), groups, bounds)]


def _hashed(value):
    """ObjectId and its string stand for one point (`_Clauses._points`)."""
    return str(value) if isinstance(value, ObjectId) else value


def _cost(state, field: str, points: list) -> float:
    if field == "_id":
        return len(points)
    by_value = state.hash_index(field)
    return sum(len(by_value.get(value, indexes._EMPTY)) for value in points)


def _merged(state, declared: list, clauses: _Clauses, branches: list, sort: tuple):
    """An `$or` read as the merge of its branches' plans, each branch with
    the clauses beside the `$or` (a server's SORT_MERGE)."""
    cost, walks = 0, []
    for branch in branches:
        if not isinstance(branch, dict):
            return None
        plan = _best(state, declared, clauses.copy().read(branch), sort)
        if plan is None:
            return None
        cost += plan[0]
        walks += plan[1]
    return cost, walks


def _bounds(conditions) -> tuple | None:
    """(low, high) sort values of a range on the first sort key (either may
    be None), within one BSON type, or None for no usable bound."""
    low = high = None
    for search in conditions:
        for op in ("$gt", "$gte"):
            if op in search and low is None and indexes._bound_class(search[op]) is not None:
                low = sort_value(search[op])
        for op in ("$lt", "$lte"):
            if op in search and high is None and indexes._bound_class(search[op]) is not None:
                high = sort_value(search[op])
    if low is not None and high is not None and low[0] != high[0]:
        high = None  # never both true: one bound alone still holds every match
    if low is None and high is None:
        return None
    return low, high


def _probes(bounds) -> tuple:
    """Items to bisect a sorted list at: every value of the bound's type from
    `low` (inclusive) to `high` (inclusive)."""
    low, high = bounds
    rank = (low or high)[0]
    start = (low if low is not None else (rank,),)
    end = ((rank, high[1], 1) if high is not None else (rank + 1,),)
    return (start,), (end,)


def _range_size(state, field: str, bounds) -> int:
    low, high = bounds
    value = (low or high)[1]
    cls = indexes._bound_class(value)
    sorted_list = state.range_index(field).get(cls, [])
    start = 0 if low is None else bisect.bisect_left(sorted_list, (low[1],))
    end = len(sorted_list)
    if high is not None:
        end = bisect.bisect_right(sorted_list, (high[1], math.inf))
    return end - start + len(state.odd[field])


def _walk(state, walks: list, sort: tuple):
    """The keys of the plan's groups in sort order, each once; None when a
    group holds a document whose sort values no sorted list can hold."""
    descending = sort[0][1] < 0
    runs = []
    for fields, groups, bounds in walks:
        index = state.sorted_index(fields, sort)
        for group in groups:
            if group in index.unsortable:
                return None
            items = index.groups.get(group)
            if items:
                runs.append(_run(items, bounds, descending))
    if len(walks) == 1 and len(walks[0][1]) == 1:
        return (item[2] for run in runs for item in run)
    return _unique(heapq.merge(*runs, reverse=descending))


def _run(items: list, bounds, descending: bool):
    start, end = 0, len(items)
    if bounds is not None:
        low, high = _probes(bounds)
        start, end = bisect.bisect_left(items, low), bisect.bisect_left(items, high)
    if descending:
        return (items[at] for at in range(end - 1, start - 1, -1))
    return itertools.islice(items, start, end)


def _unique(items):
    seen = set()
    for _, _, key in items:
        if key not in seen:
            seen.add(key)
            yield key
