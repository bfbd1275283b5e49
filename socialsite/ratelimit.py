"""Fixed-window rate limits kept in MongoDB (one upsert per check).

A rule is "<count>/<seconds>" from settings. Each (scope, key, window) has a
counter document that the TTL index removes once the window is over, so the
limit holds across processes and workers.
"""

import hashlib
import hmac
from datetime import timedelta

from django.conf import settings
from pymongo import ReturnDocument, UpdateOne

from socialsite.clock import now
from socialsite.documents import RateCounter


class RateLimited(Exception):
    def __init__(self, retry_after: int):
        super().__init__(f"Too many attempts. Try again in {_human(retry_after)}.")
        self.retry_after = retry_after


def parse_rule(rule: str) -> tuple[int, int]:
    count, seconds = rule.split("/")
    return int(count), int(seconds)


def _counter_id(scope: str, key: str, window: int) -> str:
    """The counter's `_id`: the key (a handle, an address, an IP) as a keyed
    hash, so the counters name no one (docs/accounts.md#erasure)."""
    digest = hmac.new(settings.SECRET_KEY.encode(), key.encode(), hashlib.sha256).hexdigest()
    return f"{scope}|{digest[:24]}|{window}"


def hit(scope: str, keys: list[str], rule: str) -> None:
    """Count one attempt against each key; raise RateLimited if any is over.

    Keys are e.g. ["ip:1.2.3.4", "handle:ada"]: a limit per IP and per handle.
    """
    if not settings.RATELIMIT_ENABLED:
        return
    limit, seconds = parse_rule(rule)
    t = now()
    window = int(t.timestamp()) // seconds
    window_end = (window + 1) * seconds
    collection = RateCounter._get_collection()
    worst = 0
    for key in keys:
        doc = collection.find_one_and_update(
            {"_id": _counter_id(scope, key, window)},
            {"$inc": {"hits": 1}, "$setOnInsert": {"expire": t + timedelta(seconds=seconds)}},
            upsert=True,
            return_document=ReturnDocument.AFTER,
        )
        worst = max(worst, doc["hits"])
    if worst > limit:
        raise RateLimited(retry_after=max(1, window_end - int(t.timestamp())))


def check(scope: str, keys: list[str], rule: str) -> None:
    """Raise RateLimited if any key has used up its window; count nothing.

    With `count`, for limits on failures only (a failed login): check before
    the attempt, count after it failed, so a refused or successful attempt
    costs nothing. Concurrent attempts may each pass the check before any of
    them is counted: the overshoot is bounded by the server's concurrency.
    """
    if not settings.RATELIMIT_ENABLED or not keys:
        return
    limit, seconds = parse_rule(rule)
    t = int(now().timestamp())
    window = t // seconds
    ids = [_counter_id(scope, key, window) for key in keys]
    rows = RateCounter._get_collection().find({"_id": {"$in": ids}}, {"hits": 1})
    if max((row["hits"] for row in rows), default=0) >= limit:
        raise RateLimited(retry_after=max(1, (window + 1) * seconds - t))


def count(scope: str, keys: list[str], rule: str) -> None:
    """Count one event against each key (one round trip); never raises."""
    if not settings.RATELIMIT_ENABLED or not keys:
        return
    _, seconds = parse_rule(rule)
    t = now()
    window = int(t.timestamp()) // seconds
    expire = t + timedelta(seconds=seconds)
    RateCounter._get_collection().bulk_write(
        [
            UpdateOne(
                {"_id": _counter_id(scope, key, window)},
                {"$inc": {"hits": 1}, "$setOnInsert": {"expire": expire}},
                upsert=True,
            )
            for key in keys
        ],
        ordered=False,
    )


def client_ip(request) -> str:
    # X-Forwarded-For from a client is not trusted. Behind a reverse proxy,
    # REMOTE_ADDR is the proxy's: have gunicorn take the client's address
    # from the PROXY protocol (--proxy-protocol --proxy-allow-from <proxy>).
    return request.META.get("REMOTE_ADDR", "unknown")


def _human(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} seconds"
    minutes = (seconds + 59) // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
