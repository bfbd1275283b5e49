"""mongomock's reads and writes, routed through the indexes (indexes.py, planner.py).

What mongomock did per call, and what this changes (results are unchanged):
- every filter ran over every document (`_iter_documents`): now only over
  the candidates the planner finds, still in insertion order;
- a cursor deep-copied every matching document before applying its limit:
  now it copies the first skip + limit after sorting, and `find_one` the first;
- a sort sorted every match on every read: a read whose sort a declared
  index serves walks that index in order (orders.py, sorted_index.py), and
  stops at skip + limit, in a `find` and in a `$match`, `$sort`, `$limit`
  aggregate alike;
- `aggregate` deep-copied the whole collection before its first stage: a
  pipeline that starts with `$match` now starts from the candidates (the
  `$match` stage itself still runs on them);
- every access to a collection with a TTL index checked each document for
  expiry: now a sorted list of the expiry times tells which ones are due.
Writes keep the indexes current: the store's set and delete, and the
in-place changes an update makes to a stored document. Every document a
filter runs on is counted (examined.py).
"""

import datetime
import functools
import itertools
from collections.abc import Mapping

import mongomock
from bson import ObjectId
from mongomock import aggregate, filtering, helpers
from mongomock.store import CollectionStore

from embedded_mongo import copies, examined, expressions, indexes, matcher, orders, planner


def route_reads() -> None:
    collection_class = mongomock.collection.Collection
    cursor_class = mongomock.collection.Cursor
    _keep_indexes_on_writes(collection_class)
    _scan_candidates_only(collection_class)
    _copy_what_is_returned(collection_class, cursor_class)
    _aggregate_from_candidates(collection_class)
    _expire_from_sorted_times()


def _keep_indexes_on_writes(collection_class) -> None:
    set_item, del_item = CollectionStore.__setitem__, CollectionStore.__delitem__

    def setitem(self, key, value):
        set_item(self, key, value)
        state = indexes.live_state(self)
        if state is not None:
            state.on_set(key, value)

    def delitem(self, key):
        del_item(self, key)
        state = indexes.live_state(self)
        if state is not None:
            state.on_delete(key)

    CollectionStore.__setitem__, CollectionStore.__delitem__ = setitem, delitem

    def reindexing(method):
        # An update changes the stored document in place, behind the store's back.
        @functools.wraps(method)
        def apply(self, existing_document, *args, **kwargs):
            key = indexes.store_key(existing_document.get("_id"))
            try:
                return method(self, existing_document, *args, **kwargs)
            finally:
                state = indexes.live_state(self._store)
                if state is not None and state.documents.get(key) is existing_document:
                    state.reindex(key)

        return apply

    for name in ("_apply_update_document", "_apply_update_pipeline"):
        setattr(collection_class, name, reindexing(getattr(collection_class, name)))


class _Windows:
    """How many cursor windows were sliced (tests: one per cursor read)."""

    built = 0


WINDOWS = _Windows()


def _scan_candidates_only(collection_class) -> None:
    scan = collection_class._iter_documents

    def iter_documents(self, filter):
        store = self._store
        if store.is_empty:
            return scan(self, filter)  # which checks the filter, as a server would
        keys = planner.candidates(store, filter)
        if keys is None:
            chosen = list(store.documents)
        else:
            documents = store._documents
            chosen = [documents[key] for key in keys]
        matches = matcher.matcher(filter)
        return (document for document in examined.counted(self.name, chosen) if matches(document))

    collection_class._iter_documents = iter_documents


def _copy_what_is_returned(collection_class, cursor_class) -> None:
    compute = cursor_class._compute_results
    get_dataset = collection_class._get_dataset

    def dataset(self, spec, sort, fields, as_class, aware=False):
        # `aware`: the copies as a tz-aware client reads them (compute_results).
        store = self._store
        if store.is_empty:  # which also expires what a TTL index says is due
            yield from _made_aware(get_dataset(self, spec, sort, fields, as_class), aware)
            return
        copy = _copier(self, fields, as_class, aware)
        if not sort:
            yield from _unsorted(self, spec, copy)
            return
        order = orders.ordered(store, spec, sort)
        if order is None:
            yield from _made_aware(get_dataset(self, spec, sort, fields, as_class), aware)
            return
        documents, matches = store._documents, matcher.matcher(spec)
        # Lazily: the cursor stops reading at skip + limit.
        for key in examined.counted(self.name, order):
            document = documents.get(key)
            if document is not None and matches(document):
                yield copy(document)

    find_one = collection_class.find_one

    def compute_results(self, with_limit_and_skip=False):
        if not indexes.enabled():
            return compute(self, with_limit_and_skip)
        bound = None
        if with_limit_and_skip and self._limit:
            bound = (self._skip or 0) + abs(self._limit)
        previous = getattr(self, "_demo_bound", None)
        covered = previous is None or (bound is not None and bound <= previous)
        # An empty result is a result: mongomock's `not self._results` ran
        # the query again on every look at a cursor that found nothing.
        if (
            self._results is None
            or self._factory_last_generated_results != self._factory
            or not covered
        ):
            factory = self._factory
            if not self.collection.codec_options.tz_aware:
                results = list(itertools.islice(factory(), bound))
            elif isinstance(factory, functools.partial) and (
                factory.func == self.collection._get_dataset
            ):
                # Copied and made aware in one pass, not copied twice.
                results = list(itertools.islice(factory(aware=True), bound))
            else:
                results = [
                    helpers.make_datetime_timezone_aware_in_document(x)
                    for x in itertools.islice(factory(), bound)
                ]
            self._factory_last_generated_results = self._factory
            self._results, self._demo_bound = results, bound
        if not with_limit_and_skip:
            return self._results
        # mongomock asks for the window on every `next()`: slicing it afresh
        # each time would copy the whole result list per document read (a
        # long cursor read in O(n²)). Kept until the results or bounds change.
        shape = (self._results, self._skip, self._limit)
        kept = getattr(self, "_demo_window", None)
        if kept is None or kept[0] is not shape[0] or kept[1:3] != shape[1:]:
            results = self._results[self._skip :]
            window = results[: abs(self._limit)] if self._limit else results
            self._demo_window = (*shape, window)
            WINDOWS.built += 1
        return self._demo_window[3]

    def first_only(self, filter=None, *args, **kwargs):
        if not indexes.enabled():
            return find_one(self, filter, *args, **kwargs)
        if filter is None:
            filter = {}
        if not isinstance(filter, Mapping):
            filter = {"_id": filter}
        # The first document is the first whatever the limit: copy only it.
        cursor = self.find(filter, *args, **kwargs)
        cursor._limit = 1
        return next(cursor, None)

    collection_class._get_dataset = dataset
    cursor_class._compute_results = compute_results
    collection_class.find_one = first_only


def _made_aware(found, aware: bool):
    if not aware:
        return found
    return (helpers.make_datetime_timezone_aware_in_document(document) for document in found)


def _copier(collection, fields, as_class, aware: bool):
    """How a read copies each document it returns: mongomock's
    `_copy_only_fields`, and then for a tz-aware client its
    `make_datetime_timezone_aware_in_document`, which walk and copy it
    twice; in one pass (`copies.aware_copy`) for the whole document or a
    projection of top-level fields (`{"_id": 0, "_f": 1, "_t": 1}`: the
    follower graph the demo's fan-out reads, a few hundred thousand edges).

    The projection is this read's own copy: mongomock takes `_id` out of the
    dict it is given and puts it back for every document, and callers pass
    module-level projections (feeds' CARD_FIELDS) that other page threads
    are reading at the same moment (a real driver only encodes them)."""
    if isinstance(fields, dict):
        fields = dict(fields)
    if aware and as_class is dict:
        copy = _top_level_projection(fields)
        if copy is not None:
            return copy
    if aware:
        return lambda document: helpers.make_datetime_timezone_aware_in_document(
            collection._copy_only_fields(document, fields, as_class)
        )
    return lambda document: collection._copy_only_fields(document, fields, as_class)


def _top_level_projection(fields):
    """The one-pass copier of `fields`, giving what mongomock gives (the
    named fields in the document's order, `_id` last unless excluded), or
    None for a projection that names a path, an operator or mixed values
    (mongomock's own path then copies, or refuses, it)."""
    if not fields:  # pymongo 4: None or {} is the whole document
        return copies.aware_copy
    if type(fields) is not dict:
        return None
    id_value = fields.get("_id", 1)
    named = {key: value for key, value in fields.items() if key != "_id"}
    if type(id_value) not in (int, bool):
        return None
    for key, value in named.items():
        if type(key) is not str or "." in key or key.startswith("$"):
            return None
        if type(value) not in (int, bool):
            return None  # `{"comments": {"$slice": ...}}`: mongomock's own path
    if len({bool(value) for value in named.values()}) > 1:
        return None
    include = bool(next(iter(named.values()))) if named else None

    def copy(document):
        if include is None:
            out = {} if id_value == 1 else copies.aware_copy(document)
        else:  # `named` leaves `_id` out: excluding keeps it in its place
            out = {
                key: copies.aware_copy(value)
                for key, value in document.items()
                if (key in named) == include
            }
        if id_value == 0:
            out.pop("_id", None)
        elif "_id" in document:
            out["_id"] = copies.aware_copy(document["_id"])
        return out

    return copy


def _unsorted(collection, spec, copy):
    """An unsorted read's matches in insertion order, as mongomock's scan
    yields them, but lazily: `find_one({})` (GridFS asks it of `fs.files`
    and `fs.chunks` before every file it stores, to decide whether to create
    their indexes) reads up to the first match, not a list of the whole
    collection. The cursor takes its results in one call under the server
    lock (`compute_results`), so the store does not change while this walks
    it."""
    documents = collection._store._documents
    keys = planner.candidates(collection._store, spec)
    scanned = documents.values() if keys is None else (documents[key] for key in keys)
    matches = matcher.matcher(spec)
    for document in examined.counted(collection.name, scanned):
        if matches(document):
            yield copy(document)


def _aggregate_from_candidates(collection_class) -> None:
    run = collection_class.aggregate

    def aggregate_pipeline(self, pipeline, session=None, **kwargs):
        stages = list(pipeline) if isinstance(pipeline, (list, tuple)) else None
        first = stages[0] if stages else None
        if not (isinstance(first, dict) and list(first) == ["$match"]):
            return run(self, pipeline, session, **kwargs)
        store = self._store
        if store.is_empty:
            return run(self, pipeline, session, **kwargs)
        page = _page_in_index_order(self, stages, session)
        if page is not None:
            return page
        keys = planner.candidates(store, first["$match"])
        if keys is None:
            return run(self, pipeline, session, **kwargs)
        examined.EXAMINED.add(self.name, len(keys))
        documents, tz_aware = store._documents, self.codec_options.tz_aware
        match = first["$match"]
        if tz_aware and _top_level_only(match):
            # The `$match` decided on the stored fields it names (not on a
            # whole timeline of entries), and only what it keeps is copied,
            # in one pass that also makes the dates aware.
            # Stored dates are naive UTC: so are the filter's, as `$match` has them.
            spec = helpers.patch_datetime_awareness_in_document(match)
            kept = [
                documents[key]
                for key in keys
                if filtering.filter_applies(spec, _fields_of(documents[key], spec))
            ]
            rest = stages[1:]
            reading = _reading_head(rest)
            if reading:
                # A timeline page's `$limit` and `$project` run on the stored
                # document and only what they answer is copied: a page of
                # entries, not the whole timeline of a few hundred.
                head = helpers.patch_datetime_awareness_in_document(rest[:reading])
                kept = list(aggregate.process_pipeline(kept, self.database, head, session))
                rest = rest[reading:]
            return aggregate.process_pipeline(
                [copies.aware_copy(doc) for doc in kept], self.database, rest, session
            )
        # The copies `self.find()` would have made, of the candidates only; the
        # `$match` stage then keeps exactly the documents it kept before.
        found = []
        for key in keys:
            copy = self._copy_only_fields(documents[key], None, dict)
            found.append(
                helpers.make_datetime_timezone_aware_in_document(copy) if tz_aware else copy
            )
        return aggregate.process_pipeline(found, self.database, stages, session)

    collection_class.aggregate = aggregate_pipeline


def _page_in_index_order(collection, stages: list, session):
    """`$match`, `$sort`, `$limit` (a page of posts): the documents read in
    the order of an index that serves the sort (orders.py), the filter run
    on each until the page is full, and only those copied. The stages run
    on them as before (the sort of a sorted page keeps its order). None when
    no index serves it."""
    if len(stages) < 3 or list(stages[1]) != ["$sort"] or list(stages[2]) != ["$limit"]:
        return None
    sort, limit = stages[1]["$sort"], stages[2]["$limit"]
    if not isinstance(sort, dict) or type(limit) is not int or limit <= 0:
        return None
    store = collection._store
    match = stages[0]["$match"]
    order = orders.ordered(store, match, list(sort.items()))
    if order is None:
        return None
    # Stored dates are naive UTC: so are the filter's, as `$match` has them.
    spec = helpers.patch_datetime_awareness_in_document(match)
    documents, kept, matches = store._documents, [], matcher.matcher(spec)
    for key in examined.counted(collection.name, order):
        document = documents.get(key)
        if document is not None and matches(document):
            kept.append(document)
            if len(kept) == limit:
                break
    if collection.codec_options.tz_aware:
        found = [copies.aware_copy(document) for document in kept]
    else:
        found = [collection._copy_only_fields(document, None, dict) for document in kept]
    return aggregate.process_pipeline(found, collection.database, stages[1:], session)


def _reading_head(stages: list) -> int:
    """How many of the stages after a `$match` (an optional `$limit`, then
    a `$project`) may run on the stored documents rather than on the
    reader's copies: 0 unless the `$project` holds only fields in or out and
    expressions of the operators expressions.py answers itself, which read
    their document and make no value of their own, and every date it holds
    is an aware UTC one to the millisecond (made naive to compare with the
    stored dates exactly as the copies' aware dates compare with it)."""
    at = 1 if stages and list(stages[0]) == ["$limit"] and type(stages[0]["$limit"]) is int else 0
    if len(stages) <= at or list(stages[at]) != ["$project"]:
        return 0
    spec = stages[at]["$project"]
    return at + 1 if isinstance(spec, dict) and spec and _reads_only(spec) else 0


_PLAIN = frozenset({str, int, float, bool, type(None), ObjectId})


def _reads_only(value) -> bool:
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind is dict:
        return all(
            (not key.startswith("$") or key in expressions.OWN_OPERATORS) and _reads_only(item)
            for key, item in value.items()
        )
    if kind is list:
        return all(_reads_only(item) for item in value)
    if kind is datetime.datetime:
        offset = value.utcoffset()
        return offset is not None and not offset and value.microsecond % 1000 == 0
    return False


def _top_level_only(spec) -> bool:
    """A filter on named top-level fields only (no `$and`/`$or`/`$expr`, no
    dotted path): what it decides depends on those fields alone."""
    return isinstance(spec, dict) and all(
        isinstance(key, str) and not key.startswith("$") and "." not in key for key in spec
    )


def _fields_of(document, spec: dict) -> dict:
    return {key: document[key] for key in spec if key in document}


def _expire_from_sorted_times() -> None:
    scan_for_expired = CollectionStore._remove_expired_documents

    def remove_expired_documents(self):
        if not self._ttl_indexes:
            return
        if not indexes.enabled():
            return scan_for_expired(self)
        state = indexes.state(self)
        for index in list(self._ttl_indexes.values()):
            try:
                expiry = int(index["expireAfterSeconds"])
            except ValueError:
                continue
            if len(index["key"]) > 1:
                continue
            field = next(iter(index["key"]))[0]
            due = _due(state.ttl_index(field), expiry)
            for key in due:
                if key in self._documents:
                    del self[key]

    CollectionStore._remove_expired_documents = remove_expired_documents


def _due(sorted_times: list, expiry: int) -> list:
    """Keys whose time is at least `expiry` seconds before mongomock's clock."""
    now = mongomock.utcnow()
    due = []
    for when, _, key in sorted_times:
        try:
            if (now - when).total_seconds() < expiry:
                break
        except TypeError:  # an aware clock: mongomock expires nothing then
            break
        due.append(key)
    return due
