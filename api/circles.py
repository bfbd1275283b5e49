"""The ids of circles as lists (docs/api.md#lists): read, assigned on first
sight, moved on a rename, dropped with their circle.

The circles themselves (their names and members) are the profiles app's:
the list views call its services, as the circles page does; this module
only keeps the one thing Mastodon needs that circles lack, a stable id.
"""

from bson import ObjectId
from pymongo.errors import BulkWriteError

from api.documents import CircleListId
from profiles.documents import User
from socialsite.ids import parse_object_id


def list_ids(owner: User) -> dict[str, str]:
    """Each of the owner's circles (by name) with its list id, in the
    owner's order: one read on `(owner, circle)`, plus one insert the first
    time a circle is seen and one delete for ids of circles gone since."""
    collection = CircleListId._get_collection()
    rows = list(collection.find({"owner": owner.handle}, {"circle": 1}))
    ids = {row["circle"]: str(row["_id"]) for row in rows}
    gone = [name for name in ids if name not in owner.circles]
    if gone:
        # A circle deleted on its page: its id goes, with the full shard key.
        collection.delete_many({"owner": owner.handle, "circle": {"$in": gone}})
    missing = [name for name in owner.circles if name not in ids]
    if missing:
        try:
            collection.insert_many(
                [{"_id": ObjectId(), "owner": owner.handle, "circle": name} for name in missing],
                ordered=False,
            )
        except BulkWriteError as exc:
            # A racing first read assigned some of them (E11000 on
            # `owner_circle`): its ids are the ones, read back below.
            if any(error.get("code") != 11000 for error in exc.details.get("writeErrors", [])):
                raise
        rows = list(
            collection.find({"owner": owner.handle, "circle": {"$in": missing}}, {"circle": 1})
        )
        ids.update({row["circle"]: str(row["_id"]) for row in rows})
    return {name: ids[name] for name in owner.circles if name in ids}


def circle_of(owner: User, list_id: object) -> str | None:
    """The name of the owner's circle with this list id, or None (someone
    else's list, a deleted circle, a malformed id): one indexed read."""
    oid = parse_object_id(list_id)
    if oid is None:
        return None
    row = CircleListId._get_collection().find_one(
        {"owner": owner.handle, "_id": oid}, {"circle": 1}
    )
    if row is None or row["circle"] not in owner.circles:
        return None
    return row["circle"]


def list_id_renamed(*, owner: str, old: str, new: str) -> None:
    """A circle renamed (on its page or through the API): its id follows it."""
    CircleListId._get_collection().update_one(
        {"owner": owner, "circle": old}, {"$set": {"circle": new}}
    )


def list_id_forget(*, owner: str, circle: str) -> None:
    CircleListId._get_collection().delete_one({"owner": owner, "circle": circle})


def list_ids_erase(handle: str, limit: int) -> int:
    """Erasure: the person's list ids."""
    collection = CircleListId._get_collection()
    ids = [row["_id"] for row in collection.find({"owner": handle}, {"_id": 1}).limit(limit)]
    if ids:
        collection.delete_many({"owner": handle, "_id": {"$in": ids}})
    return len(ids)
