"""`$lookup` with `localField`/`foreignField` and a `pipeline` (MongoDB 5.0).

The session read (the site's sessions module) joins the edges between the
viewer and a wall's owner this way, and a timeline page its likes, votes and
edges: the foreign documents whose `foreignField` equals the local value,
narrowed by the sub-pipeline's constant `$match`, an index point read of
`(_f, _t)` or `(post, by)` on a server, and here one indexed read (`_plan`,
`_read`). mongomock refuses any `pipeline` in a `$lookup`; this runs that
form (no `let`) and leaves every other form to mongomock.
"""

import datetime
import math

from bson import ObjectId
from mongomock import aggregate, filtering, helpers

from embedded_mongo import copies, examined, indexes, matcher, orders, planner


def _lookup_with_pipeline(original):
    def handle(in_collection, database, options):
        if "pipeline" not in options or "let" in options or "localField" not in options:
            return original(in_collection, database, options)
        foreign = database.get_collection(options["from"])
        field = options["foreignField"]
        narrow, shape, rest, limit = _plan(options["pipeline"], field)
        narrow = helpers.patch_datetime_awareness_in_document(narrow)  # once for every read
        docs = list(in_collection)
        values = [_local_value(doc, options["localField"]) for doc in docs]
        # (Not after a projection taken already: the sort is then on what it left.)
        newest = _sorted_limit(rest) if shape is None else None
        if newest is not None and len(docs) == 1:
            # One row wanting the first n in an order (a news page's pulled
            # posts): a sorted, limited read per value, as a server walks its
            # index, rather than every match copied to be sorted and cut.
            sort, n, shape, after = newest
            found = _first_in_order(foreign, narrow, shape, field, values[0], sort, n)
            docs[0][options["as"]] = _run(found, database, after)
            return docs
        batched = _batched(foreign, narrow, shape, field, values)
        given: set[int] = set()
        for n, (doc, value) in enumerate(zip(docs, values, strict=True)):
            if batched is None:  # a value that cannot key a batch: one read for this row
                query = {"$in": value} if isinstance(value, list) else value
                spec = {**narrow, field: _naive(query)}
                matches = [copy for _, copy in _read(foreign, spec, shape, field)]
            else:
                # A document found for several rows: each row has its own copy.
                matches = [copies.deepcopy(m) if id(m) in given else m for m in batched[n]]
                given.update(id(m) for m in matches)
            matches = matches[:limit] if limit else matches
            doc[options["as"]] = _run(matches, database, rest)
        return docs

    return handle


def lookup_with_pipeline() -> None:
    handlers = aggregate._PIPELINE_HANDLERS
    handlers["$lookup"] = _lookup_with_pipeline(handlers["$lookup"])


def _run(documents: list, database, stages: list[dict]) -> list:
    return (
        list(aggregate.process_pipeline(documents, database, stages, None))
        if stages
        else documents
    )


def _plan(
    pipeline: list[dict], foreign_field: str
) -> tuple[dict, "_Shape | None", list[dict], int]:
    """As a server plans it: a leading constant `$match` joins the equality on
    `foreignField` in one indexed read (a point read of `(post, by)`, not
    every like of a post filtered afterwards); a plain `$project` after it
    (top-level fields in or out) is applied as each found document is copied
    (a post's embedded comments are never copied to be dropped, and nothing
    is copied twice); and a `$limit` reached through projections only bounds
    each row's matches. Returns the extra filter, the projection taken from
    the stages (None: whole documents), the stages left to run on what is
    found, and the limit (0: none)."""
    stages = list(pipeline)
    narrow: dict = {}
    first = stages[0].get("$match") if stages else None
    if isinstance(first, dict) and foreign_field not in first and "$expr" not in first:
        narrow = first
        stages = stages[1:]
    shape = _Shape.of(stages[0]) if stages else None
    if shape is not None:
        stages = stages[1:]
    limit = 0
    for stage in stages:
        if "$limit" in stage:
            limit = int(stage["$limit"])
            break
        if "$project" not in stage:
            break
    return narrow, shape, stages, limit


def _sorted_limit(stages: list[dict]) -> tuple[list, int, "_Shape | None", list[dict]] | None:
    """(sort, n, shape, the stages after) when the stages left after the
    planned `$match` begin with a `$sort` and a `$limit` (`_first_in_order`
    answers both exactly); `shape`: a plain `$project` right after them, which
    the read of the chosen documents applies (a post's embedded discussion is
    never copied to be dropped). None otherwise."""
    if len(stages) < 2 or "$sort" not in stages[0] or "$limit" not in stages[1]:
        return None
    sort, n = list(stages[0]["$sort"].items()), stages[1]["$limit"]
    if type(n) is not int or n < 1 or any(d not in (1, -1) for _, d in sort):
        return None  # not a limit or an order this reads by
    after = stages[2:]
    shape = _Shape.of(after[0]) if after else None
    if shape is not None:
        after = after[1:]
    return sort, n, shape, after


class _Shape:
    """A `$project` of top-level fields only, all in or all out (`_id` either
    way): what it keeps of a document can be decided as the document is copied."""

    def __init__(self, spec: dict) -> None:
        named = {key: bool(value) for key, value in spec.items() if key != "_id"}
        self.including = any(named.values()) or (not named and bool(spec["_id"]))
        with_id = bool(spec.get("_id", True))
        names = {key for key, shown in named.items() if shown == self.including}
        if with_id == self.including:
            names.add("_id")
        # Kept when including, dropped otherwise.
        self.names = frozenset(names)

    @classmethod
    def of(cls, stage: dict) -> "_Shape | None":
        spec = stage.get("$project")
        if not isinstance(spec, dict) or not spec or len(stage) != 1:
            return None
        for key, value in spec.items():
            if not isinstance(key, str) or key.startswith("$") or "." in key:
                return None
            if type(value) not in (int, bool) or value not in (0, 1):
                return None
        named = {bool(value) for key, value in spec.items() if key != "_id"}
        return cls(spec) if len(named) <= 1 else None

    def copy(self, document, copier) -> dict:
        names = self.names
        if self.including:
            return copier({key: value for key, value in document.items() if key in names})
        return copier({key: value for key, value in document.items() if key not in names})


def _read(
    foreign, spec: dict, shape: "_Shape | None", field: str = "_id", *, grouped: bool = False
) -> list[tuple]:
    """The documents matching `spec` (a filter as mongomock runs it: its dates
    naive, `_naive`) in the order a find gives them, each as (with `grouped`,
    the values the filter compares at `field` as the reader gets them: an
    array's elements, a missing field as None; else (), the reader's copy
    with `shape` applied). `field` is the one looked up. The candidates come
    from the indexes (planner.py) and mongomock's own filter decides on each,
    as a find does; the copy is made in one pass that also makes the dates
    aware (copies.aware_copy), where a find's copy walks each document twice
    and projects it field by field. A filter no index narrows is a find."""
    store = foreign._store
    tz_aware = foreign.codec_options.tz_aware
    keys = None if store.is_empty else planner.candidates(store, spec)
    if keys is None:
        found = []
        for document in foreign.find(spec):
            values = indexes.hash_values(field, document) if grouped else ()
            found.append((values, document if shape is None else shape.copy(document, _same)))
        return found
    copier = copies.aware_copy if tz_aware else copies.deepcopy
    documents = store._documents
    among = _among(spec, field)
    whole = matcher.matcher(spec)
    rest = matcher.matcher({name: clause for name, clause in spec.items() if name != field})
    found = []
    for store_key in keys:
        document = documents[store_key]
        inside = among(document.get(field))
        if inside is False:
            continue
        # The looked-up field decided already: the filter runs on the rest.
        if not (whole if inside is None else rest)(document):
            continue
        values = tuple(map(copier, indexes.hash_values(field, document))) if grouped else ()
        copy = copier(document) if shape is None else shape.copy(document, copier)
        found.append((values, copy))
    return found


# Values whose equality Python decides as the filter does (`_among`).
_KEYS = frozenset({str, int, ObjectId})


def _among(spec: dict, key: str):
    """For a query `{key: {$in: [ids, handles]}, ...}` on a top-level field:
    whether a document's value meets that clause (True, False), decided as
    `$in` decides it, so the filter need not run for it (the indexes narrow
    by one clause, as a server's first index bounds do: a reader's likes, of
    which the page's posts are a few, are passed over at once). None for a
    value it does not decide on: an array, a missing field, another type, or
    the string form of an ObjectId asked for (the filter then decides)."""
    search = spec.get(key)
    among = search.get("$in") if "." not in key and isinstance(search, dict) else None
    if (
        len(search or ()) != 1
        or not isinstance(among, list)
        or not all(type(v) in _KEYS for v in among)
    ):
        return _undecided
    wanted = frozenset(among)
    as_text = {str(v) for v in among if type(v) is ObjectId}

    def decide(value) -> bool | None:
        kind = type(value)
        if kind not in _KEYS:
            return None
        if value in wanted:
            return True
        if (kind is str and value in as_text) or (kind is ObjectId and str(value) in wanted):
            return None
        return False

    return decide


def _undecided(value) -> None:
    return None


def _same(value):
    return value


def _first_in_order(foreign, narrow: dict, shape, field: str, value, sort, n: int) -> list:
    """The first `n` documents in `sort` order whose `field` is `value` (or
    one of a list of values), as a server reads them: an index walk per value,
    merged, stopping at `n`. Here each value's documents are walked in
    `sort` order (an author's posts, newest first: the order orders.py keeps
    for a large group, a sort of the group's index entries for a small one)
    until `n` pass the filter; only the `n` chosen of all values are copied,
    with `shape`. A value or an order that cannot be walked so is read by a
    sorted find of the sort keys, then the chosen documents by `_id`."""
    values = value if isinstance(value, list) else [value]
    store = foreign._store
    copier = copies.aware_copy if foreign.codec_options.tz_aware else copies.deepcopy
    merged_walk = _merged_walk(foreign, narrow, field, values, sort, n)
    if merged_walk is not None:
        return [copier(doc) if shape is None else shape.copy(doc, copier) for doc in merged_walk]
    walks = None
    if not store.is_empty and all(indexes._plain(one) for one in values):
        # Each value's condition as the whole one would put it: `$in` for a list.
        walks = [
            _walk(store, narrow, field, _naive(one), isinstance(value, list), sort, n)
            for one in dict.fromkeys(values)
        ]
    if walks is None or any(walk is None for walk in walks):
        return _first_by_keys(foreign, narrow, shape, field, values, sort, n)
    # In the order of the collection first, so that ties in `sort` fall as
    # in one sorted read of them all.
    seq = indexes.state(store).seq
    chosen = sorted(
        {key: doc for walk in walks for key, doc in walk}.items(), key=lambda kv: seq[kv[0]]
    )
    merged = _native_order(chosen, sort)
    if merged is None:
        ordered = _in_order([doc for _, doc in chosen], sort)
    else:
        found = dict(chosen)
        ordered = [found[key] for key in merged]
    return [copier(doc) if shape is None else shape.copy(doc, copier) for doc in ordered[:n]]


def _merged_walk(foreign, narrow: dict, field: str, values: list, sort, n: int) -> list | None:
    """The first `n` stored documents of all `values` in `sort` order, read as
    a server reads them: the values' runs of the index merged as one walk
    (orders.py), stopping at the n-th match, whatever the number of values
    (the pulled authors a reader follows: n + one step per author, not n per
    author). None when no index serves it, or the sort leaves `_id` out (its
    ties then fall as the per-value walks order them)."""
    store = foreign._store
    if store.is_empty or not any(name == "_id" for name, _ in sort):
        return None
    if not all(indexes._plain(one) for one in values):
        return None
    spec = {**narrow, field: {"$in": _naive(list(dict.fromkeys(values)))}}
    order = orders.ordered(store, spec, sort)
    if order is None:
        return None
    documents, found, matches = store._documents, [], matcher.matcher(spec)
    for key in examined.counted(foreign.name, order):
        document = documents.get(key)
        if document is not None and matches(document):
            found.append(document)
            if len(found) == n:
                break
    return found


def _walk(store, narrow: dict, field: str, one, listed: bool, sort, n: int) -> list | None:
    """(store key, document) of the first `n` stored documents matching
    `narrow` whose `field` is `one` (one of a list of values: `listed`), in
    `sort` order, walked from the top of the order down; None when it is not
    an indexed equality group or its sort values do not compare natively."""
    spec = {**narrow, field: {"$in": [one]} if listed else one}
    # The group of `one` in its kept order: a superset of what `spec` matches.
    order = orders.ordered(store, {field: one}, sort)
    documents = store._documents
    if order is None:
        keys = planner.candidates(store, spec)
        if keys is None:
            return None
        order = _native_order([(key, documents[key]) for key in keys], sort)
        if order is None:
            return None
    found, matches = [], matcher.matcher(spec)
    for key in order:
        document = documents.get(key)
        if document is not None and matches(document):
            found.append((key, document))
            if len(found) == n:
                break
    return found


# Sort values whose Python order is their BSON order, one type per sort key.
_NATIVE = frozenset({datetime.datetime, ObjectId, str, int, float})


def _native_order(pairs: list[tuple], sort: list) -> list | None:
    """Store keys of (key, document) pairs in `sort` order by Python's own
    comparisons, when every sort key is a top-level field holding one of
    `_NATIVE` (a naive date, as stored), the same type in every document,
    in one direction for all keys (a post's `{ts: -1, _id: -1}`); else None."""
    directions = {direction for _, direction in sort}
    names = [name for name, _ in sort]
    if len(directions) != 1 or any("." in name for name in names):
        return None
    kinds: dict = {}
    rows = []
    for key, document in pairs:
        values = tuple(document.get(name) for name in names)
        for name, one in zip(names, values, strict=True):
            kind = type(one)
            if kind not in _NATIVE or kinds.setdefault(name, kind) is not kind:
                return None
            if (kind is float and math.isnan(one)) or (kind is datetime.datetime and one.tzinfo):
                return None
        rows.append((values, key))
    rows.sort(key=lambda row: row[0], reverse=directions.pop() < 0)
    return [key for _, key in rows]


def _first_by_keys(foreign, narrow: dict, shape, field: str, values: list, sort, n: int) -> list:
    """`_first_in_order` by finds: the sort keys of the first `n` (one sorted
    find), then the chosen documents by `_id` with `shape`."""
    keys = {name: 1 for name, _ in sort}
    found = foreign.find({**narrow, field: {"$in": values}}, keys).sort(sort).limit(n)
    ids = [row["_id"] for row in found]
    if not ids:
        return []
    read = _read(foreign, {"_id": {"$in": _naive(ids)}}, shape, grouped=True)
    by_id = {values[0]: copy for values, copy in read}
    return [by_id[i] for i in ids if i in by_id]


def _in_order(rows: list, sort: list) -> list:
    """`rows` sorted as mongomock sorts a find: a stable sort per key, last key first."""
    for name, direction in reversed(sort):
        rows.sort(
            key=lambda row, name=name: filtering.resolve_sort_key(name, row),
            reverse=direction < 0,
        )
    return rows


# Values a filter holds as they are: no date to make naive (mongomock's
# `patch_datetime_awareness_in_document`, which rebuilds every list it walks).
_AS_THEY_ARE = frozenset({str, int, float, bool, type(None), ObjectId})


def _naive(value):
    """A local value (or a list of them) as a filter holds it."""
    if type(value) in _AS_THEY_ARE:
        return value
    if type(value) is list and all(type(one) in _AS_THEY_ARE for one in value):
        return value
    return helpers.patch_datetime_awareness_in_document(value)


def _local_value(doc, local_field: str):
    if "." not in local_field:
        return doc.get(local_field)
    try:
        return helpers.get_value_by_dot(doc, local_field)
    except KeyError:
        return None


def _batched(foreign, narrow: dict, shape, field: str, values: list) -> list[list] | None:
    """Each row's foreign documents, read for every row at once: one indexed
    `$in` read for the whole stage instead of one per row (a server does one
    index probe per row, without Python's per-call cost), each row's in the
    order of that read. None when a value cannot be a dictionary key (a
    document)."""
    keys: set = set()
    try:
        for value in values:
            keys.update(value if isinstance(value, list) else [value])
    except TypeError:
        return None
    spec = {**narrow, field: {"$in": _naive(list(keys))}}
    if len(values) == 1:  # the page's one row: what the read found is its
        return [[copy for _, copy in _read(foreign, spec, shape, field)]]
    read = _read(foreign, spec, shape, field, grouped=True)
    groups: dict = {}
    for n, (found_values, _) in enumerate(read):
        for key in found_values:
            groups.setdefault(key, []).append(n)
    rows = []
    for value in values:
        at: set = set()
        for key in value if isinstance(value, list) else [value]:
            at.update(groups.get(key, ()))
        rows.append([read[n][1] for n in sorted(at)])
    return rows
