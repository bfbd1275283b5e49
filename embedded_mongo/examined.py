"""How many stored documents the embedded database's filters ran on.

A server reports this per query as `totalDocsExamined` (`explain`, the slow
query log): the documents it fetched to test the filter on, which an index
keeps near what the query returns and a collection scan makes the whole
collection. This is the same count for the embedded database, kept since
the process started and per collection: every document a read, an update,
a delete or a `$match`-first aggregate tested its filter on, whether it came
from an index (indexes.py, planner.py, orders.py) or from a scan. Tests and
benchmarks take the difference around what they measure
(docs/embedded-database.md#documents-examined).
"""

from collections import Counter


class Examined:
    """Documents examined so far: `total`, and `by_collection`."""

    def __init__(self) -> None:
        self.total = 0
        self.by_collection: Counter = Counter()

    def add(self, collection: str, documents: int) -> None:
        self.total += documents
        self.by_collection[collection] += documents


EXAMINED = Examined()


def total() -> int:
    return EXAMINED.total


def counted(collection: str, documents):
    """Yield `documents`, counting each one as it is taken (a cursor that
    stops at its limit examined only what it read)."""
    by_collection = EXAMINED.by_collection
    for document in documents:
        EXAMINED.total += 1
        by_collection[collection] += 1
        yield document
