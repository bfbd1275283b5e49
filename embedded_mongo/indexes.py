"""Secondary indexes for the demo database, so a page's lookups do not scan.

mongomock keeps no index: every find, update, delete and aggregate runs its
filter over every document of the collection. This keeps, per collection, a
map from each value of an indexed field to the documents holding it, and
(built on the first range query on the field) a sorted list of its values.
An indexed field is `_id` or the first key of an index the collection
declares, as a server would use it; nothing else is narrowed.

The maps only ever *narrow*: `candidates` returns a superset of the
documents the filter can match, in insertion order, and mongomock's own
filter still decides on each of them. So a query answers exactly what the
scan answered, in the same order. Keys come from mongomock's own path walk
(`iter_key_candidates`), so a multikey field (an array, or a path through an
array of sub-documents) is indexed under every element, a missing field
under None. Range lists are kept per comparison class (numbers, strings,
naive datetimes, ObjectIds), as BSON type bracketing compares only within a
class; values a sorted list cannot hold (other numbers, aware datetimes) are
kept aside and always returned as candidates.

Every write to a collection's document store goes through `on_set`,
`on_delete` or `reindex` (see reads.py), which keep the maps current; a
dropped collection gets a new store dict and so fresh maps.
"""

import bisect
import datetime
import math
import numbers

from bson import ObjectId
from mongomock import filtering, helpers

NOTHING = filtering.NOTHING
_RANGE_OPS = ("$gt", "$gte", "$lt", "$lte")
_EMPTY: frozenset = frozenset()
_ODD = "odd"

_enabled = True


def set_enabled(on: bool) -> None:
    """Switch narrowing off to measure or check against mongomock's own scans."""
    global _enabled
    _enabled = on


def enabled() -> bool:
    return _enabled


def store_key(document_id):
    """The key the store files a document under (mongomock's own rule)."""
    return helpers.hashdict(document_id) if isinstance(document_id, dict) else document_id


def _plain(value) -> bool:
    """A value whose matches an equality lookup on a hash map can find."""
    if isinstance(value, (dict, list, tuple, *filtering._RE_TYPES)):
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _range_class(value):
    """The sorted list a value belongs to; _ODD: comparable, not sortable; None: never
    compared with a bound of a class this narrows."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return None if isinstance(value, float) and math.isnan(value) else "num"
    if isinstance(value, numbers.Number):
        return _ODD
    if isinstance(value, str):
        return "str"
    if isinstance(value, datetime.datetime):
        return "dt" if value.tzinfo is None else _ODD
    if isinstance(value, ObjectId):
        return "oid"
    return None


def _bound_class(value):
    cls = _range_class(value)
    return None if cls == _ODD else cls


def _walk(field: str, document):
    """The values the filter compares for `field`: arrays expanded one level."""
    for value in filtering.iter_key_candidates(field, document):
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


def hash_values(field: str, document) -> tuple:
    found = set()
    for value in _walk(field, document):
        if value is NOTHING:
            value = None
        try:
            found.add(value)
        except TypeError:  # a sub-document or array: no plain value equals it
            continue
    return tuple(found)


def range_values(field: str, document) -> tuple:
    return tuple(
        (cls, value)
        for value in _walk(field, document)
        if (cls := _range_class(value)) is not None
    )


def ttl_value(field: str, document):
    """When mongomock's TTL check may expire the document, or None for never:
    only a naive datetime (the least of a list) can be subtracted from its
    naive clock (store._get_min_datetime_from_value, _value_meets_expiry)."""
    from mongomock.store import _get_min_datetime_from_value

    value = _get_min_datetime_from_value(document.get(field))
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        return None if value == datetime.datetime.max else value
    return None


class State:
    """The indexes of one collection's document store."""

    def __init__(self, store):
        self.documents = store._documents
        self.seq = {key: n for n, key in enumerate(self.documents)}
        self.next_seq = len(self.seq)
        self.hashes: dict = {}  # field -> {value: set of keys}
        self.hash_keys: dict = {}  # field -> {key: its values}
        self.ranges: dict = {}  # field -> {class: sorted [(value, seq, key)]}
        self.range_keys: dict = {}  # field -> {key: its (class, value)s}
        self.odd: dict = {}  # field -> keys holding a comparable, unsortable value
        self.ttl: dict = {}  # field -> [sorted [(when, seq, key)], {key: when}]
        # (fields, sort) -> a declared index in key order (sorted_index.py)
        self.sorted: dict = {}

    # --- building and keeping -------------------------------------------------

    def hash_index(self, field: str) -> dict:
        if field not in self.hashes:
            self.hashes[field], self.hash_keys[field] = {}, {}
            for key, document in self.documents.items():
                self._hash_add(field, key, document)
        return self.hashes[field]

    def range_index(self, field: str) -> dict:
        if field not in self.ranges:
            self.ranges[field], self.range_keys[field], self.odd[field] = {}, {}, set()
            for key, document in self.documents.items():
                self._range_add(field, key, document)
        return self.ranges[field]

    def sorted_index(self, fields: tuple, sort: tuple):
        found = self.sorted.get((fields, sort))
        if found is None:
            from embedded_mongo.sorted_index import SortedIndex  # it files by hash_values

            found = self.sorted[fields, sort] = SortedIndex(fields, sort)
            found.build(self.documents, self.seq)
        return found

    def ttl_index(self, field: str) -> list:
        if field not in self.ttl:
            self.ttl[field] = [[], {}]
            for key, document in self.documents.items():
                self._ttl_add(field, key, document)
        return self.ttl[field][0]

    def on_set(self, key, document) -> None:
        if key in self.seq:  # replaced in place: the store keeps its position
            self._change(key, document)
            return
        self.seq[key] = self.next_seq
        self.next_seq += 1
        self._add(key, document)
        for index in self.sorted.values():
            index.add(key, self.seq[key], document)

    def on_delete(self, key) -> None:
        if key in self.seq:
            self._remove(key)
            for index in self.sorted.values():
                index.remove(key)
            del self.seq[key]

    def reindex(self, key) -> None:
        document = self.documents.get(key)
        if document is not None and key in self.seq:
            self._change(key, document)

    def _change(self, key, document) -> None:
        """Refile a document written in place: only the fields whose values
        changed move (a like changes a count, not an author or a word)."""
        for field in self.hashes:
            values = hash_values(field, document)
            if values != self.hash_keys[field].get(key):
                self._hash_remove(field, key)
                self._hash_add(field, key, document, values)
        seq = self.seq[key]
        for field in self.ranges:
            if range_values(field, document) != self.range_keys[field].get(key):
                self._range_remove(field, key, seq)
                self._range_add(field, key, document)
        for field in self.ttl:
            self._ttl_remove(field, key, seq)
            self._ttl_add(field, key, document)
        for index in self.sorted.values():
            index.update(key, seq, document)

    def _add(self, key, document) -> None:
        for field in self.hashes:
            self._hash_add(field, key, document)
        for field in self.ranges:
            self._range_add(field, key, document)
        for field in self.ttl:
            self._ttl_add(field, key, document)

    def _remove(self, key) -> None:
        for field in self.hashes:
            self._hash_remove(field, key)
        seq = self.seq[key]
        for field in self.ranges:
            self._range_remove(field, key, seq)
        for field in self.ttl:
            self._ttl_remove(field, key, seq)

    def _hash_remove(self, field, key) -> None:
        by_value = self.hashes[field]
        for value in self.hash_keys[field].pop(key, ()):
            holders = by_value[value]
            holders.discard(key)
            if not holders:
                del by_value[value]

    def _range_remove(self, field, key, seq: int) -> None:
        self.odd[field].discard(key)
        by_class = self.ranges[field]
        for cls, value in self.range_keys[field].pop(key, ()):
            if cls != _ODD:
                _sorted_remove(by_class[cls], (value, seq, key))

    def _ttl_remove(self, field, key, seq: int) -> None:
        sorted_list, when_of = self.ttl[field]
        when = when_of.pop(key, None)
        if when is not None:
            _sorted_remove(sorted_list, (when, seq, key))

    def _hash_add(self, field, key, document, values=None) -> None:
        if values is None:
            values = hash_values(field, document)
        self.hash_keys[field][key] = values
        by_value = self.hashes[field]
        for value in values:
            by_value.setdefault(value, set()).add(key)

    def _range_add(self, field, key, document) -> None:
        values = range_values(field, document)
        self.range_keys[field][key] = values
        seq = self.seq[key]
        for cls, value in values:
            if cls == _ODD:
                self.odd[field].add(key)
            else:
                bisect.insort(self.ranges[field].setdefault(cls, []), (value, seq, key))

    def _ttl_add(self, field, key, document) -> None:
        when = ttl_value(field, document)
        if when is not None:
            sorted_list, when_of = self.ttl[field]
            when_of[key] = when
            bisect.insort(sorted_list, (when, self.seq[key], key))


def _sorted_remove(sorted_list: list, item) -> None:
    # (value, seq) is unique to a key, so the item is found by its prefix.
    at = bisect.bisect_left(sorted_list, item[:2])
    if at < len(sorted_list) and sorted_list[at][1] == item[1]:
        del sorted_list[at]


def state(store) -> State:
    """The store's indexes, (re)built when missing or when the collection was dropped."""
    current = store.__dict__.get("_demo_indexes")
    if current is None or current.documents is not store._documents:
        current = store._demo_indexes = State(store)
    return current


def live_state(store):
    """The store's indexes if they are being kept, else None (nothing to keep yet)."""
    current = store.__dict__.get("_demo_indexes")
    if current is None or current.documents is not store._documents:
        return None
    return current
