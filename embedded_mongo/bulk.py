"""`bulk_write` for mongomock, which cannot build pymongo 4.9+'s operations."""

from pymongo import DeleteMany, DeleteOne, InsertOne, ReplaceOne, UpdateMany, UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError


class BulkResult:
    def __init__(self):
        self.acknowledged = True
        self.inserted_count = self.matched_count = self.modified_count = 0
        self.deleted_count = self.upserted_count = 0
        self.upserted_ids: dict = {}


def bulk_write(self, requests, ordered=True, **kwargs):
    """bulk_write for mongomock, which cannot build pymongo 4.9+'s operations.

    Applies each operation with the matching single-document call, under the
    server lock, and counts the whole batch as one round trip like a server.
    """
    result, errors = BulkResult(), []
    for index, op in enumerate(requests):
        try:
            if isinstance(op, InsertOne):
                self.insert_one(op._doc)
                result.inserted_count += 1
                continue
            if isinstance(op, (UpdateOne, UpdateMany, ReplaceOne)):
                call = {
                    UpdateOne: self.update_one,
                    UpdateMany: self.update_many,
                    ReplaceOne: self.replace_one,
                }[type(op)]
                extra = {}
                if getattr(op, "_array_filters", None):
                    extra["array_filters"] = op._array_filters
                res = call(op._filter, op._doc, upsert=op._upsert, **extra)
                result.matched_count += res.matched_count
                result.modified_count += res.modified_count
                if res.upserted_id is not None:
                    result.upserted_count += 1
                    result.upserted_ids[index] = res.upserted_id
                continue
            if isinstance(op, (DeleteOne, DeleteMany)):
                call = self.delete_one if isinstance(op, DeleteOne) else self.delete_many
                result.deleted_count += call(op._filter).deleted_count
                continue
            raise TypeError(f"unsupported bulk operation {op!r}")
        except DuplicateKeyError as exc:
            errors.append({"index": index, "code": 11000, "errmsg": str(exc), "op": op})
            if ordered:
                break
    if errors:
        raise BulkWriteError(
            {
                "writeErrors": errors,
                "nInserted": result.inserted_count,
                "nMatched": result.matched_count,
                "nModified": result.modified_count,
                "nRemoved": result.deleted_count,
                "nUpserted": result.upserted_count,
                "upserted": [],
                "writeConcernErrors": [],
            }
        )
    return result
