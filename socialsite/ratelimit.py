"""Fixed-window rate limits kept in MongoDB (one upsert per check).

A rule is "<count>/<seconds>" from settings. Each (scope, key, window) has a
counter document that the TTL index removes once the window is over, so the
limit holds across processes and workers.

Two ways to use one (docs/accounts.md#rate-limits):
- `hit` counts every request, then refuses past the limit (sign-ups, posts,
  reset requests);
- `reserve` guards a secret (a password, a code): it takes a slot before
  the secret is checked, atomically, so a burst of parallel guesses checks
  at most the limit; a guess that was right gives its slot back (`refund`),
  so only failures count and the owner is never locked out by succeeding.
"""

import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from django.conf import settings
from django.http import HttpRequest
from pymongo import ReturnDocument, UpdateOne
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from socialsite.clock import now
from socialsite.documents import RateCounter

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class RateLimited(Exception):
    def __init__(self, retry_after: int, limit: int = 0):
        super().__init__(f"Too many attempts. Try again in {_human(retry_after)}.")
        self.retry_after = retry_after
        self.limit = limit


class Quota(NamedTuple):
    """Where a `hit` left the tightest of its counters: the client API
    reports it in its X-RateLimit-* headers (docs/api.md#rate-limits)."""

    limit: int
    remaining: int
    reset: datetime


def parse_rule(rule: str) -> tuple[int, int]:
    count, seconds = rule.split("/")
    return int(count), int(seconds)


def _counter_id(scope: str, key: str, window: int) -> str:
    """The counter's `_id`: the key (a handle, an address, an IP) as a keyed
    hash, so the counters name no one (docs/accounts.md#erasure)."""
    digest = hmac.new(settings.SECRET_KEY.encode(), key.encode(), hashlib.sha256).hexdigest()
    return f"{scope}|{digest[:24]}|{window}"


def hit(scope: str, keys: list[str], rule: str) -> Quota:
    """Count one attempt against each key; raise RateLimited if any is over,
    else say what is left.

    Keys are e.g. ["ip:1.2.3.4", "handle:ada"]: a limit per IP and per handle.
    """
    limit, seconds = parse_rule(rule)
    if not settings.RATELIMIT_ENABLED:
        return Quota(limit, limit, now() + timedelta(seconds=seconds))
    t = now()
    window = int(t.timestamp()) // seconds
    window_end = (window + 1) * seconds
    collection = RateCounter._get_collection()
    worst = 0
    for key in keys:
        worst = max(worst, _count(collection, _counter_id(scope, key, window), t, seconds))
    if worst > limit:
        raise RateLimited(retry_after=max(1, window_end - int(t.timestamp())), limit=limit)
    return Quota(limit, limit - worst, EPOCH + timedelta(seconds=window_end))


def _count(collection: Collection, counter: str, t: datetime, seconds: int) -> int:
    """The counter after adding one. Two first hits racing to insert it: the
    loser's E11000 is tried once more, as an update of the winner's."""
    try:
        doc = collection.find_one_and_update(
            {"_id": counter},
            {"$inc": {"hits": 1}, "$setOnInsert": {"expire": t + timedelta(seconds=seconds)}},
            upsert=True,
            return_document=ReturnDocument.AFTER,
        )
    except DuplicateKeyError:
        doc = collection.find_one_and_update(
            {"_id": counter}, {"$inc": {"hits": 1}}, return_document=ReturnDocument.AFTER
        )
    return doc["hits"] if doc else 1


# (scope, keys, rule): one limit, as the views list them.
Limit = tuple[str, list[str], str]


class Attempt:
    """The slots one attempt holds; `refund` gives them back."""

    def __init__(self, counters: list[str]):
        self.counters = counters

    def refund(self) -> None:
        """The secret was right: this attempt does not count (one round trip)."""
        if not self.counters:
            return
        RateCounter._get_collection().bulk_write(
            [
                UpdateOne({"_id": counter, "hits": {"$gt": 0}}, {"$inc": {"hits": -1}})
                for counter in self.counters
            ],
            ordered=False,
        )
        self.counters = []


def reserve(limits: list[Limit]) -> Attempt:
    """Take one slot in every limit before the secret is checked, or raise
    RateLimited having taken none.

    Each slot is an upsert whose filter holds `hits < limit`, so the count
    and the check are one atomic step: of N parallel attempts at most
    `limit` get a slot. On a full counter the filter matches nothing and the
    upsert's insert collides with the counter's `_id` (E11000); an E11000
    can also be two first attempts racing to insert, so it is tried once
    more, when the counter exists and only a full one can collide.
    """
    if not settings.RATELIMIT_ENABLED:
        return Attempt([])
    collection = RateCounter._get_collection()
    t = now()
    taken: list[str] = []
    for scope, keys, rule in limits:
        limit, seconds = parse_rule(rule)
        window = int(t.timestamp()) // seconds
        for key in keys:
            counter = _counter_id(scope, key, window)
            if not _take(collection, counter, limit, t + timedelta(seconds=seconds)):
                Attempt(taken).refund()
                raise RateLimited(retry_after=max(1, (window + 1) * seconds - int(t.timestamp())))
            taken.append(counter)
    return Attempt(taken)


def _take(collection: Collection, counter: str, limit: int, expire: datetime) -> bool:
    for _ in range(2):
        try:
            collection.update_one(
                {"_id": counter, "hits": {"$lt": limit}},
                {"$inc": {"hits": 1}, "$setOnInsert": {"expire": expire}},
                upsert=True,
            )
            return True
        except DuplicateKeyError:
            continue
    return False


def client_ip(request: HttpRequest) -> str:
    # X-Forwarded-For from a client is not trusted. Behind a reverse proxy,
    # REMOTE_ADDR is the proxy's: have gunicorn take the client's address
    # from the PROXY protocol (--proxy-protocol --proxy-allow-from <proxy>).
    return request.META.get("REMOTE_ADDR", "unknown")


def _human(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} seconds"
    minutes = (seconds + 59) // 60
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
