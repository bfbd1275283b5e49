"""One-time keys: a write sent twice (Back and Post again, a double tap, a
client retrying with the same `Idempotency-Key`) makes its thing once
(docs/features.md#posting-twice).

The first request with a key claims it and is given a fresh ObjectId, the
`_id` of what it is about to insert; every later request with the same key
is given the same ObjectId. Inserting with it makes the second insert a
duplicate-key error on `_id`, which the caller answers as "done already",
so the rule holds on a sharded collection too (the `_id` is its shard key),
with no unique index across shards. A request that dies between the claim
and its insert leaves a claim whose retry inserts under the claimed id.

Claims live a day (TTL on `expire`); their `_id` is a keyed hash of the
scope, the person and the key, so they name no one (docs/accounts.md#erasure).
"""

import hashlib
import hmac
from datetime import timedelta

from bson import ObjectId
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from socialsite.clock import now
from socialsite.documents import OnceKey

LIFETIME = timedelta(days=1)
# A key is what a browser or client made up: bounded, printable.
MAX_KEY_LENGTH = 100


def usable(key: object) -> bool:
    return isinstance(key, str) and 8 <= len(key) <= MAX_KEY_LENGTH and key.isprintable()


def claim(*, scope: str, owner: str, key: str) -> ObjectId:
    """The id that the write under `key` inserts: fresh the first time, the
    same one for every repeat within LIFETIME. Two first requests racing:
    the loser's E11000 is read again as the winner's claim."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"{scope}|{owner}|{key}".encode(), hashlib.sha256
    ).hexdigest()
    collection = OnceKey._get_collection()
    for attempt in range(2):
        try:
            doc = collection.find_one_and_update(
                {"_id": digest[:32]},
                {"$setOnInsert": {"value": ObjectId(), "expire": now() + LIFETIME}},
                upsert=True,
                return_document=ReturnDocument.AFTER,
            )
        except DuplicateKeyError:
            if attempt:
                raise
            continue
        assert doc is not None  # an upsert that returns the document after
        return doc["value"]
    raise AssertionError("unreachable")
