"""Sending one domain's deliveries (federation/delivery.py says how the
work is kept): claim each, POST it signed, and delete it, drop it, or put it
off by backoff."""

import json
import logging
from datetime import timedelta

from bson import ObjectId
from django.conf import settings
from pymongo import ReturnDocument
from pymongo.collection import Collection

from federation import fetch, keys, moderation
from federation.documents import Delivery
from socialsite.clock import now
from socialsite.durable import lease

log = logging.getLogger(__name__)


def _collection() -> Collection:
    return Delivery._get_collection()


def _claim(delivery_id: ObjectId) -> dict | None:
    """Take the delivery for this run: due now, pushed a lease ahead."""
    t = now()
    return _collection().find_one_and_update(
        {"_id": delivery_id, "state": "pending", "due": {"$lte": t}},
        {"$set": {"due": t + lease()}},
        return_document=ReturnDocument.AFTER,
    )


def _backoff(attempts: int) -> timedelta:
    seconds = settings.FEDERATION_RETRY_SECONDS * (2 ** max(attempts - 1, 0))
    return timedelta(seconds=min(seconds, settings.FEDERATION_RETRY_MAX_SECONDS))


def _failed(doc: dict, error: str) -> None:
    attempts = doc.get("attempts", 0) + 1
    update: dict = {"attempts": attempts, "error": error[:500]}
    if attempts >= settings.FEDERATION_DELIVERY_ATTEMPTS:
        update["state"] = "failed"
        log.warning("delivery failed for good", extra={"inbox": doc["inbox"], "error": error})
    else:
        update["due"] = now() + _backoff(attempts)
    _collection().update_one({"_id": doc["_id"]}, {"$set": update})


def send(delivery_ids: list[str]) -> dict[str, int]:
    """Send these deliveries (one domain's, usually); counts by outcome."""
    counts = {"sent": 0, "dropped": 0, "retry": 0, "skipped": 0}
    down: set[str] = set()
    for raw in delivery_ids:
        doc = _claim(ObjectId(raw))
        if doc is None:
            counts["skipped"] += 1  # done, or another runner has it
            continue
        if doc["domain"] in down:
            # Put off untried: no attempt spent on a server just seen failing.
            _collection().update_one(
                {"_id": doc["_id"]},
                {"$set": {"due": now() + _backoff(doc.get("attempts", 0) + 1)}},
            )
            counts["retry"] += 1
            continue
        if moderation.is_blocked(doc["domain"]):
            _collection().delete_one({"_id": doc["_id"]})
            counts["dropped"] += 1
            continue
        body = json.dumps(doc["activity"]).encode()
        try:
            status = fetch.post_json(doc["inbox"], body, sign=keys.signer(doc["signer"]))
        except fetch.AddressRefused as exc:
            # An inbox on an address we never reach (SSRF): no retry helps.
            log.warning("delivery refused here", extra={"inbox": doc["inbox"], "error": str(exc)})
            _collection().delete_one({"_id": doc["_id"]})
            counts["dropped"] += 1
            continue
        except fetch.FetchError as exc:
            down.add(doc["domain"])
            _failed(doc, str(exc))
            counts["retry"] += 1
            continue
        if 200 <= status < 300 or (400 <= status < 500 and status not in (408, 429)):
            if status >= 400:
                log.info("delivery refused", extra={"inbox": doc["inbox"], "status": status})
                counts["dropped"] += 1
            else:
                counts["sent"] += 1
            _collection().delete_one({"_id": doc["_id"]})
        else:
            down.add(doc["domain"])
            _failed(doc, f"HTTP {status}")
            counts["retry"] += 1
    return counts
