"""The demo database's quick write paths store and refuse what mongomock's own do.

`insert_many` of a unique-checked batch skips mongomock's per-document
steps (embedded_mongo/uniques.py), dates are put in their stored form by
exact type (embedded_mongo/dates.py), and a unique index is checked against
the documents holding every one of its key values: each is compared with
what mongomock answers for the same writes.
"""

import datetime
from collections import OrderedDict
from unittest import mock

import pytest
from bson import SON, Decimal128, ObjectId, Timestamp
from pymongo.errors import BulkWriteError, DuplicateKeyError

from embedded_mongo import dates, uniques
from socialsite import mongo

pytestmark = pytest.mark.mongomock_only(reason="checks the demo database's own write paths")

UTC = datetime.UTC
INDIA = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
MOMENT = datetime.datetime(2026, 3, 14, 15, 9, 26, 535897)


class LaterDatetime(datetime.datetime):
    pass


@pytest.fixture
def collections():
    db = mongo.database()
    made = [db["demo_db_writes_batch"], db["demo_db_writes_each"]]
    for collection in made:
        collection.drop()
    yield made
    for collection in made:
        collection.drop()


def _documents() -> list[dict]:
    return [
        {"_id": 1, "at": MOMENT.replace(tzinfo=UTC), "n": [1, (2, 3)], "s": SON([("a", MOMENT)])},
        {"_id": "two", "at": MOMENT.replace(tzinfo=INDIA), "d": {"e": [{"f": MOMENT}]}},
        {"at": MOMENT, "x": Decimal128("1.5"), "o": OrderedDict(b=LaterDatetime(2026, 1, 1))},
    ]


def test_a_batch_is_stored_as_each_document_alone_would_be(collections):
    batch, each = collections
    batch.insert_many(_documents())
    for document in _documents():
        each.insert_one(document)
    stored = [dict(d, _id=None) if isinstance(d["_id"], ObjectId) else d for d in batch.find()]
    alone = [dict(d, _id=None) if isinstance(d["_id"], ObjectId) else d for d in each.find()]
    assert stored == alone
    assert stored[0]["at"] == datetime.datetime(2026, 3, 14, 15, 9, 26, 535000, tzinfo=UTC)


@pytest.mark.parametrize("ordered", [True, False])
def test_a_duplicate_id_in_a_batch_is_reported_as_mongomock_reports_it(collections, ordered):
    batch, each = collections
    rows = [{"_id": 1}, {"_id": 1, "again": True}, {"_id": 2}]
    errors = []
    for collection in (batch, each):
        with pytest.raises(BulkWriteError) as raised:
            if collection is batch:
                collection.insert_many([dict(row) for row in rows], ordered=ordered)
            else:  # mongomock's own path: the batch is not unique-checked clean
                with mock.patch.object(uniques, "batch_is_unique", return_value=False):
                    collection.insert_many([dict(row) for row in rows], ordered=ordered)
        details = raised.value.details
        errors.append(
            (details["nInserted"], [(e["index"], e["code"]) for e in details["writeErrors"]])
        )
    assert errors[0] == errors[1] == ((1 if ordered else 2), [(1, 11000)])
    assert list(batch.find()) == list(each.find())


def test_a_bad_key_is_refused_in_a_batch(collections):
    batch, _ = collections
    with pytest.raises(ValueError):
        batch.insert_many([{"_id": 1}, {2: "not a string key"}])
    assert [d["_id"] for d in batch.find()] == [1]


def test_a_compound_unique_key_is_checked_against_its_holders_only(collections):
    votes, _ = collections
    votes.create_index([("post", 1), ("voter", 1)], unique=True)
    post = ObjectId()
    votes.insert_many([{"post": post, "voter": f"v{n}"} for n in range(300)])
    with mock.patch.object(uniques, "_value_at", wraps=uniques._value_at) as read:
        votes.insert_one({"post": post, "voter": "new"})
    # The new vote's own key values, then the one vote holding them both:
    # not the 300 votes of the post.
    assert read.call_count <= 6
    with pytest.raises(DuplicateKeyError):
        votes.insert_one({"post": post, "voter": "v7"})
    assert votes.count_documents({"post": post}) == 301


@pytest.mark.parametrize(
    "value",
    [
        1,
        True,
        None,
        "text",
        b"raw",
        ObjectId("65f2a9f0c0ffee0000000001"),
        Decimal128("2.5"),
        Timestamp(0, 0),
        Timestamp(5, 1),
        MOMENT,
        MOMENT.replace(tzinfo=UTC),
        MOMENT.replace(tzinfo=INDIA),
        LaterDatetime(2026, 1, 1, 0, 0, 0, 999999),
        (1, MOMENT),
        [MOMENT, {"a": [MOMENT.replace(tzinfo=INDIA)]}],
        OrderedDict(a=MOMENT),
        SON([("a", [MOMENT])]),
    ],
)
def test_the_stored_form_of_dates_is_mongomocks(value):
    quick, original = dates.stored_form(value), dates._ORIGINAL_STORED(value)
    if isinstance(value, Timestamp) and not value.time:
        assert type(quick) is Timestamp and quick.time > 0  # the server's clock, as mongomock
        return
    assert quick == original
    assert type(quick) is type(original)
    if isinstance(value, (dict, list)):
        assert quick is not value  # a copy: the caller's document is not stored
