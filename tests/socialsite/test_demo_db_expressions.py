"""The embedded database's own expression evaluator (embedded_mongo/expressions.py)
answers exactly what mongomock's parser answers: values, missing values
and errors, for the operators it takes and the ones it hands back."""

from datetime import UTC, datetime

from bson import ObjectId
from mongomock import aggregate

from embedded_mongo.expressions import Evaluator

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
A, B = ObjectId(), ObjectId()

DOC = {
    "_id": 1,
    "page": [
        {"id": A, "by": "ann", "ts": T0, "circles": ["*public*"]},
        {"id": B, "by": "bob", "ts": T0, "of": A, "post": {"text": "hi"}},
        {"id": 3, "by": "cyd", "circles": ["friends"], "of": None},
    ],
    "nested": {"list": [{"x": 1}, {"x": 2}], "none": None},
    "n": 0,
    "text": "plain",
}
E = "$$e"
NOT_PUBLIC = {"$eq": [{"$in": ["*public*", {"$ifNull": [f"{E}.circles", []]}]}, False]}

EXPRESSIONS = [
    "$page.id",  # through an array: mongomock's own walk
    "$nested.list.x",
    "$nested.none",
    "$nested.missing",
    "$text.deeper",
    "$",
    "plain",
    5,
    [1, "$n"],
    {"$literal": {"$eq": [1, 1]}},
    {"a": "$n", "b": "$missing"},
    {"$map": {"input": "$page", "as": "e", "in": {"$ifNull": [f"{E}.of", f"{E}.id"]}}},
    {"$map": {"input": "$page", "as": "e", "in": f"{E}.of"}},
    {"$map": {"input": "$missing", "as": "e", "in": f"{E}.id"}},
    {"$map": {"input": "$page", "in": "$$this.by"}},
    {"$map": {"input": "$n", "as": "e", "in": f"{E}.id"}},
    {"$map": {"input": "$page", "as": "e"}},
    {"$map": {"input": "$page", "as": "e", "in": f"{E}.by", "extra": 1}},
    {"$filter": {"input": "$page", "as": "e", "cond": NOT_PUBLIC}},
    {"$filter": {"input": "$page", "as": "e", "cond": {"$eq": [f"{E}.post", None]}}},
    {"$filter": {"input": "$page", "as": "e", "cond": {"$lt": [f"{E}.ts", T0]}}},
    {"$filter": {"input": "$page", "as": "e", "cond": f"{E}.circles"}},
    {"$filter": {"input": "$nested.none", "as": "e", "cond": True}},
    {"$and": [True, "$n"]},
    {"$and": ["$text", "$missing"]},
    {"$or": [False, "$nested.list"]},
    {"$not": ["$n"]},
    {"$not": "$n"},
    {"$eq": ["$n", False]},
    {"$eq": ["$n"]},
    {"$ne": ["$text", "plain"]},
    {"$gte": ["$n", None]},
    {"$lte": ["$missing", 1]},
    {"$in": ["ann", "$page.by"]},
    {"$in": ["ann", "$missing"]},
    {"$ifNull": ["$missing", "$nested.none", "x"]},
    {"$ifNull": ["$nested.none", "$missing"]},
    {"$concatArrays": ["$page.by", [1], "$nested.list"]},
    {"$concatArrays": ["$page.by", "$missing"]},
    {"$concatArrays": ["$page.by", "$text"]},
    {"$size": "$page"},
    {"$size": ["$page"]},
    {"$size": "$text"},
    {"$slice": ["$page.by", 2]},
    {"$slice": ["$page.by", 1, 1]},
    {"$slice": ["$page.by", -1]},
    {"$slice": ["$text", 1]},
    {"$slice": ["$page.by", True]},
    {"$toLower": "$text"},
    {"$cond": [{"$eq": ["$n", 0]}, "zero", "other"]},
    {"$eq": [1, 1], "$ne": [1, 2]},
    {"$unknownOperator": 1},
]


def _outcome(parse, expression, ignore: bool):
    try:
        return ("value", parse(expression, ignore))
    except Exception as error:  # the error is what is compared
        return ("error", type(error))


def test_every_expression_answers_as_mongomock_answers_it():
    for ignore in (False, True):
        for expression in EXPRESSIONS:
            ours = _outcome(lambda e, i: Evaluator(DOC, None, i).parse(e), expression, ignore)
            theirs = _outcome(
                lambda e, i: aggregate._Parser(DOC, ignore_missing_keys=i).parse(e),
                expression,
                ignore,
            )
            assert ours == theirs, (expression, ignore)


def test_variables_shadow_the_document_and_unknown_ones_are_missing():
    evaluator = Evaluator(DOC, {"ROOT": {"n": 7}, "e": {"id": 1}}, False)
    assert evaluator.parse("$$ROOT.n") == 7
    assert evaluator.parse("$$CURRENT.n") == 0
    assert evaluator.parse("$$e") == {"id": 1}
    assert evaluator.to_bool("$$nobody") is False
