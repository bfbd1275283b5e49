"""A store's `fill` (the demo's seeding, timelines/demo.py) writes exactly the
documents that delivering the same entries one by one, in time order, leaves:
past the cache's cap, across months and a month's parts, across closed size
buckets, with entries of the same millisecond and a repost among them, and
for a timeline given no entries (the cache's empty document)."""

from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId

from feeds.documents import PUBLIC
from socialsite.cursors import sort_key
from timelines.stores import get_store

MODELS = ["cache", "month", "size"]
# Late in a month, so the entries span two of them.
START = datetime(2026, 1, 30, 22, 0, tzinfo=UTC)


def entries_of(author: str, count: int) -> list[dict]:
    found = []
    for i in range(count):
        # Pairs of entries share a millisecond: order then falls to the id.
        entry = {
            "id": ObjectId(),
            "ts": START + timedelta(hours=7 * (i // 2)),
            "by": author,
            "circles": [PUBLIC],
        }
        if i == 3:
            entry["of"] = ObjectId()  # a repost's entry (timelines/selectors/entries.py)
        found.append(entry)
    return found


def stored(store) -> list[dict]:
    docs = [{k: v for k, v in doc.items() if k != "_id"} for doc in store.collection().find()]
    return sorted(docs, key=repr)


@pytest.mark.parametrize("name", MODELS)
def test_fill_writes_what_delivering_one_by_one_writes(settings, name, round_trips):
    settings.FEED_CACHE_SIZE, settings.FEED_MONTH_CAP, settings.FEED_BUCKET_SIZE = 5, 3, 3
    store = get_store(name)
    timelines = {
        ("news", "ada"): entries_of("bob", 14),
        ("wall", "ada"): entries_of("ada", 2),
        ("news", "bob"): entries_of("ada", 1),
        ("wall", "bob"): [],
    }
    owners = sorted({owner for _, owner in timelines})

    store.ensure_owner(owners)  # as sign-up makes them
    for (kind, owner), entries in timelines.items():
        for entry in sorted(entries, key=sort_key):
            store.deliver(kind, [owner], entry)
    delivered = stored(store)
    store.collection().delete_many({})

    store.ensure_owner(["ada"])  # a sign-up's empty documents are no obstacle
    with round_trips() as trips:
        store.fill({key: entries[::-1] for key, entries in timelines.items()})  # any order
    filled = stored(store)

    assert filled == delivered
    # The caps were reached: a full cache, rolled-over month parts, closed buckets.
    if name == "cache":
        assert max(len(doc["entries"]) for doc in filled) == 5
    elif name == "month":
        assert {doc["part"] for doc in filled} == {0, 1, 2}
        assert len({doc["month"] for doc in filled}) == 2
    else:
        assert sum(doc["slot"] != "open" for doc in filled) == 4
    # A batch: the cache's deletes of empty documents (one per kind), one insert.
    assert trips.total == (3 if name == "cache" else 1)
