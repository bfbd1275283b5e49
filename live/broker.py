"""Events out of one process's writes, into the streams open in every process
(docs/live.md#serving).

`publish(topic, kind, **data)` is called by the receivers (live/receivers.py)
after a write has landed, from whatever thread made it (a request, a task).
It hands the event to the transport the settings choose (LIVE_BROKER, one
module each in live/brokers/): "local" delivers it to this process's own
streams (the embedded demo: one process, no other service); "redis" sends
it over Redis pub/sub, and every process serving streams hears it, as
Mastodon's streaming server does.

The hub is this process's side: which streams are open on which topics, and
the latest LIVE_REPLAY_EVENTS events, so a stream that reconnects with
`Last-Event-ID` gets what it missed (or a `resync` when that is too old).
An open stream waits on an asyncio queue on the server's event loop: no
thread and no database round trip until an event arrives for it.
"""

import asyncio
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bson import ObjectId
from django.conf import settings
from django.utils.module_loading import import_string

#: The event a stream's reader gets when it may have missed some: read afresh.
RESYNC = "resync"


@dataclass(frozen=True)
class Event:
    #: Unique across processes (an ObjectId: its writer's time and a
    #: counter), so any process can resume a stream from it.
    id: str
    topic: str
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_message(self) -> dict[str, Any]:
        return {"id": self.id, "topic": self.topic, "kind": self.kind, "data": self.data}

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> "Event":
        return cls(
            id=str(message["id"]),
            topic=str(message["topic"]),
            kind=str(message["kind"]),
            data=dict(message.get("data") or {}),
        )


class Subscription:
    """One open stream's topics and queue, on the loop that serves it."""

    def __init__(self, hub: "Hub", topics: frozenset[str], loop: asyncio.AbstractEventLoop):
        self.hub = hub
        self.topics = topics
        self.loop = loop
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        #: More events came than the stream took: it tells its reader to
        #: read afresh (`resync`) rather than hold an unbounded queue.
        self.overflowed = False

    def offer(self, event: Event) -> None:
        """From any thread."""
        self.loop.call_soon_threadsafe(self._put, event)

    def _put(self, event: Event) -> None:
        if self.queue.qsize() >= settings.LIVE_QUEUE_MAX:
            self.overflowed = True
            return
        self.queue.put_nowait(event)

    def close(self) -> None:
        self.hub.unsubscribe(self)


def _put_all(batch: list[tuple[Subscription, Event]]) -> None:
    """On the subscriptions' loop."""
    for sub, event in batch:
        sub._put(event)


class Hub:
    """This process's open streams by topic, and its latest events."""

    def __init__(self, replay: int) -> None:
        self._lock = threading.Lock()
        self._by_topic: dict[str, set[Subscription]] = {}
        self._recent: deque[Event] = deque(maxlen=replay)

    def subscribe(self, topics: Iterable[str]) -> Subscription:
        """On the event loop that will wait on it."""
        sub = Subscription(self, frozenset(topics), asyncio.get_running_loop())
        with self._lock:
            for topic in sub.topics:
                self._by_topic.setdefault(topic, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            for topic in sub.topics:
                subs = self._by_topic.get(topic)
                if subs is not None:
                    subs.discard(sub)
                    if not subs:
                        del self._by_topic[topic]

    def deliver(self, event: Event) -> None:
        """An event published anywhere: to the streams open on its topic here."""
        self.deliver_many([event])

    def deliver_many(self, events: list[Event]) -> None:
        """Events published together (a post's fan-out to a batch of
        readers): each event loop serving any of their streams is woken once
        for all of them. Waking a loop from another thread is a write to its
        self-pipe, a system call that lets go of the GIL, which the writer
        (the fan-out task) then waits to take back from the page threads: once
        per batch, not once per stream (docs/benchmarks.md#idle-live-streams-beside-the-mix)."""
        with self._lock:
            self._recent.extend(events)
            offers = [
                (sub, event) for event in events for sub in self._by_topic.get(event.topic, ())
            ]
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[Subscription, Event]]] = {}
        for sub, event in offers:
            by_loop.setdefault(sub.loop, []).append((sub, event))
        for loop, batch in by_loop.items():
            loop.call_soon_threadsafe(_put_all, batch)

    def lost_events(self) -> None:
        """Events may have gone by unheard (the transport reconnected): every
        open stream here tells its reader to read afresh."""
        with self._lock:
            subs = {sub for subs in self._by_topic.values() for sub in subs}
        for sub in subs:
            sub.offer(Event(id="", topic="", kind=RESYNC))

    def since(self, topics: Iterable[str], last_id: str) -> list[Event] | None:
        """The events on `topics` after `last_id`, oldest first; None when
        `last_id` is no longer among the latest events (the stream resyncs)."""
        wanted = set(topics)
        with self._lock:
            recent = list(self._recent)
        for at, event in enumerate(recent):
            if event.id == last_id:
                return [e for e in recent[at + 1 :] if e.topic in wanted]
        return None

    @property
    def open_streams(self) -> int:
        with self._lock:
            return len({sub for subs in self._by_topic.values() for sub in subs})


class Transport(Protocol):
    """How an event reaches the hubs: every process's, or this one's."""

    def publish(self, event: Event) -> None: ...

    def publish_many(self, events: list[Event]) -> None:
        """A batch (a post's fan-out to a thousand readers) in one go."""

    def listen(self, hub: Hub) -> None:
        """Called on the event loop when this process opens its first stream."""


_state_lock = threading.Lock()
_hub: Hub | None = None
_transport: Transport | None = None
_listening: set[int] = set()


def hub() -> Hub:
    global _hub
    with _state_lock:
        if _hub is None:
            _hub = Hub(settings.LIVE_REPLAY_EVENTS)
        return _hub


def transport() -> Transport:
    global _transport
    with _state_lock:
        if _transport is None:
            _transport = import_string(settings.LIVE_BROKERS[settings.LIVE_BROKER])()
        return _transport


def reset() -> None:
    """A new hub and transport on next use (tests; settings changed)."""
    global _hub, _transport
    with _state_lock:
        stop = getattr(_transport, "stop", None)
        if stop is not None:
            stop()
        _hub, _transport = None, None
        _listening.clear()


def publish(topic: str, kind: str, data: dict[str, Any] | None = None) -> Event:
    """Announce `kind` on `topic` to every stream that listens to it."""
    event = Event(id=str(ObjectId()), topic=topic, kind=kind, data=data or {})
    transport().publish(event)
    return event


def publish_many(items: Iterable[tuple[str, str, dict[str, Any]]]) -> list[Event]:
    """(topic, kind, data) of many events at once: one write to Redis."""
    events = [Event(id=str(ObjectId()), topic=t, kind=k, data=d) for t, k, d in items]
    if events:
        transport().publish_many(events)
    return events


def subscribe(topics: Iterable[str]) -> Subscription:
    """A subscription on the running event loop; the transport starts
    listening for other processes' events on the first one."""
    the_hub = hub()
    loop_id = id(asyncio.get_running_loop())
    if loop_id not in _listening:
        _listening.add(loop_id)
        transport().listen(the_hub)
    return the_hub.subscribe(topics)
