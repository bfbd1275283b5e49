"""The embedded database's reads hold while other threads write.

A `find` only builds a cursor; its results used to be computed when the code
first read them, outside the server lock, so a concurrent `$set` that added a
field to a stored document failed the read with "dictionary changed size
during iteration" (seen once in 2,666 concurrent follow and unfollow requests
of the demo). embedded_mongo/concurrency.py computes them under the lock.
"""

import sys
import threading

import mongomock
import pytest

import embedded_mongo

pytestmark = pytest.mark.mongomock_only(reason="checks the embedded database's own locking")

THREADS = 8
ROUNDS = 40
DOCUMENTS = 20
# Wide documents: a read copying one walks its fields long enough to be caught.
WIDTH = 100


@pytest.fixture
def eager_switching():
    """Threads switch every microsecond instead of every 5 ms, so the race
    shows within a few hundred calls rather than a few thousand."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_reads_hold_while_other_threads_write_the_same_collection(eager_switching):
    embedded_mongo.install()
    # A client of its own: the suite's database is left alone.
    things = mongomock.MongoClient().threads.things
    things.create_index([("group", 1)], name="group")
    wide = {f"w{k}": k for k in range(WIDTH)}
    things.insert_many([{"_id": n, "group": n % 5, **wide} for n in range(DOCUMENTS)])
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    seen: list[int] = []

    def write(n: int) -> None:
        barrier.wait()
        for j in range(ROUNDS):
            # Each `$set` adds a field: the stored dict grows under a reader.
            things.update_one({"_id": j % DOCUMENTS}, {"$set": {f"f{n}_{j}": j}})
            things.insert_one({"group": j % 5, "writer": n})
            things.delete_one({"writer": n})

    def read(n: int) -> None:
        barrier.wait()
        for j in range(ROUNDS):
            seen.append(len(list(things.find({"group": j % 5}))))
            seen.append(len(list(things.find({}))))

    def run(target, n: int) -> None:
        try:
            target(n)
        except BaseException as exc:  # reported below, with the others
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(write if n % 2 else read, n)) for n in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(seen) == (THREADS // 2) * ROUNDS * 2
    # Every read saw the 50 documents, plus at most one in-flight insert per writer.
    assert all(DOCUMENTS // 5 <= count <= DOCUMENTS + THREADS // 2 for count in seen)
    assert things.count_documents({}) == DOCUMENTS
    assert all(len(d) == 2 + WIDTH + THREADS // 2 * ROUNDS // DOCUMENTS for d in things.find())


class Watched(dict):
    """A projection that notes every change made to it."""

    changes: list[str]

    def pop(self, *args):
        self.changes.append(f"pop {args[0]}")
        return super().pop(*args)

    def __setitem__(self, key, value):
        self.changes.append(f"set {key}")
        super().__setitem__(key, value)


def test_a_read_never_changes_the_projection_it_is_given():
    """Pages pass module-level projections (feeds' CARD_FIELDS) that other
    page threads read at the same moment: mongomock takes `_id` out of the
    dict for each document and puts it back, so a thread iterating the same
    dict then failed ("dictionary changed size during iteration", a 500
    seen once beside 1,000 live streams). Each read copies it first."""
    embedded_mongo.install()
    things = mongomock.MongoClient().threads.projected
    things.insert_many([{"_id": n, "a": n, "b": n} for n in range(3)])
    fields = Watched({"_id": 0, "b": 0})
    fields.changes = []
    assert list(things.find({}, fields)) == [{"a": n} for n in range(3)]
    assert things.find_one({"a": 1}, fields) == {"a": 1}
    assert fields.changes == [] and fields == {"_id": 0, "b": 0}
