"""Would MongoDB serve this query from an index? The planner's rules, checked
against the indexes the documents declare (docs/performance.md).

mongomock has no query planner, so a test records each filter and sort a page
sends and asks `check` about it; on a real server the same test also reads
`explain`. The rules are the planner's, simplified where that errs on the
strict side:

- an index can serve a filter when its first key is bounded: an equality, an
  `$in`, a range, or a case-sensitive anchored prefix regex (no `i`, `m`, `u`
  or `x` flag: Python's `re` patterns carry `u` and get no bounds); an
  `$elemMatch` on an array of documents bounds the sub-fields it fixes
  (`{entries: {$elemMatch: {id: x}}}` reads the multikey `entries.id` index);
- a sort is served when, after the index keys fixed by equalities (and `$in`
  of up to 200 points in all, which the planner explodes into merged scans),
  the next keys are the sort keys in order, all in the index's direction or
  all reversed, and none of them is an array (multikey) field;
- `$or` is served when every clause, with the predicates beside the `$or`
  pushed into it, is served (the branches then merge in sort order); a second
  `$or` only filters, so a bound found only there (a page cursor written as
  `$or`) is reported as unbounded;
- an empty filter is served only as a limited walk of an index in sort order;
- a read of a collection that keeps one owner's history in many documents
  (`HISTORY`: a month's parts, size buckets) that fixes the owner must also
  bound the history by time, or walk it newest first (and stop when the page
  is full): an index scan of every document the owner ever stored is as
  unbounded as a collection scan, however well the index serves it.
"""

import re
from dataclasses import dataclass, field

import mongoengine as me
from bson.regex import Regex

# The planner explodes `$in` points into one merged index scan per point to
# provide a sort, up to this many points (internalQueryMaxScansToExplode).
EXPLODE_LIMIT = 200

COLLSCAN = "COLLSCAN"  # no index bounds the query: every document is read
SORT = "SORT"  # a blocking, in-memory sort of everything that matched
UNBOUNDED = "UNBOUNDED"  # the index is used, but the page cursor does not bound it

# Collection -> (the owner field, the fields that bound an owner's history):
# the collections where one timeline is many documents, more every month.
HISTORY: dict[str, tuple[str, tuple[str, ...]]] = {
    "timeline_month": ("owner", ("month",)),
    "timeline_size": ("owner", ("max_ts", "min_ts", "slot")),
    "notification_buckets": ("owner", ("max_ts", "min_ts", "slot")),
}
# Operations that read; a write meant for every document of an owner (remove
# an author from a timeline, rebuild it) has to reach them all.
READS = {"find", "aggregate", "count", "distinct", "lookup"}

# What a predicate gives an index: an equality point, a list of points, a range,
# or nothing (a filter applied to each document read).
EQ, IN, RANGE, NONE = "eq", "in", "range", "none"
_BOUNDS = {EQ: 3, IN: 2, RANGE: 1, NONE: 0}
_RANGE_OPS = {"$gt", "$gte", "$lt", "$lte"}
_REGEX_META = set(".[]()*+?{}|^$\\")


@dataclass(frozen=True)
class Index:
    name: str
    keys: tuple[tuple[str, int], ...]


@dataclass
class Query:
    collection: str
    filter: dict
    sort: tuple[tuple[str, int], ...] = ()
    limit: int = 0
    op: str = "find"
    key: str | None = None  # the field of a `distinct`
    caller: str = ""  # "module.function" of the application code that sent it
    pipeline: list | None = None  # an aggregate's whole pipeline, for `explain`


@dataclass
class Verdict:
    query: Query
    problem: str | None
    index: str | None = None
    detail: str = ""

    def __str__(self):
        where = f" via {self.index}" if self.index else ""
        return (
            f"{self.problem or 'ok'}{where}: {self.query.op} {self.query.collection} "
            f"{self.query.filter!r} sort={list(self.query.sort)} from {self.query.caller} "
            f"{self.detail}".rstrip()
        )


@dataclass
class _Conjunction:
    """The predicates of one AND: field -> (kind, points), and its `$or`s."""

    fields: dict = field(default_factory=dict)
    ors: list = field(default_factory=list)

    def add(self, name: str, kind: str, points: int = 1) -> None:
        old = self.fields.get(name)
        if old is None or _BOUNDS[kind] > _BOUNDS[old[0]]:
            self.fields[name] = (kind, points)


def declared_indexes(document: type[me.Document]) -> list[Index]:
    """The document's declared indexes, and `_id`'s, which every collection has."""
    found = [Index("_id_", (("_id", 1),))]
    for spec in document._meta.get("index_specs", []):
        keys = tuple((name, direction) for name, direction in spec["fields"])
        if all(isinstance(d, int) for _, d in keys):  # text and geo indexes serve no sort
            found.append(Index(spec.get("name") or str(keys), keys))
    return found


def array_paths(document: type[me.Document]) -> set[str]:
    """Stored field paths that are, or lie inside, arrays: their indexes are multikey."""
    paths: set[str] = set()

    def walk(fields: dict, prefix: str, in_array: bool) -> None:
        for model_field in fields.values():
            path = prefix + model_field.db_field
            inner, is_array = model_field, in_array
            while isinstance(inner, me.ListField):
                inner, is_array = inner.field, True
            if is_array:
                paths.add(path)
            if isinstance(inner, me.EmbeddedDocumentField):
                walk(inner.document_type._fields, path + ".", is_array)

    walk(document._fields, "", False)
    return paths


def _regex_kind(pattern, flags) -> str:
    if isinstance(pattern, re.Pattern):
        flags = (flags or "") + _python_flags(pattern.flags)
        pattern = pattern.pattern
    elif isinstance(pattern, Regex):
        flags = (flags or "") + (
            pattern.flags if isinstance(pattern.flags, str) else _python_flags(pattern.flags)
        )
        pattern = pattern.pattern
    if set(flags or "") & set("imux") or not pattern.startswith("^"):
        return NONE
    literal = pattern[1:2]
    # A prefix bounds the scan only when it starts with a plain character and
    # no top-level alternation could match something else.
    if not literal or literal in _REGEX_META or "|" in re.sub(r"\(.*?\)", "", pattern):
        return NONE
    return RANGE


def _python_flags(value: int) -> str:
    letters = {re.IGNORECASE: "i", re.MULTILINE: "m", re.UNICODE: "u", re.VERBOSE: "x"}
    return "".join(letter for flag, letter in letters.items() if value & flag)


def _predicate(value) -> tuple[str, int]:
    if isinstance(value, (re.Pattern, Regex)):
        return _regex_kind(value, ""), 1
    if not isinstance(value, dict) or not any(str(k).startswith("$") for k in value):
        return EQ, 1
    best = (NONE, 1)
    for op, arg in value.items():
        if op == "$eq":
            kind = (EQ, 1)
        elif op == "$all" and isinstance(arg, list) and arg:
            kind = (EQ, 1)  # the server bounds the index scan by its first element
        elif op == "$in":
            points = len(list(arg))
            kind = (EQ, 1) if points == 1 else (IN, points) if points else (NONE, 1)
        elif op in _RANGE_OPS:
            kind = (RANGE, 1)
        elif op == "$regex":
            kind = (_regex_kind(arg, value.get("$options", "")), 1)
        elif op == "$elemMatch" and isinstance(arg, dict) and all(k in _RANGE_OPS for k in arg):
            kind = (RANGE, 1)  # one element in the range: the multikey index bounds it
        else:  # $ne, $nin, $exists, $not, $size, $type, $elemMatch of documents...: no bounds
            # (an `$elemMatch` of documents bounds its sub-fields: `_element_clauses`)
            kind = (NONE, 1)
        if _BOUNDS[kind[0]] > _BOUNDS[best[0]]:
            best = kind
    return best


def _parse(query: dict, into: _Conjunction | None = None) -> _Conjunction:
    conj = into or _Conjunction()
    for key, value in query.items():
        if key == "$and":
            for part in value:
                _parse(part, conj)
        elif key == "$or":
            conj.ors.append([_parse(clause) for clause in value])
        elif key.startswith("$"):  # $nor, $expr, $where, $text: filters only
            continue
        else:
            conj.add(key, *_predicate(value))
            for name, inner in _element_clauses(value):
                conj.add(f"{key}.{name}", *_predicate(inner))
    return conj


def _element_clauses(value) -> list:
    """The sub-field clauses of an `$elemMatch` on an array of documents:
    `{entries: {$elemMatch: {id: x, ...}}}` is bounded by the multikey
    index on `entries.id` as `{"entries.id": x}` is (one element meets
    them all, so that element's `id` is x)."""
    inner = value.get("$elemMatch") if isinstance(value, dict) else None
    if not isinstance(inner, dict):
        return []
    return [(name, clause) for name, clause in inner.items() if not name.startswith("$")]


def _merge(outer: _Conjunction, clause: _Conjunction, residual: list) -> _Conjunction:
    merged = _Conjunction(dict(outer.fields), list(clause.ors))
    for name, (kind, points) in clause.fields.items():
        merged.add(name, kind, points)
    merged.residual = residual  # type: ignore[attr-defined]
    return merged


def _residual_fields(ors: list) -> set[str]:
    names: set[str] = set()
    for clauses in ors:
        for clause in clauses:
            names |= set(clause.fields) | _residual_fields(clause.ors)
    return names


def _on_index(conj: _Conjunction, index: Index, sort, limit: int, arrays: set) -> tuple:
    """(problem, detail) for this conjunction read through this index."""
    keys = index.keys
    first = conj.fields.get(keys[0][0], (NONE, 1))[0]
    if first == NONE:
        if not conj.fields and not conj.ors and limit and _sort_at(keys, 0, sort, arrays):
            return None, "limited walk in index order"
        return COLLSCAN, "its first key is not bounded"
    # Keys fixed by equality (or exploded $in points) come first.
    position, points = 0, 1
    while position < len(keys) and conj.fields.get(keys[position][0], (NONE, 1))[0] in (EQ, IN):
        points *= conj.fields[keys[position][0]][1]
        position += 1
    fixed = {name for name, (kind, _) in conj.fields.items() if kind == EQ}
    wanted = tuple((name, d) for name, d in sort if name not in fixed)
    if wanted:
        if points > EXPLODE_LIMIT:
            return SORT, f"$in of {points} points, over the {EXPLODE_LIMIT} the planner explodes"
        if not _sort_at(keys, position, wanted, arrays):
            return SORT, "the sort does not follow the equality prefix"
    after = keys[position][0] if position < len(keys) else None
    hidden = getattr(conj, "residual", [])
    if (
        after
        and conj.fields.get(after, (NONE, 1))[0] == NONE
        and after in _residual_fields(hidden)
    ):
        return UNBOUNDED, f"{after} is bounded only inside a second $or"
    return None, ""


def _sort_at(keys, position: int, sort, arrays: set) -> bool:
    sort = tuple(sort)
    if not sort:
        return True
    window = keys[position : position + len(sort)]
    if len(window) < len(sort) or [k for k, _ in window] != [k for k, _ in sort]:
        return False
    if any(name in arrays or any(name.startswith(a + ".") for a in arrays) for name, _ in sort):
        return False
    same = all(d == s for (_, d), (_, s) in zip(window, sort, strict=True))
    flipped = all(d == -s for (_, d), (_, s) in zip(window, sort, strict=True))
    return same or flipped


_RANK = {None: 0, UNBOUNDED: 1, SORT: 2, COLLSCAN: 3}


def _best(conj: _Conjunction, indexes, sort, limit, arrays) -> tuple:
    """The best (problem, index, detail) over every index and every way to use the `$or`s."""
    if "_id" in conj.fields and conj.fields["_id"][0] == EQ:
        return None, "_id_", "point read"
    options = []
    for index in indexes:
        problem, detail = _on_index(conj, index, sort, limit, arrays)
        options.append((problem, index.name, detail))
    # Or index one `$or`: each clause, with the predicates around it, on its own.
    for number, clauses in enumerate(conj.ors):
        others = conj.ors[:number] + conj.ors[number + 1 :]
        outer = _Conjunction(conj.fields, [])
        results = [
            _best(_merge(outer, clause, others + clause.ors), indexes, sort, limit, arrays)
            for clause in clauses
        ]
        worst = max(results, key=lambda r: _RANK[r[0]])
        names = "+".join(sorted({r[1] for r in results if r[1]}))
        options.append((worst[0], f"$or[{names}]", worst[2]))
    return min(options, key=lambda o: _RANK[o[0]])


def check(query: Query, indexes: list[Index], arrays: set[str] = frozenset()) -> Verdict:
    conj = _parse(query.filter or {})
    conj.residual = list(conj.ors)  # type: ignore[attr-defined]
    if query.op == "distinct" and not query.filter:
        # A distinct over a whole collection walks an index led by its field.
        served = any(index.keys[0][0] == query.key for index in indexes)
        return Verdict(query, None if served else COLLSCAN, None, "distinct scan")
    problem, index, detail = _best(conj, indexes, query.sort, query.limit, arrays)
    if problem is None and not query.filter and not query.limit:
        problem, detail = COLLSCAN, "an empty filter without a limit reads everything"
    if problem is None and _whole_history(query, conj):
        owner, bounds = HISTORY[query.collection]
        problem = UNBOUNDED
        detail = f"fixes {owner} but bounds none of {', '.join(bounds)}: the whole history"
    return Verdict(query, problem, index, detail)


def _whole_history(query: Query, conj: _Conjunction) -> bool:
    """A read that fixes an owner of a HISTORY collection and neither bounds
    the history nor walks it newest first."""
    if query.op not in READS or query.collection not in HISTORY:
        return False
    owner, bounds = HISTORY[query.collection]
    if conj.fields.get(owner, (NONE, 1))[0] not in (EQ, IN):
        return False
    if conj.fields.get("_id", (NONE, 1))[0] == EQ:
        return False
    if query.limit and abs(query.limit) == 1:
        return False  # whether any exists (an erasure's verification): one document
    walked = bool(query.sort) and query.sort[0][0] in bounds
    return not walked and all(conj.fields.get(b, (NONE, 1))[0] == NONE for b in bounds)


def explain_problems(plan: dict, history: tuple[str, ...] = ()) -> list[str] | None:
    """COLLSCAN and blocking SORT stages in a server's `explain` output, of a
    `find` or of an `aggregate` (its plan sits in `queryPlanner`, in the
    first stage's `$cursor`, or per shard), and UNBOUNDED for an index scan
    that leaves a `history` key (HISTORY) open from MinKey to MaxKey. None
    when it has no MongoDB query planner to report: mongoeco's wire server
    answers `explain`, of a `find` and of an `aggregate` alike, with its own
    engine's plan, a scan of memory."""
    winning = [p["winningPlan"] for p in _planners(plan) if "winningPlan" in p]
    if not winning:
        return None
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            stage = node.get("stage")
            if stage in (COLLSCAN, SORT):
                found.append(stage)
            bounds = node.get("indexBounds") or {}
            if stage == "IXSCAN" and any(_open(bounds.get(key)) for key in history):
                found.append(UNBOUNDED)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(winning)
    return found


def _planners(node) -> list[dict]:
    """Every `queryPlanner` section of an explain output, wherever it sits."""
    if isinstance(node, list):
        return [p for value in node for p in _planners(value)]
    if not isinstance(node, dict):
        return []
    if isinstance(node.get("queryPlanner"), dict):
        return [node["queryPlanner"]]
    return [p for value in node.values() for p in _planners(value)]


def _open(bounds) -> bool:
    """An IXSCAN's bounds on one key that hold every value."""
    return bool(bounds) and any(
        b.replace(" ", "") in ("[MinKey,MaxKey]", "[MaxKey,MinKey]") for b in bounds
    )
