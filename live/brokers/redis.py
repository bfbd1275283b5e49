"""The several-process transport: events over Redis pub/sub (docs/live.md#redis).

Every event is published on one channel; each process that serves streams
holds one subscriber connection, on its event loop, and hands what it hears
to its hub, which passes each event to the streams open on its topic there.
So pages, workers and stream servers can run in as many processes and
machines as needed, as Mastodon's streaming server does, and an event's
writer needs no idea where its readers are.

Pub/sub keeps nothing: while a process's subscriber is reconnecting it
misses events, so its open streams are told to `resync` once it is back.
"""

import asyncio
import json
import logging
import threading

import redis
import redis.asyncio
from django.conf import settings

from live.broker import Event, Hub

log = logging.getLogger(__name__)

CHANNEL = "socialsite:live"
#: Seconds between attempts while Redis is away, doubling up to the last.
BACKOFF = (0.5, 1, 2, 5)


class RedisTransport:
    def __init__(self) -> None:
        self._local = threading.local()
        self._listeners: list[asyncio.Task] = []

    def _client(self) -> redis.Redis:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = redis.Redis.from_url(settings.LIVE_REDIS_URL)
        return client

    def publish(self, event: Event) -> None:
        try:
            self._client().publish(CHANNEL, json.dumps(event.as_message()))
        except redis.RedisError:
            # The write has landed; only its live news is lost, and pages
            # still show it on their next read.
            log.warning("live_publish_failed", extra={"topic": event.topic, "kind": event.kind})

    def publish_many(self, events: list[Event]) -> None:
        try:
            with self._client().pipeline(transaction=False) as pipe:
                for event in events:
                    pipe.publish(CHANNEL, json.dumps(event.as_message()))
                pipe.execute()
        except redis.RedisError:
            log.warning("live_publish_failed", extra={"events": len(events)})

    def listen(self, hub: Hub) -> None:
        task = asyncio.get_running_loop().create_task(self._listen(hub), name="live-redis")
        self._listeners.append(task)

    def stop(self) -> None:
        """No more listening (a test's server, or settings, changed)."""
        for task in self._listeners:
            task.get_loop().call_soon_threadsafe(task.cancel)
        self._listeners.clear()

    async def _listen(self, hub: Hub) -> None:
        attempt = 0
        while True:
            client = redis.asyncio.Redis.from_url(settings.LIVE_REDIS_URL)
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    if attempt:
                        hub.lost_events()
                    attempt = 0
                    async for message in pubsub.listen():
                        try:
                            hub.deliver(Event.from_message(json.loads(message["data"])))
                        except (ValueError, KeyError, TypeError):
                            log.warning("live_message_unreadable")
            except (redis.RedisError, OSError):
                log.warning("live_subscriber_reconnecting", extra={"attempt": attempt})
            finally:
                await client.aclose()
            await asyncio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
            attempt += 1
