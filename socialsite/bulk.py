"""Bulk writes of upserts that may race other workers (docs/performance.md).

An upsert is a find and then an insert. When two workers upsert the same
missing document at once, both finds miss, one insert wins and the other
fails with E11000 (duplicate key) although its filter would now match: the
server's documented advice is to retry it, and the retry updates the
document the winner created. An upsert whose filter excludes a document that
already holds the entry (`entries.id: {$ne: id}`) also ends in E11000, and
then its retry collides again. So: every op that hits E11000 is retried
once; the ops that collide again are returned for the caller to judge (for a
single entry they mean "already there").
"""

from pymongo.collection import Collection
from pymongo.errors import BulkWriteError

DUPLICATE_KEY = 11000


def bulk_upsert(collection: Collection, ops: list, *, ordered: bool = False) -> list[int]:
    """Run `ops` in one bulk write, retrying each E11000 once.

    Returns the positions (in `ops`) of the ops that hit E11000 on their
    retry. Any other write error is raised. With `ordered=True` the server
    stops at the first error, so the rest of the batch is sent again after it.
    """
    pending = list(range(len(ops)))
    retried: set[int] = set()
    collided: list[int] = []
    while pending:
        try:
            collection.bulk_write([ops[i] for i in pending], ordered=ordered)
            break
        except BulkWriteError as exc:
            errors = exc.details.get("writeErrors", [])
            if not errors or any(e.get("code") != DUPLICATE_KEY for e in errors):
                raise
            again = []
            for error in sorted(errors, key=lambda e: e["index"]):
                position = pending[error["index"]]
                if position in retried:
                    collided.append(position)
                else:
                    retried.add(position)
                    again.append(position)
            if ordered:
                # Only one error: everything before it was applied, nothing after.
                stopped_at = errors[0]["index"]
                pending = again + pending[stopped_at + 1 :]
            else:
                pending = again
    return sorted(collided)
