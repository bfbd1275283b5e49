"""docs/developer-lens.md#counting-round-trips-in-code: the round-trip counter's details
(docs/developer-lens.md). Each trip
says what it asked (collection, operation, the filter's shape without its
values), how many documents came back and how long it took, counted alike
on the demo database and, through the command listener, on a real server."""

from datetime import timedelta

from bson import ObjectId
from pymongo import monitoring

from profiles.documents import FollowerEdge
from socialsite import roundtrips


def edges(n: int):
    collection = FollowerEdge._get_collection()
    collection.insert_many([{"_f": "star", "_t": f"fan{i:04d}"} for i in range(n)])
    return collection


def test_each_trip_names_its_collection_operation_and_filter_shape():
    collection = edges(3)
    with roundtrips.count() as counter:
        list(collection.find({"_f": "star", "_t": {"$in": ["fan0000", "fan0001"]}}))
        collection.find_one({"$or": [{"_f": "nobody"}, {"_t": "fan0002"}]})
    (find, find_one) = counter.details
    name = collection.name
    assert (find.collection, find.shape) == (name, '{"_f": "?", "_t": {"$in": "?"}}')
    assert find_one.collection == name
    assert find_one.shape == '{"$or": [{"_f": "?"}, {"_t": "?"}]}'
    assert find.name == "find" and find_one.name in ("find_one", "find")  # demo, wire
    assert "fan0000" not in repr(counter.details) and "star" not in repr(counter.details)


def test_documents_are_counted_per_batch_and_summed():
    collection = edges(250)
    with roundtrips.count() as counter:
        assert len(list(collection.find({"_f": "star"}))) == 250
        collection.find_one({"_f": "nobody"})
    assert counter.commands[:2] == ["find", "getMore"]
    assert [trip.docs for trip in counter.details] == [101, 149, 0]
    assert counter.docs == 250
    assert counter.details[1].collection == collection.name
    assert counter.details[0].bytes > 101 * len("fan0000")  # BSON of the first batch


def test_writes_count_the_documents_they_touched():
    collection = edges(5)
    with roundtrips.count() as counter:
        collection.update_many({"_f": "star"}, {"$set": {"seen": True}})
        collection.delete_one({"_t": "fan0000"})
    assert [trip.docs for trip in counter.details] == [5, 1]
    assert counter.details[0].shape == '{"_f": "?"}'


def test_an_aggregate_shows_its_match_and_stage_names():
    collection = edges(4)
    pipeline = [{"$match": {"_f": "star"}}, {"$sort": {"_t": 1}}, {"$limit": 2}]
    with roundtrips.count() as counter:
        assert len(list(collection.aggregate(pipeline))) == 2
    (trip,) = counter.details
    assert (trip.name, trip.docs) == ("aggregate", 2)
    assert trip.shape == '[{"$match": {"_f": "?"}}, "$sort", "$limit"]'


def test_time_waiting_on_the_database_is_summed():
    collection = edges(50)
    with roundtrips.count() as counter:
        list(collection.find({"_f": "star"}))
        collection.count_documents({"_f": "star"})
    assert counter.ms > 0
    assert counter.ms == sum(trip.ms for trip in counter.details)


def test_nested_counters_share_the_trips():
    collection = edges(2)
    with roundtrips.count() as outer, roundtrips.count() as inner:
        list(collection.find({"_f": "star"}))
    assert (outer.total, outer.docs) == (inner.total, inner.docs) == (1, 2)


def _started(name, command, request_id):
    return monitoring.CommandStartedEvent(
        command, "socialsite", request_id=request_id, connection_id=("db", 27017), operation_id=1
    )


def _succeeded(name, reply, request_id, micros):
    return monitoring.CommandSucceededEvent(
        timedelta(microseconds=micros), reply, name, request_id, ("db", 27017), operation_id=1
    )


def test_the_listener_pairs_replies_with_their_commands():
    """On a real server: docs from the cursor's batch or a write's `n`, time from the driver."""
    listener = roundtrips.listener
    batch = [{"_id": ObjectId(), "owner": "alice"} for _ in range(3)]
    with roundtrips.count() as counter:
        listener.started(_started("find", {"find": "post", "filter": {"owner": "alice"}}, 7))
        listener.started(_started("getMore", {"getMore": 12, "collection": "post"}, 8))
        listener.succeeded(_succeeded("getMore", {"cursor": {"nextBatch": batch[:1]}}, 8, 500))
        listener.succeeded(_succeeded("find", {"cursor": {"firstBatch": batch}}, 7, 1500))
        command = {"update": "user", "updates": [{"q": {"handle": "bob"}, "u": {}}]}
        listener.started(_started("update", command, 9))
        listener.succeeded(_succeeded("update", {"n": 1, "ok": 1}, 9, 250))
        listener.started(_started("hello", {"hello": 1}, 10))
    assert counter.commands == ["find", "getMore", "update"]
    find, more, update = counter.details
    assert (find.collection, find.shape, find.docs, find.ms) == ("post", '{"owner": "?"}', 3, 1.5)
    assert (more.collection, more.docs, more.ms) == ("post", 1, 0.5)
    assert (update.collection, update.shape, update.docs) == ("user", '{"handle": "?"}', 1)
    assert (counter.docs, counter.ms) == (5, 2.25)
    assert find.bytes > 0


def test_a_long_count_keeps_the_numbers_but_lets_old_filters_go(monkeypatch):
    monkeypatch.setattr(roundtrips, "_KEEP_DETAILS", 3)
    with roundtrips.count() as counter:
        for _ in range(6):
            roundtrips.record("find", "post", {"owner": "alice"}).docs = 2
    shapes = [command.shape for command in counter.details]
    assert shapes == ["", "", "", '{"owner": "?"}', '{"owner": "?"}', '{"owner": "?"}']
    assert (counter.total, counter.docs) == (6, 12)
