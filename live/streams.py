"""A Server-Sent Events stream as a Django response (docs/live.md#serving).

A view decides everything a stream needs while it still has its request
(who reads, which topics, how an event becomes what this reader is sent)
and returns an `EventStream`. The ASGI application (socialsite/asgi.py)
ends the request there and calls `serve_asgi`, which waits on the event
loop: no thread and no database round trip while nothing happens. When an
event arrives, `frames_of` runs on the page pool with the same selectors as
the page, so what the reader is sent is decided per reader, when it is
sent (docs/privacy.md).

Under a WSGI server there is no event loop to wait on: the response asks
the browser to come back in LIVE_WSGI_RETRY_MS and ends, and the page goes
on polling as it does without JavaScript's EventSource.
"""

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse

from live import broker
from live.broker import RESYNC, Event

log = logging.getLogger(__name__)

#: What a reader is sent for one event: (event name, data) pairs, none to skip it.
Frames = Sequence[tuple[str, str]]
Render = Callable[[Event], Frames]
#: Whether `frames_of` makes an event's frames without reading anything.
Reads = Callable[[Event], bool]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def data(value: object) -> str:
    """An event's data line: JSON on one line (a newline would end it)."""
    return json.dumps(value, separators=(",", ":"), default=str)


def frame(name: str, payload: str, event_id: str | None = None) -> bytes:
    lines = []
    if event_id:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {name}")
    lines += [f"data: {line}" for line in payload.split("\n")]
    return ("\n".join(lines) + "\n\n").encode()


class EventStream(StreamingHttpResponse):
    def __init__(
        self,
        *,
        topics: Iterable[str],
        frames_of: Render,
        last_event_id: str | None = None,
        heartbeat: bytes = b": ping\n\n",
        opening: Frames = (),
        with_ids: bool = True,
        prelude: bytes | None = None,
        frames_on_loop: Reads | None = None,
    ) -> None:
        """`prelude`: what the stream opens with, before `opening`; the
        browser's reconnection delay (`retry:`) unless given (Mastodon's
        clients take a `retry:` line for an event without a name).

        `frames_on_loop`: the events whose frames `frames_of` makes without
        a read (from what the view read with the request): those are made on
        the event loop, not sent to the page pool and back. A post's
        fan-out wakes a stream per follower at once, and as many small jobs
        on the pool would queue ahead of the pages, trading the GIL back
        and forth for each (docs/benchmarks.md#idle-live-streams-beside-the-mix)."""
        super().__init__(self._not_served_here(), content_type="text/event-stream")
        self["Cache-Control"] = "no-cache, no-transform"
        self["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
        self.topics = frozenset(topics)
        # Not `render`: Django calls a response's `render()` (TemplateResponse).
        self.frames_of = frames_of
        self.last_event_id = last_event_id or None
        self.heartbeat = heartbeat
        self.opening = opening
        self.with_ids = with_ids
        self.prelude = prelude
        self.frames_on_loop = frames_on_loop

    @staticmethod
    def _not_served_here() -> Iterator[bytes]:
        yield f"retry: {settings.LIVE_WSGI_RETRY_MS}\n\n".encode()

    async def serve_asgi(self, receive: Receive, send: Send, pool: Executor) -> None:
        sub = broker.subscribe(self.topics)
        left = asyncio.ensure_future(_disconnected(receive))
        streaming = asyncio.ensure_future(self._stream(sub, send, pool))
        try:
            # Awaited once for the stream's life, not once per heartbeat.
            await asyncio.wait({left, streaming}, return_when=asyncio.FIRST_COMPLETED)
            if streaming.done():
                streaming.result()  # its error, if it ended on one
        finally:
            sub.close()
            left.cancel()
            streaming.cancel()

    async def _stream(self, sub: broker.Subscription, send: Send, pool: Executor) -> None:
        opening = self.prelude
        if opening is None:
            opening = b"retry: %d\n\n" % settings.LIVE_RETRY_MS
        opening += b"".join(frame(name, payload) for name, payload in self.opening)
        await _send(send, opening)
        replayed: set[str] = set()
        if self.last_event_id:
            missed = broker.hub().since(self.topics, self.last_event_id)
            if missed is None:
                await _send(send, frame(RESYNC, "{}"))
            for event in missed or ():
                replayed.add(event.id)
                await self._pass_on(event, send, pool)
        await self._wait(sub, send, pool, replayed)

    async def _wait(
        self, sub: broker.Subscription, send: Send, pool: Executor, replayed: set[str]
    ) -> None:
        """Events as they come (those already replayed, which arrived while
        the stream opened, once), a heartbeat when none has for a while.

        A heartbeat is this task's timer running out: no task, future set or
        callback is made for it beyond the queue's own wait, since with many
        idle streams open the heartbeats are most of what the event loop
        does, on the GIL the pages share (docs/benchmarks.md#idle-live-streams-beside-the-mix).
        An event that lands as the timer runs out stays in the queue (the
        wait is cancelled before it takes it) and is read next time round."""
        seconds = settings.LIVE_HEARTBEAT_SECONDS
        while True:
            try:
                async with asyncio.timeout(seconds):
                    event = await sub.queue.get()
            except TimeoutError:
                await _send(send, self.heartbeat)
                continue
            if event.id in replayed:
                continue
            if event.kind == RESYNC or sub.overflowed:
                sub.overflowed = False
                while not sub.queue.empty():  # all of it is in what is read afresh
                    sub.queue.get_nowait()
                await _send(send, frame(RESYNC, "{}"))
                continue
            await self._pass_on(event, send, pool)

    async def _pass_on(self, event: Event, send: Send, pool: Executor) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self.frames_on_loop is not None and self.frames_on_loop(event):
                frames = self.frames_of(event)
            else:
                frames = await loop.run_in_executor(pool, self.frames_of, event)
        except Exception:
            log.exception("live_render_failed", extra={"kind": event.kind})
            return
        if frames:
            event_id = event.id if self.with_ids else None
            await _send(send, b"".join(frame(name, payload, event_id) for name, payload in frames))


async def _send(send: Send, body: bytes) -> None:
    await send({"type": "http.response.body", "body": body, "more_body": True})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
