"""Aggregation expressions evaluated without mongomock's per-node cost.

mongomock evaluates an expression (`$addFields`, `$project`, `$filter`'s
`cond`, `$map`'s `in`) with a `_Parser` that finds each operator by testing
it against a dozen lists of names in turn, and builds a new parser for every
element a `$map` or `$filter` visits. A news page's lookups compute their id
arrays this way over each of the page's entries (feeds/selectors/lookups.py):
thousands of such steps per page (docs/performance.md#growth).

`Evaluator` answers the operators those pages send (field paths and `$$`
variables, `$map`, `$filter`, `$ifNull`, `$eq`, `$ne`, the ordering
comparisons, `$in`, `$and`, `$or`, `$not`, `$concatArrays`, `$slice`,
`$size`, `$literal`) with one dictionary lookup per node, each written as
mongomock writes it, so a result, an error and a missing value (a
`KeyError`, as there) are mongomock's own. Any other node is handed to
mongomock's parser with the same variables: what it evaluates is unchanged.
"""

import itertools
from collections.abc import Callable

from mongomock import OperationFailure, aggregate, filtering, helpers

_NOTHING = aggregate.NOTHING


class Evaluator:
    __slots__ = ("doc", "ignore_missing_keys", "user_vars")

    def __init__(self, doc: dict, user_vars: dict | None, ignore_missing_keys: bool) -> None:
        self.doc = doc
        self.user_vars = user_vars or {}
        self.ignore_missing_keys = ignore_missing_keys

    def parse(self, expression):
        if type(expression) is str:
            if expression[:1] == "$":
                return self._path(expression)
            return expression
        if type(expression) is dict and len(expression) == 1:
            operator, value = next(iter(expression.items()))
            handler = _OPERATORS.get(operator)
            if handler is not None:
                return handler(self, value)
        if isinstance(expression, dict):
            return self._mongomock(expression)
        return expression

    def _path(self, expression: str):
        variable, name, parts = _split(expression)
        if variable:
            if name in self.user_vars:
                value = self.user_vars[name]
            elif name in ("ROOT", "CURRENT"):
                value = self.doc
            else:
                raise KeyError(0)  # as get_value_by_dot of an unknown variable
        else:
            value = self.doc
        for part in parts:
            if not isinstance(value, dict):
                # Through an array (or into a scalar): mongomock's own walk.
                if variable:
                    scope = {"ROOT": self.doc, "CURRENT": self.doc, **self.user_vars}
                    return helpers.get_value_by_dot(scope, expression[2:], can_generate_array=True)
                return helpers.get_value_by_dot(self.doc, expression[1:], can_generate_array=True)
            value = value[part]
        return value

    def _mongomock(self, expression):
        parser = aggregate._Parser(self.doc, self.user_vars, self.ignore_missing_keys)
        return parser.parse(expression)

    def _child(self) -> "Evaluator":
        """An evaluator for a `$map`'s or `$filter`'s elements, its variable
        set per element (one for all of them, not one an element)."""
        return Evaluator(self.doc, dict(self.user_vars), self.ignore_missing_keys)

    def to_bool(self, expression) -> bool:
        try:
            return helpers.mongodb_to_bool(self.parse(expression))
        except KeyError:
            return False

    def or_nothing(self, expression):
        try:
            return self.parse(expression)
        except KeyError:
            return _NOTHING

    def parse_many(self, values):
        for value in values:
            try:
                yield self.parse(value)
            except KeyError:
                if not self.ignore_missing_keys:
                    raise
                yield None


# Each as mongomock's `_Parser` evaluates it (mongomock/aggregate.py); a form
# it refuses goes to it, so the error is its own.


def _literal(ev: Evaluator, value):
    return value


def _eq(ev: Evaluator, values):
    if not isinstance(values, list) or len(values) != 2:
        return ev._mongomock({"$eq": values})
    return ev.parse(values[0]) == ev.parse(values[1])


def _ne(ev: Evaluator, values):
    if not isinstance(values, list) or len(values) != 2:
        return ev._mongomock({"$ne": values})
    return ev.parse(values[0]) != ev.parse(values[1])


def _ordering(operator: str) -> Callable:
    compare = filtering.SORTING_OPERATOR_MAP[operator]

    def handle(ev: Evaluator, values):
        if not isinstance(values, list) or len(values) != 2:
            return ev._mongomock({operator: values})
        return filtering.bson_compare(compare, ev.parse(values[0]), ev.parse(values[1]))

    return handle


def _in(ev: Evaluator, values):
    if not isinstance(values, list) or len(values) != 2:
        return ev._mongomock({"$in": values})
    return ev.parse(values[0]) in ev.parse(values[1])


def _and(ev: Evaluator, values):
    if not isinstance(values, list):
        return ev._mongomock({"$and": values})
    # Every one evaluated (a list, not a generator), as mongomock does.
    return all([ev.to_bool(value) for value in values])


def _or(ev: Evaluator, values):
    if not isinstance(values, list):
        return ev._mongomock({"$or": values})
    return any(ev.to_bool(value) for value in values)


def _not(ev: Evaluator, values):
    return not ev.to_bool(values)


def _if_null(ev: Evaluator, values):
    if not isinstance(values, list) or len(values) != 2:
        return ev._mongomock({"$ifNull": values})
    try:
        found = ev.parse(values[0])
        if found is not None:
            return found
    except KeyError:
        pass
    return ev.parse(values[1])


_MAP_KEYS, _FILTER_KEYS = frozenset({"input", "as", "in"}), frozenset({"input", "as", "cond"})


def _map(ev: Evaluator, value):
    if not isinstance(value, dict) or not {"input", "in"} <= value.keys() <= _MAP_KEYS:
        return ev._mongomock({"$map": value})
    array = ev.or_nothing(value["input"])
    if array is None or array is _NOTHING:
        return None
    if not isinstance(array, (list, tuple)):
        return ev._mongomock({"$map": value})
    name, inner = value.get("as", "this"), value["in"]
    child, out = ev._child(), []
    for item in array:
        child.user_vars[name] = item
        out.append(child.parse(inner))
    return out


def _filter(ev: Evaluator, value):
    if not isinstance(value, dict) or not {"input", "cond"} <= value.keys() <= _FILTER_KEYS:
        return ev._mongomock({"$filter": value})
    array = ev.parse(value["input"])
    if not isinstance(array, (list, tuple)):
        return ev._mongomock({"$filter": value})
    name, cond = value.get("as", "this"), value["cond"]
    child, kept = ev._child(), []
    for item in array:
        child.user_vars[name] = item
        # Python's truth of the value, a missing one an error: mongomock's (a
        # server takes both as false; the site's conditions never meet either).
        if child.parse(cond):
            kept.append(item)
    return kept


def _concat_arrays(ev: Evaluator, value):
    parsed = list(ev.parse_many(value if isinstance(value, (list, tuple)) else [value]))
    for item in parsed:
        if item is not None and not isinstance(item, (list, tuple)):
            raise OperationFailure(f"$concatArrays only supports arrays, not {type(item)}")
    return None if None in parsed else list(itertools.chain.from_iterable(parsed))


def _size(ev: Evaluator, value):
    if isinstance(value, list):
        if len(value) != 1:
            return ev._mongomock({"$size": value})
        value = value[0]
    array = ev.or_nothing(value)
    if not isinstance(array, (list, tuple)):
        return ev._mongomock({"$size": value})
    return len(array)


def _slice(ev: Evaluator, value):
    if not isinstance(value, list) or len(value) != 2 or type(value[1]) is not int or value[1] < 0:
        return ev._mongomock({"$slice": value})  # the other forms, and its errors
    array = ev.parse(value[0])
    if not isinstance(array, list):
        return ev._mongomock({"$slice": value})
    return array[: value[1]]


_OPERATORS: dict[str, Callable] = {
    "$literal": _literal,
    "$eq": _eq,
    "$ne": _ne,
    **{operator: _ordering(operator) for operator in filtering.SORTING_OPERATOR_MAP},
    "$in": _in,
    "$and": _and,
    "$or": _or,
    "$not": _not,
    "$ifNull": _if_null,
    "$map": _map,
    "$filter": _filter,
    "$concatArrays": _concat_arrays,
    "$size": _size,
    "$slice": _slice,
}

# The operators `Evaluator` answers itself: an expression of these alone
# reads its document and makes no value of its own (reads.py relies on it).
OWN_OPERATORS = frozenset(_OPERATORS)


# Each path the pipelines name, split once: (a variable?, its name, the
# fields after it). The paths are the site's own, a few dozen; kept bounded.
_SPLIT: dict[str, tuple[bool, str, tuple[str, ...]]] = {}


def _split(expression: str) -> tuple[bool, str, tuple[str, ...]]:
    found = _SPLIT.get(expression)
    if found is None:
        if expression[:2] == "$$":
            name, _, rest = expression[2:].partition(".")
            found = (True, name, tuple(rest.split(".")) if rest else ())
        elif expression == "$":
            found = (False, "", ("",))  # names no field: a missing key, as mongomock
        else:
            found = (False, "", tuple(expression[1:].split(".")))
        if len(_SPLIT) >= 4096:
            _SPLIT.clear()
        _SPLIT[expression] = found
    return found


def parse_expression(expression, doc_dict, ignore_missing_keys=False):
    """mongomock's `_parse_expression`, through `Evaluator`."""
    return Evaluator(doc_dict, None, ignore_missing_keys).parse(expression)


def quick_expressions() -> None:
    aggregate._parse_expression = parse_expression
    filtering.register_parse_expression(parse_expression)
