"""Federation's part of an account's erasure (profiles/services/erasure_walk.py
runs each app's erasers, `limit` documents a call, until they answer 0)."""

from pymongo.collection import Collection

from federation.documents import ActorKey, ApObject, Delivery, RemoteFollow


def _delete_some(collection: Collection, query: dict, limit: int) -> int:
    ids = [row["_id"] for row in collection.find(query, {"_id": 1}).limit(limit)]
    return collection.delete_many({"_id": {"$in": ids}}).deleted_count if ids else 0


def keys_erase(handle: str, limit: int) -> int:
    return ActorKey._get_collection().delete_one({"_id": handle}).deleted_count


def objects_erase(handle: str, limit: int) -> int:
    return _delete_some(ApObject._get_collection(), {"by": handle}, limit)


def follows_erase(handle: str, limit: int) -> int:
    query = {"$or": [{"follower": handle}, {"followee": handle}]}
    return _delete_some(RemoteFollow._get_collection(), query, limit)


def deliveries_erase(handle: str, limit: int) -> int:
    """Their activities not sent yet stay unsent: the Delete of their actor
    (sent when the erasure began) tells the other servers what they need."""
    return _delete_some(Delivery._get_collection(), {"signer": handle}, limit)
