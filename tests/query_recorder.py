"""Records the queries a page sends, for `tests.plans` to check.

On mongomock, by wrapping its collection and cursor methods (it has no
planner and no command monitoring); on a real server, through the round-trip
command listener. Each query keeps the application function that sent it.
"""

import sys
import threading

import mongomock

from socialsite import roundtrips
from tests import plans

_LIBRARIES = ("mongomock", "mongoengine", "pymongo", "embedded_mongo", "django", "tests")


def _caller() -> str:
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(_LIBRARIES) and module != __name__:
            return f"{module}.{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def _sort(spec) -> tuple:
    if not spec:
        return ()
    if isinstance(spec, str):
        return ((spec, 1),)
    items = spec.items() if isinstance(spec, dict) else spec
    return tuple((name, int(direction)) for name, direction in items)


def _pipeline_query(collection: str, pipeline: list) -> plans.Query:
    stages = list(pipeline)
    query = plans.Query(collection, {}, op="aggregate", pipeline=list(pipeline))
    if stages and "$match" in stages[0]:
        query.filter = stages.pop(0)["$match"]
    if stages and "$sort" in stages[0]:
        query.sort = _sort(stages.pop(0)["$sort"])
    if stages and "$limit" in stages[0]:
        query.limit = stages[0]["$limit"]
    elif not query.filter and stages and "$group" not in stages[0]:
        query.limit = 0
    return query


def _points(pipeline_before: list, field: str) -> int:
    """How many values the array at `field` holds, when an earlier stage set
    it from the pipeline's own text: a `$literal` list (its length) or a
    `$slice` of at most n; otherwise 1 (a value from the documents)."""
    points = 1
    for stage in pipeline_before:
        spec = stage.get("$addFields") or stage.get("$set") or {}
        value = spec.get(field)
        if isinstance(value, dict) and isinstance(value.get("$literal"), list):
            points = max(1, len(value["$literal"]))
        elif isinstance(value, dict) and isinstance(value.get("$slice"), list):
            points = max(1, int(value["$slice"][-1]))
    return points


def lookup_queries(pipeline: list) -> list[plans.Query]:
    """The queries a `$lookup` sends to the collection it joins, one per
    stage (nested ones too): its sub-pipeline's leading `$match`, `$sort`
    and `$limit`, with `foreignField` fixed by the local values (an `$in`
    of as many points as `_points` can tell). A plain `$lookup` (no
    sub-pipeline) is an equality on `foreignField`."""
    found: list[plans.Query] = []
    for position, stage in enumerate(pipeline):
        spec = stage.get("$lookup")
        if not isinstance(spec, dict) or "from" not in spec:
            continue
        inner = list(spec.get("pipeline") or [])
        query = _pipeline_query(spec["from"], inner)
        if "foreignField" in spec:
            points = _points(pipeline[:position], spec["localField"])
            local = {"$in": [f"v{n}" for n in range(points)]} if points > 1 else "v"
            joined = {spec["foreignField"]: local}
            query.filter = {"$and": [joined, query.filter]} if query.filter else joined
            if not inner:
                query.limit = 0
        query.op = "lookup"
        query.pipeline = None  # nothing a server could `explain` on its own
        found.append(query)
        found += lookup_queries(inner)
    return found


class Recorder:
    """Collects the queries sent while it is on, from this thread only."""

    def __init__(self):
        self.queries: list[plans.Query] = []
        self.on = False
        self._local = threading.local()

    def add(self, query: plans.Query) -> plans.Query:
        if self.on and not getattr(self._local, "depth", 0):
            query.caller = query.caller or _caller()
            self.queries.append(query)
        return query

    def nested(self, method):
        """Record only the outermost call: mongomock methods call each other."""
        local = self._local

        def call(*args, **kwargs):
            local.depth = getattr(local, "depth", 0) + 1
            try:
                return method(*args, **kwargs)
            finally:
                local.depth -= 1

        return call


def install_mongomock(recorder: Recorder, monkeypatch) -> None:
    collection_class, cursor_class = mongomock.collection.Collection, mongomock.collection.Cursor

    def wrap(name, to_query):
        original = getattr(collection_class, name)

        def method(self, *args, **kwargs):
            query = recorder.add(to_query(self.name, *args, **kwargs))
            if query.op == "aggregate" and not getattr(recorder._local, "depth", 0):
                for joined in lookup_queries(query.pipeline or []):
                    recorder.add(joined)
            result = recorder.nested(original)(self, *args, **kwargs)
            if isinstance(result, cursor_class):
                result._plan_query = query
            return result

        monkeypatch.setattr(collection_class, name, method)

    def find(name, filter=None, *args, sort=None, limit=0, **kwargs):
        return plans.Query(name, filter or {}, _sort(sort), limit or 0)

    def filtered(op):
        return lambda name, filter, *args, sort=None, **kwargs: plans.Query(
            name, filter, _sort(sort), 1 if op.endswith("_one") or "and" in op else 0, op
        )

    wrap("find", find)
    for op in ("update_one", "update_many", "replace_one", "delete_one", "delete_many"):
        wrap(op, filtered(op))
    for op in ("find_one_and_update", "find_one_and_replace", "find_one_and_delete"):
        wrap(op, filtered(op))
    wrap("count_documents", lambda name, filter, **kw: plans.Query(name, filter, op="count"))
    wrap(
        "distinct",
        lambda name, key, filter=None, **kw: plans.Query(
            name, filter or {}, op="distinct", key=key
        ),
    )
    wrap("aggregate", lambda name, pipeline, **kw: _pipeline_query(name, pipeline))
    # The collection's metadata, not a query: nothing inside it is recorded.
    original_estimate = collection_class.estimated_document_count
    monkeypatch.setattr(
        collection_class, "estimated_document_count", recorder.nested(original_estimate)
    )

    original_bulk = collection_class.bulk_write

    def bulk_write(self, requests, *args, **kwargs):
        requests = list(requests)
        for request in requests:
            if hasattr(request, "_filter"):
                recorder.add(plans.Query(self.name, request._filter, op=type(request).__name__))
        return recorder.nested(original_bulk)(self, requests, *args, **kwargs)

    monkeypatch.setattr(collection_class, "bulk_write", bulk_write)

    original_sort, original_limit = cursor_class.sort, cursor_class.limit

    def sort(self, key_or_list, direction=None):
        query = getattr(self, "_plan_query", None)
        if query is not None:
            query.sort = _sort([(key_or_list, direction)] if direction else key_or_list)
        return original_sort(self, key_or_list, direction)

    def limit(self, count):
        query = getattr(self, "_plan_query", None)
        if query is not None:
            query.limit = abs(count)
        return original_limit(self, count)

    monkeypatch.setattr(cursor_class, "sort", sort)
    monkeypatch.setattr(cursor_class, "limit", limit)


def _from_command(command: dict) -> list[plans.Query]:
    """The queries in one command sent to a real server."""
    name = next(iter(command))
    collection = command[name]
    if name == "find":
        return [
            plans.Query(
                collection,
                command.get("filter", {}),
                _sort(command.get("sort")),
                command.get("limit", 0),
            )
        ]
    if name == "count":  # without a query (estimated_document_count): metadata only
        query = command.get("query")
        return [plans.Query(collection, query, op="count")] if query else []
    if name == "distinct":
        return [
            plans.Query(collection, command.get("query", {}), op="distinct", key=command["key"])
        ]
    if name == "aggregate":
        pipeline = command.get("pipeline", [])
        return [_pipeline_query(collection, pipeline), *lookup_queries(pipeline)]
    if name == "findAndModify":
        return [
            plans.Query(collection, command.get("query", {}), _sort(command.get("sort")), 1, name)
        ]
    if name in ("update", "delete"):
        field = "updates" if name == "update" else "deletes"
        return [plans.Query(collection, op.get("q", {}), op=name) for op in command.get(field, [])]
    return []


def install_listener(recorder: Recorder, monkeypatch) -> None:
    original = roundtrips._Listener.started

    def started(self, event):
        if recorder.on and threading.current_thread() is threading.main_thread():
            for query in _from_command(dict(event.command)):
                recorder.add(query)
        return original(self, event)

    monkeypatch.setattr(roundtrips._Listener, "started", started)
