"""A filter prepared once (embedded_mongo/matcher.py) decides every document
as mongomock's `filter_applies` does: the same answers and the same errors,
over values of every kind a field may hold (missing, null, scalars of each
type, arrays, sub-documents) and the filter forms it prepares or hands back."""

import itertools
import random
from datetime import datetime

from bson import ObjectId
from mongomock import filtering

from embedded_mongo.matcher import matcher

OID = ObjectId("6b0a7db4ac45b7f576976fbd")
WHEN = datetime(2026, 11, 1, 12, 0)
VALUES = [None, True, False, 0, 1, 1.0, 2, "ann", "", OID, str(OID), WHEN, [], ["ann", 1], [None]]
VALUES += [{"id": "ann"}, {"id": None}, [{"id": "ann"}, {"id": 2}]]


def _documents() -> list[dict]:
    documents = [{}]
    for value in VALUES:
        documents += [{"a": value}, {"by": {"id": value}}, {"by": value, "a": value}]
    return documents


def _searches() -> list:
    scalar = [None, True, 1, "ann", OID, WHEN, 1.0]
    searches: list = list(scalar)
    for operand in scalar:
        searches += [{op: operand} for op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")]
    searches += [
        {"$in": ["ann", 1]},
        {"$in": [None, OID]},
        {"$nin": ["ann"]},
        {"$in": "ann"},  # mongomock's error
        {"$exists": True},
        {"$exists": False},
        {"$ne": True, "$exists": True},
        {"$gt": 0, "$lt": 2},
        ["ann", 1],  # an array: handed back
        {"id": "ann"},  # a sub-document: handed back
        {"$size": 2},  # an operator it does not prepare
        {"$elemMatch": {"id": "ann"}},
    ]
    return searches


def _outcome(decide, spec, document):
    try:
        return ("value", bool(decide(spec, document)))
    except Exception as error:  # the error is what is compared
        return ("error", type(error))


def _agrees(spec, documents) -> None:
    prepared = matcher(spec)
    for document in documents:
        ours = _outcome(lambda _, doc: prepared(doc), spec, document)
        theirs = _outcome(filtering.filter_applies, spec, document)
        assert ours == theirs, (spec, document)


def test_field_clauses_decide_as_mongomock():
    documents = _documents()
    for key, search in itertools.product(("a", "by.id", "by"), _searches()):
        _agrees({key: search}, documents)


def test_logical_and_combined_filters_decide_as_mongomock():
    documents = _documents()
    pick = random.Random(35)
    searches = _searches()
    for _ in range(300):
        clauses = [{pick.choice(("a", "by.id")): pick.choice(searches)} for _ in range(3)]
        form = pick.choice(("$and", "$or", "$nor", "plain", "mixed"))
        if form == "plain":
            spec = {**clauses[0], **clauses[1]}
        elif form == "mixed":
            spec = {**clauses[0], "$or": clauses[1:]}
        else:
            spec = {form: clauses}
        _agrees(spec, documents)
    for odd in ({"$and": []}, {"$or": {"a": 1}}, {"$expr": {"$eq": ["$a", 1]}}, {"$where": "x"}):
        _agrees(odd, documents)
