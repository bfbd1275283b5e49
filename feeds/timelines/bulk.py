from pymongo.errors import BulkWriteError

DUPLICATE_KEY = 11000


def bulk_ignoring_duplicates(collection, ops, *, ordered: bool = False) -> None:
    """One bulk write; duplicate-key errors mean "already there" and are ignored.

    With `ordered=True` the server stops at the first error, so the rest of
    the batch is sent again from just after it.
    """
    while ops:
        try:
            collection.bulk_write(ops, ordered=ordered)
            return
        except BulkWriteError as exc:
            errors = exc.details.get("writeErrors", [])
            if any(e.get("code") != DUPLICATE_KEY for e in errors):
                raise
            if not ordered or not errors:
                return
            ops = ops[errors[0]["index"] + 1 :]
