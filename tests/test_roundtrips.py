"""Round trips are counted as a server makes them (docs/performance.md): a cursor's
results come in batches, the first with the `find` or `aggregate`, each
further one a `getMore`. On a real server the pymongo command listener sees
them; on the embedded demo database the counting wrapper does the same."""

from datetime import timedelta

import pytest
from pymongo import monitoring

from profiles.documents import FollowerEdge
from socialsite import roundtrips
from socialsite.clock import now
from socialsite.documents import SessionRecord


def edges(n: int):
    """`n` follower edges of one account; returns their collection."""
    collection = FollowerEdge._get_collection()
    collection.insert_many([{"_f": "star", "_t": f"fan{i:04d}"} for i in range(n)])
    return collection


def trips(read) -> list[str]:
    with roundtrips.count() as counter:
        read()
    return counter.commands


def test_a_small_result_is_one_round_trip():
    collection = edges(100)
    assert trips(lambda: list(collection.find({"_f": "star"}))) == ["find"]


def test_past_101_documents_a_find_needs_a_get_more():
    collection = edges(250)
    # No batch size: 101 documents, then the rest in one 16 MiB batch.
    assert trips(lambda: list(collection.find({"_f": "star"}))) == ["find", "getMore"]


def test_the_driver_asks_for_the_next_batch_only_when_it_is_read():
    collection = edges(250)
    with roundtrips.count() as first:
        cursor = collection.find({"_f": "star"})
        head = [next(cursor) for _ in range(101)]
    rest = trips(lambda: head.extend(cursor))
    assert (first.commands, rest, len(head)) == (["find"], ["getMore"], 250)


def test_a_batch_size_sets_every_batch():
    collection = edges(250)
    read = lambda: list(collection.find({"_f": "star"}).batch_size(100))  # noqa: E731
    assert trips(read) == ["find", "getMore", "getMore"]  # 100, 100, 50
    read = lambda: list(collection.find({"_f": "star"}, batch_size=300))  # noqa: E731
    assert trips(read) == ["find"]


def test_a_limit_shortens_the_results():
    collection = edges(250)
    assert trips(lambda: list(collection.find({"_f": "star"}).limit(101))) == ["find"]
    read = lambda: list(collection.find({"_f": "star"}).limit(150))  # noqa: E731
    assert trips(read) == ["find", "getMore"]


def test_an_aggregation_is_batched_the_same_way():
    collection = edges(250)
    pipeline = [{"$match": {"_f": "star"}}, {"$project": {"_id": 0, "_t": 1}}]
    assert trips(lambda: list(collection.aggregate(pipeline))) == ["aggregate", "getMore"]
    read = lambda: list(collection.aggregate(pipeline, batchSize=100))  # noqa: E731
    assert trips(read) == ["aggregate", "getMore", "getMore"]


def test_a_mongoengine_queryset_batch_size_counts_too():
    edges(250)
    read = lambda: list(FollowerEdge.objects(followee="star").batch_size(100))  # noqa: E731
    assert trips(read) == ["find", "getMore", "getMore"]


@pytest.mark.mongoeco_gap(reason="mongoeco's wire server has no 16 MiB cap per batch")
def test_a_batch_holds_at_most_16_mib():
    """40 documents of 1 MB: 16 per batch, however many a batch may count."""
    collection = SessionRecord._get_collection()
    expire = now() + timedelta(days=1)
    collection.insert_many(
        [{"_id": f"big{i:02d}", "data": "x" * 1_000_000, "expire": expire} for i in range(40)]
    )
    read = lambda: sum(1 for _ in collection.find({}, {"data": 1}))  # noqa: E731
    with roundtrips.count() as counter:
        assert read() == 40
    assert counter.commands == ["find", "getMore", "getMore"]  # 16, 16, 8


def test_the_listener_counts_get_more_and_skips_housekeeping():
    """On a real server the driver reports each command to the listener."""

    def event(name: str) -> monitoring.CommandStartedEvent:
        return monitoring.CommandStartedEvent(
            {name: 1}, "socialsite", request_id=1, connection_id=("db", 27017), operation_id=1
        )

    with roundtrips.count() as counter:
        for name in ("find", "getMore", "getMore", "hello", "ping", "endSessions"):
            roundtrips.listener.started(event(name))
    assert counter.commands == ["find", "getMore", "getMore"]
