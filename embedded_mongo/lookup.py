"""`$lookup` with `localField`/`foreignField` and a `pipeline` (MongoDB 5.0).

The session read (the site's sessions module) joins the edges between the
viewer and a wall's owner this way, and a timeline page its likes, votes and
edges: the foreign documents whose `foreignField` equals the local value,
narrowed by the sub-pipeline's constant `$match`, an index point read of
`(_f, _t)` or `(post, by)` on a server, and here one indexed find (`_plan`).
mongomock refuses any `pipeline` in a `$lookup`; this runs that form (no
`let`) and leaves every other form to mongomock.
"""

from mongomock import aggregate, helpers


def _lookup_with_pipeline(original):
    def handle(in_collection, database, options):
        if "pipeline" not in options or "let" in options or "localField" not in options:
            return original(in_collection, database, options)
        foreign = database.get_collection(options["from"])
        field = options["foreignField"]
        narrow, projection, rest, limit = _plan(options["pipeline"], field)
        docs = list(in_collection)
        values = [_local_value(doc, options["localField"]) for doc in docs]
        newest = _sorted_limit(rest)
        if newest is not None and len(docs) == 1:
            # One row wanting the first n in an order (a news page's pulled
            # posts): one sorted, limited find, as a server walks its index,
            # rather than every match copied to be sorted and cut.
            sort, n, chosen = newest
            found = _first_in_order(foreign, narrow, chosen, field, values[0], sort, n)
            cursor = aggregate.process_pipeline(found, database, rest, None)
            docs[0][options["as"]] = list(cursor)
            return docs
        groups = _batched(foreign, narrow, projection, field, values)
        for doc, value in zip(docs, values, strict=True):
            if groups is None:  # a value that cannot key a batch: one find for this row
                query = {"$in": value} if isinstance(value, list) else value
                found = foreign.find({**narrow, field: query}, projection)
                matches = list(found.limit(limit) if limit else found)
            else:
                matches = _gathered(groups, value)
                matches = matches[:limit] if limit else matches
            cursor = aggregate.process_pipeline(matches, database, rest, None)
            doc[options["as"]] = list(cursor)
        return docs

    return handle


def lookup_with_pipeline() -> None:
    handlers = aggregate._PIPELINE_HANDLERS
    handlers["$lookup"] = _lookup_with_pipeline(handlers["$lookup"])


def _plan(pipeline: list[dict], foreign_field: str) -> tuple[dict, dict | None, list[dict], int]:
    """As a server plans it: a leading constant `$match` joins the equality on
    `foreignField` in one indexed find (a point read of `(post, by)`, not
    every like of a post filtered afterwards); a plain `$project` after it
    also narrows what the find copies (a post's embedded comments are never
    copied to be dropped), and still runs after it for its exact result; and
    a `$limit` reached through projections only bounds that find. Returns the
    extra filter, the find's projection (None: whole documents), the stages
    left to run on what it finds, and the limit (0: none)."""
    stages = list(pipeline)
    narrow: dict = {}
    first = stages[0].get("$match") if stages else None
    if isinstance(first, dict) and foreign_field not in first and "$expr" not in first:
        narrow = first
        stages = stages[1:]
    projection = None
    spec = stages[0].get("$project") if stages else None
    if isinstance(spec, dict) and spec and all(v in (0, False) for v in spec.values()):
        # An exclusion: the find drops the same fields, but keeps the one
        # it groups by (and `_id`, which the stage itself decides on).
        projection = {k: 0 for k in spec if k not in (foreign_field, "_id")} or None
    limit = 0
    for stage in stages:
        if "$limit" in stage:
            limit = int(stage["$limit"])
            break
        if "$project" not in stage:
            break
    return narrow, projection, stages, limit


def _sorted_limit(stages: list[dict]) -> tuple[list, int, dict | None] | None:
    """(sort, n, projection) when the stages left after the planned `$match`
    begin with a `$sort` and a `$limit`; None otherwise. `projection`: an
    exclusion `$project` right after them that leaves the sort keys, which
    the read of the chosen documents can apply (a post's embedded discussion
    is never copied to be dropped)."""
    if len(stages) < 2 or "$sort" not in stages[0] or "$limit" not in stages[1]:
        return None
    sort = list(stages[0]["$sort"].items())
    projection = None
    spec = stages[2].get("$project") if len(stages) > 2 else None
    keys = {name for name, _ in sort}
    exclusion = isinstance(spec, dict) and spec and all(v in (0, False) for v in spec.values())
    if exclusion and not keys & set(spec):
        projection = {k: 0 for k in spec if k != "_id"} or None
    return sort, int(stages[1]["$limit"]), projection


def _first_in_order(foreign, narrow: dict, projection, field: str, value, sort, n: int) -> list:
    """The first `n` documents in `sort` order whose `field` is `value` (or
    one of a list of values), as a server reads them: an index walk per value,
    merged, stopping at `n`. Here one indexed find copies only the sort keys
    of the candidates, then the `n` chosen documents are read with
    `projection`, rather than every candidate copied whole to be cut."""
    keys = {name: 1 for name, _ in sort}
    query = {"$in": value} if isinstance(value, list) else value
    ids = [row["_id"] for row in foreign.find({**narrow, field: query}, keys).sort(sort).limit(n)]
    if not ids:
        return []
    by_id = {row["_id"]: row for row in foreign.find({"_id": {"$in": ids}}, projection)}
    return [by_id[i] for i in ids if i in by_id]


def _local_value(doc, local_field: str):
    try:
        return helpers.get_value_by_dot(doc, local_field)
    except KeyError:
        return None


def _batched(
    foreign, narrow: dict, projection: dict | None, field: str, values: list
) -> dict | None:
    """The foreign documents of every row at once, grouped by their `field`
    value: one indexed `$in` find for the whole stage instead of one per row
    (a server does one index probe per row, without Python's per-call cost).
    None when a value cannot be a dictionary key (a document)."""
    keys: set = set()
    try:
        for value in values:
            keys.update(value if isinstance(value, list) else [value])
    except TypeError:
        return None
    groups: dict = {}
    for found in foreign.find({**narrow, field: {"$in": list(keys)}}, projection):
        value = _local_value(found, field)
        for key in value if isinstance(value, list) else [value]:
            try:
                groups.setdefault(key, []).append(found)
            except TypeError:
                return None
    return groups


def _gathered(groups: dict, value) -> list:
    """A row's matches: for a list of values, each value's in turn, each document once."""
    if not isinstance(value, list):
        return list(groups.get(value, ()))
    seen, matches = set(), []
    for key in value:
        for found in groups.get(key, ()):
            if id(found) not in seen:
                seen.add(id(found))
                matches.append(found)
    return matches
