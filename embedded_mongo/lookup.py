"""`$lookup` with `localField`/`foreignField` and a `pipeline` (MongoDB 5.0).

The session read (the site's sessions module) joins the edges between the viewer
and a wall's owner this way: the foreign documents whose `foreignField`
equals the local value, narrowed by the sub-pipeline's constant `$match`, an
index point read of `(_f, _t)` on a server. mongomock refuses any `pipeline`
in a `$lookup`; this runs that form (no `let`) and leaves every other form
to mongomock.
"""

from mongomock import aggregate, helpers


def _lookup_with_pipeline(original):
    def handle(in_collection, database, options):
        if "pipeline" not in options or "let" in options or "localField" not in options:
            return original(in_collection, database, options)
        foreign = database.get_collection(options["from"])
        for doc in in_collection:
            try:
                value = helpers.get_value_by_dot(doc, options["localField"])
            except KeyError:
                value = None
            query = {"$in": value} if isinstance(value, list) else value
            matches = list(foreign.find({options["foreignField"]: query}))
            cursor = aggregate.process_pipeline(matches, database, options["pipeline"], None)
            doc[options["as"]] = list(cursor)
        return in_collection

    return handle


def lookup_with_pipeline() -> None:
    handlers = aggregate._PIPELINE_HANDLERS
    handlers["$lookup"] = _lookup_with_pipeline(handlers["$lookup"])
