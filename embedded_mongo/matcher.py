"""A filter prepared once and run on many documents.

mongomock's `filter_applies` reads the whole filter again for every document
it decides on: it lists the clause's operators, builds sets of their names,
walks the key's candidates through generic helpers. A page's reads decide
the same filter for every candidate the indexes give (a page's posts are
live; a pulled author's posts public and older than the cursor: a hundred
documents a page, docs/performance.md#growth).

`matcher(spec)` reads the filter once. For a document whose every clause's
path reaches one value (an array too, or nothing) without passing through
an array, it decides each clause as mongomock's loop decides it for that one
candidate, with mongomock's own operator functions. Any other document, and any filter
with a form it does not prepare (`$expr`, `$elemMatch`, `$all`, `$not`, a
regex, an equality to an array or a document), goes to `filter_applies`
whole: the answer, and any error, are mongomock's.
"""

import datetime
from collections.abc import Callable

from bson import ObjectId
from mongomock import filtering

_NOTHING = filtering.NOTHING
_NEGATIVE = frozenset({"$ne", "$nin"})
# Operators decided here for one value, by mongomock's own functions.
_OWN = frozenset({"$eq", "$ne", "$in", "$nin", "$exists", "$gt", "$gte", "$lt", "$lte"})
# Search values an equality compares with `==` (mongomock's `doc_val == search`).
_EQUALS = (str, int, float, bool, type(None), bytes, ObjectId, datetime.datetime)
_NO_CANDIDATES = object()  # the path runs into a scalar or a null: nothing to compare
_MANY = object()  # the path runs through an array: a candidate per element

# A clause's answer for one document: True, False, or None (not decided here).
Clause = Callable[[dict], bool | None]


def matcher(spec) -> Callable[[dict], bool]:
    """A function answering `filtering.filter_applies(spec, document)`."""
    clauses = _prepared(spec)
    if clauses is None:
        return lambda document: filtering.filter_applies(spec, document)

    def matches(document) -> bool:
        for clause in clauses:
            answer = clause(document)
            if answer is None:
                return filtering.filter_applies(spec, document)
            if not answer:
                return False
        return True

    return matches


def _prepared(spec) -> list[Clause] | None:
    if type(spec) is not dict:
        return None
    clauses: list[Clause] = []
    for key, search in spec.items():
        if key == "$comment":
            continue
        if key in ("$and", "$or", "$nor"):
            clause = _logical(key, search)
        elif key.startswith("$"):
            return None
        else:
            clause = _field(key, search)
        if clause is None:
            return None
        clauses.append(clause)
    return clauses


def _logical(key: str, search) -> Clause | None:
    if type(search) is not list or not search:
        return None  # mongomock's error for an empty or odd list is its own
    branches = [_prepared(branch) for branch in search]
    if any(branch is None for branch in branches):
        return None
    prepared: list[list[Clause]] = branches  # type: ignore[assignment]

    def each(document):
        for branch in prepared:
            answer = True
            for clause in branch:
                one = clause(document)
                if one is None:
                    yield None
                    return
                if not one:
                    answer = False
                    break
            yield answer

    # As mongomock's LOGICAL_OPERATOR_MAP, stopping where it stops.
    if key == "$and":

        def clause(document):
            for answer in each(document):
                if answer is None or not answer:
                    return answer
            return True

    elif key == "$or":

        def clause(document):
            for answer in each(document):
                if answer is None or answer:
                    return answer
            return False

    else:

        def clause(document):
            for answer in each(document):
                if answer is None or answer:
                    return None if answer is None else False
            return True

    return clause


def _value(key: str) -> Callable[[dict], object] | None:
    """The value at `key` as mongomock's one candidate for it (_NOTHING:
    missing; _NO_CANDIDATES: the path meets a null or a scalar on its way;
    _MANY: it meets an array, whose elements are candidates each)."""
    if not key:
        return None
    parts = key.split(".")
    if len(parts) == 1:
        return lambda document: document.get(key, _NOTHING)
    *walk, last = parts

    def value(document):
        at = document
        for part in walk:
            at = at.get(part, {})
            if not isinstance(at, dict):
                return _MANY if isinstance(at, list) else _NO_CANDIDATES
        return at.get(last, _NOTHING)

    return value


def _field(key: str, search) -> Clause | None:
    value = _value(key)
    if value is None:
        return None
    if isinstance(search, _EQUALS):
        return _equality(value, search)
    if type(search) is not dict or not search or not set(search) <= _OWN:
        return None
    operators = filtering._filterer_inst._operator_map
    tests = [(operators[name], operand) for name, operand in search.items()]
    negative = bool(_NEGATIVE & search.keys())
    positive = bool(search.keys() - _NEGATIVE)
    exists_false = search == {"$exists": False}

    def clause(document):
        found = value(document)
        if found is _MANY:
            return None
        if found is _NO_CANDIDATES:
            return exists_false or not positive
        # The operators take the one candidate as it is, an array too.
        is_match = all(test(found, operand) for test, operand in tests)
        if negative and not is_match:
            return False
        return is_match or not (found is not _NOTHING or positive)

    return clause


def _equality(value: Callable[[dict], object], search) -> Clause:
    by_text = str(search) if isinstance(search, ObjectId) else None

    def clause(document):
        found = value(document)
        if found is _MANY:
            return None
        if found is _NO_CANDIDATES:
            return False
        if isinstance(found, (list, tuple)):  # an element, or the array itself
            return search in found or search == found or (by_text is not None and by_text in found)
        return found == search or (search is None and found is _NOTHING)

    return clause
