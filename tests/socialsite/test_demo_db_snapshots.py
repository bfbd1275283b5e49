"""The embedded database's update snapshots (embedded_mongo/snapshots.py):
an update copies only the containers it writes into, yet reports what it
changed and rolls back a failed unique check exactly as a full copy would."""

import copy

import pytest
from pymongo.errors import DuplicateKeyError

from socialsite import mongo


def _timeline(owner: str, ids: range) -> dict:
    entries = [{"id": n, "post": {"likes": 0, "tags": ["a", "b"], "by": {"id": "x"}}} for n in ids]
    return {"owner": owner, "k": owner, "entries": entries}


@pytest.fixture
def coll():
    collection = mongo.database()["demo_db_snapshot_checks"]
    collection.drop()
    collection.create_index([("k", 1)], unique=True)
    collection.create_index([("entries.id", 1)])
    collection.insert_many([_timeline("a", range(0, 6)), _timeline("b", range(3, 9))])
    yield collection
    collection.drop()


def _positional(post_id: int) -> dict:
    return {"entries": {"$elemMatch": {"id": post_id, "post": {"$exists": True}}}}


def test_a_positional_set_changes_only_the_matched_entry_of_each_document(coll):
    before = {d["owner"]: d for d in coll.find()}
    result = coll.update_many(_positional(4), {"$set": {"entries.$.post.likes": 3}})
    assert (result.matched_count, result.modified_count) == (2, 2)
    for owner, document in ((d["owner"], d) for d in coll.find()):
        expected = copy.deepcopy(before[owner])
        for entry in expected["entries"]:
            if entry["id"] == 4:
                entry["post"]["likes"] = 3
        assert document == expected
    # The same values again change nothing, and say so.
    again = coll.update_many(_positional(4), {"$set": {"entries.$.post.likes": 3}})
    assert (again.matched_count, again.modified_count) == (2, 0)


@pytest.mark.parametrize(
    "changes",
    [
        {"entries.$.post.likes": 9, "entries.$.post.by": {"id": "y"}},  # positional
        {"entries.1.post.likes": 9, "entries.1.post.tags": ["c"]},  # by position
    ],
)
def test_a_unique_violation_leaves_the_whole_document_as_it_was(coll, changes):
    before = coll.find_one({"owner": "b"})
    with pytest.raises(DuplicateKeyError):
        coll.update_one({"owner": "b", **_positional(4)}, {"$set": {**changes, "k": "a"}})
    assert coll.find_one({"owner": "b"}) == before
    assert coll.count_documents({"entries": {"$elemMatch": {"post.likes": 9}}}) == 0


def test_an_increment_inside_an_entry_and_an_unset_are_kept_apart_from_the_old_copy(coll):
    coll.update_one({"owner": "a", **_positional(2)}, {"$inc": {"entries.$.post.likes": 2}})
    coll.update_one({"owner": "a", **_positional(2)}, {"$inc": {"entries.$.post.likes": 2}})
    coll.update_one({"owner": "a"}, {"$unset": {"entries.0.post.by": ""}})
    entries = coll.find_one({"owner": "a"})["entries"]
    assert [e["post"]["likes"] for e in entries] == [0, 0, 4, 0, 0, 0]
    assert "by" not in entries[0]["post"] and all("by" in e["post"] for e in entries[1:])
