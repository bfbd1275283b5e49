"""Activities to other servers' inboxes, as durable background work
(docs/federation.md#delivery, docs/operations.md#durable-background-work).

Each (activity, inbox) is one `ap_delivery` document, written before its
send is queued: it is the work's mark. A send claims the document (moving
its `due` a lease ahead, so a second runner skips it), POSTs the signed
activity, and deletes the document when the server took it (2xx). A server
that refuses it for good (4xx other than 408 and 429) drops it, logged. A
failure (down, slow, 5xx) counts an attempt and sets `due` by backoff; past
FEDERATION_DELIVERY_ATTEMPTS the document is `failed`, listed on
/mod/domains/ and never tried again on its own. The sweeper queues every
pending delivery whose time has come, so a process killed mid-way loses
nothing: the documents it had not deleted are sent again (a server takes an
activity it has seen twice as a no-op: ids are stable).

One task per domain, and a domain whose server fails once in a run has its
other deliveries of that run put off without a try: one unreachable server
costs at most one timeout per run, and never holds up another's.
"""

import logging
from collections import defaultdict
from collections.abc import Iterable
from urllib.parse import urlsplit

from bson import ObjectId
from django.conf import settings
from pymongo.collection import Collection

from federation import moderation, tasks, uris
from federation.documents import Delivery
from socialsite.clock import now

log = logging.getLogger(__name__)

#: Deliveries one sweep queues; the rest wait for the next.
SWEEP_BATCH = 500


def _collection() -> Collection:
    return Delivery._get_collection()


def deliver(*, activity: dict, signer: str, inboxes: Iterable[str]) -> list[ObjectId]:
    """Queue `activity`, signed by our person `signer`, to each inbox once."""
    if not settings.FEDERATION_ENABLED:
        return []
    ours = uris.domain()
    seen: set[str] = set()
    docs: list[dict] = []
    t = now()
    for inbox in inboxes:
        domain = urlsplit(inbox).netloc.lower() if isinstance(inbox, str) else ""
        if not domain or inbox in seen or domain == ours or moderation.is_blocked(domain):
            continue
        seen.add(inbox)
        docs.append(
            {
                "_id": ObjectId(),
                "activity": activity,
                "inbox": inbox,
                "domain": domain,
                "signer": signer,
                "state": "pending",
                "attempts": 0,
                "due": t,
                "created": t,
                "error": "",
            }
        )
    if not docs:
        return []
    _collection().insert_many(docs, ordered=False)
    _queue(docs)
    return [doc["_id"] for doc in docs]


def _queue(docs: list[dict]) -> None:
    by_domain: dict[str, list[str]] = defaultdict(list)
    for doc in docs:
        by_domain[doc["domain"]].append(str(doc["_id"]))
    for ids in by_domain.values():
        tasks.send_deliveries.enqueue(ids)


def deliveries_sweep() -> str:
    """Queue every pending delivery whose time has come (a crash's leftovers,
    and the retries' next tries)."""
    docs = list(
        _collection()
        .find({"state": "pending", "due": {"$lte": now()}}, {"domain": 1})
        .sort("due", 1)
        .limit(SWEEP_BATCH)
    )
    if docs:
        _queue(docs)
    return f"{len(docs)} delivery(ies) queued."


def backlog() -> dict:
    """What /healthz and /mod/domains/ show: pending and failed, by domain."""
    rows = _collection().aggregate(
        [{"$group": {"_id": {"domain": "$domain", "state": "$state"}, "n": {"$sum": 1}}}]
    )
    out: dict[str, dict[str, int]] = defaultdict(lambda: {"pending": 0, "failed": 0})
    for row in rows:
        out[row["_id"]["domain"]][row["_id"]["state"]] = row["n"]
    return dict(sorted(out.items()))


def failed(limit: int = 50) -> list[dict]:
    rows = _collection().find(
        {"state": "failed"},
        {"activity.type": 1, "inbox": 1, "error": 1, "attempts": 1, "created": 1},
    )
    return list(rows.sort("created", -1).limit(limit))


def retry_failed(*, domain: str) -> int:
    """A moderator asks for a domain's failed deliveries to be tried again."""
    done = _collection().update_many(
        {"domain": domain, "state": "failed"},
        {"$set": {"state": "pending", "attempts": 0, "due": now(), "error": ""}},
    )
    deliveries_sweep()
    return done.modified_count
