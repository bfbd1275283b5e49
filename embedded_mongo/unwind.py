"""`$unwind` of a top-level array without copying every row's document again.

mongomock deep-copies the whole document once per array element: unwinding
n timeline entries copied all n entries n times (the "N new posts" count,
timelines/selectors/newposts.py, unwinds the entries above a cursor every few
seconds for every open feed). A server hands each element its own row;
here each row is a new top-level dict that shares the document's other
values with its siblings (the rows of one aggregate, copied from the store
already) and holds its own element. No stage changes a nested value in place:
they set top-level fields or build new documents. Dotted paths, and the index
options, stay with mongomock.
"""

from mongomock import aggregate


def _unwind_top_level(original):
    def handle(in_collection, database, options):
        spec = options if isinstance(options, dict) else {"path": options}
        path = spec.get("path")
        if not isinstance(path, str) or not path.startswith("$") or "." in path:
            return original(in_collection, database, options)
        if "includeArrayIndex" in spec:
            return original(in_collection, database, options)
        field, keep_empty = path[1:], spec.get("preserveNullAndEmptyArrays")
        rows = []
        for doc in in_collection:
            value = doc.get(field)
            if value is None or value == []:
                if keep_empty:
                    rows.append({k: v for k, v in doc.items() if k != field or value is None})
                continue
            if not isinstance(value, list):
                rows.append(dict(doc))
                continue
            rest = {k: v for k, v in doc.items() if k != field}
            rows.extend({**rest, field: item} for item in value)
        return rows

    return handle


def unwind_without_copies() -> None:
    handlers = aggregate._PIPELINE_HANDLERS
    handlers["$unwind"] = _unwind_top_level(handlers["$unwind"])
