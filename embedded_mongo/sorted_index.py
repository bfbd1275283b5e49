"""A declared index kept in key order, as a server keeps its B-tree.

`SortedIndex(fields, sort)` is one way to read a compound index: its leading
`fields` fixed by equality, the documents of each tuple of their values (a
group: an author's posts, the posts holding a word, the people whose name
starts with "al") kept sorted by `sort`, the index's next keys. orders.py
walks a group from its first document, or from a range's bound, and stops
when the page is full, as a server walks an index scan.

Every write keeps it (indexes.State calls `add`, `remove` and `update`): a
document is filed in each group its values put it in (multikey: one per
element of an array field), by its sort values and its insertion number, so
documents with equal sort values come in insertion order, which is the
order mongomock's stable sort leaves them in. An update that changes neither
the group nor the sort values (a like's count) moves nothing.

Sort values are kept as mongomock compares them (`filtering.bson_compare`:
type rank first, then the value), for the plainly comparable BSON types: a
number (not NaN), a string, an ObjectId, a boolean, a naive datetime, null
or missing. A document with any other sort value (an array, a sub-document,
an aware datetime) is filed as unsortable: a read of its group is left to
mongomock's own sort.
"""

import bisect
import datetime
import itertools
import math

from bson import ObjectId
from mongomock import filtering

from embedded_mongo import indexes

# mongomock's type ranks (filtering._get_compare_type), for the types kept.
_NULL, _NUMBER, _STRING, _OBJECT_ID, _BOOL, _DATE = 5, 10, 15, 35, 40, 45


def sort_value(value):
    """(type rank, value), ordered as mongomock orders the value; None if
    the value is not one a sorted list can hold."""
    if value is None or value is filtering.NOTHING:
        return (_NULL, 0)
    kind = type(value)
    if kind is bool:
        return (_BOOL, int(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return None if isinstance(value, float) and math.isnan(value) else (_NUMBER, value)
    if isinstance(value, str):
        return (_STRING, value)
    if isinstance(value, ObjectId):
        return (_OBJECT_ID, value)
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        return (_DATE, value)
    return None


def field_sort_value(field: str, document):
    """What mongomock sorts `document` by for `field`, as `sort_value`; None
    when a path meets an array (mongomock sorts by its first element, and a
    range can match any of them: neither is an index's order)."""
    found = filtering.iter_key_candidates(field, document)
    if not isinstance(found, list):
        found = list(found)
    if not found:
        return (_NULL, 0)
    if len(found) > 1 or isinstance(found[0], (list, tuple)):
        return None
    return sort_value(found[0])


class SortedIndex:
    """The groups of one index prefix (`fields`), each sorted by `sort`."""

    def __init__(self, fields: tuple, sort: tuple) -> None:
        self.fields = fields
        self.sort = sort
        # Descending reads walk a list backwards: equal sort values must
        # still come in insertion order, so they are filed by -seq then.
        self.tie = 1 if sort[0][1] > 0 else -1
        self.groups: dict = {}  # values tuple -> sorted [(sort values, tie, key)]
        self.unsortable: dict = {}  # values tuple -> keys not in its list
        self.held: dict = {}  # key -> (its groups, its item)

    def build(self, documents: dict, seq: dict) -> None:
        for key, document in documents.items():
            groups, item = self._entries(key, seq[key], document)
            self._file(key, groups, item, insert=False)
        for items in self.groups.values():
            items.sort()

    def add(self, key, seq: int, document) -> None:
        groups, item = self._entries(key, seq, document)
        self._file(key, groups, item, insert=True)

    def update(self, key, seq: int, document) -> None:
        entries = self._entries(key, seq, document)
        if self.held.get(key) == entries:
            return
        self.remove(key)
        self._file(key, *entries, insert=True)

    def remove(self, key) -> None:
        held = self.held.pop(key, None)
        if held is None:
            return
        groups, item = held
        for group in groups:
            if item is None:
                keys = self.unsortable[group]
                keys.discard(key)
                if not keys:
                    del self.unsortable[group]
                continue
            items = self.groups[group]
            at = bisect.bisect_left(items, item)
            if at < len(items) and items[at][2] == key:
                del items[at]
            if not items:
                del self.groups[group]

    def _entries(self, key, seq: int, document) -> tuple:
        per_field = [indexes.hash_values(field, document) for field in self.fields]
        groups = frozenset(itertools.product(*per_field))
        values = []
        for field, _ in self.sort:
            value = field_sort_value(field, document)
            if value is None:
                return groups, None
            values.append(value)
        return groups, (tuple(values), self.tie * seq, key)

    def _file(self, key, groups: frozenset, item, insert: bool) -> None:
        self.held[key] = (groups, item)
        for group in groups:
            if item is None:
                self.unsortable.setdefault(group, set()).add(key)
            elif insert:
                bisect.insort(self.groups.setdefault(group, []), item)
            else:
                self.groups.setdefault(group, []).append(item)
