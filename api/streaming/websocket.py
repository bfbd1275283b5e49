"""The streams over one WebSocket at `/api/v1/streaming` (docs/api.md#streaming),
as Mastodon's streaming server multiplexes them
(docs.joinmastodon.org/methods/streaming#websocket).

The token is checked when the socket opens (`Authorization: Bearer`, the
`access_token` query parameter, or the `Sec-WebSocket-Protocol` header, as
Mastodon takes them); without a good one the upgrade is refused, with a
401 (a 422 for an app's own token) where the server takes an HTTP answer
to it, else with the server's 403. Then the client sends
`{"type": "subscribe", "stream": "hashtag", "tag": "cats"}` and
`{"type": "unsubscribe", ...}`; `?stream=` on the URL subscribes at once.
Each event goes out as `{"stream": ["hashtag", "cats"], "event": "update",
"payload": "<JSON as a string>"}`; a subscription that cannot be made
answers `{"error": "...", "status": 400}` and the socket stays open.

The streams are the SSE views' (streams.py). Database work (the token, a
list's id, an event's rendering) runs on the page pool; a socket waits on
the event loop between messages and events, holding no thread.
"""

import asyncio
import contextlib
import io
import json
import logging
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest

from api.http import NEEDS_USER, ApiError, authenticate, bearer
from api.streaming.streams import Reader, Stream, StreamError, key, open_stream
from api.views.common import base_of
from live import broker
from live.broker import RESYNC
from live.streams import Receive, Send

log = logging.getLogger(__name__)

#: Where socialsite/asgi.py puts its page pool in a WebSocket's scope.
POOL = "socialsite.pool"
#: Streams one socket may hold, and the longest message it reads.
MAX_STREAMS, MAX_MESSAGE = 32, 4096
TOO_MANY = "Too many streams on this connection"
UNSUBSCRIBE_FAILED = "Error unsubscribing from channel"

_fallback: list[Executor] = []


def _pool(scope: dict) -> Executor:
    """The page pool; a small one of its own when served by another
    ASGI application (a test, another server)."""
    pool = scope.get(POOL)
    if pool is not None:
        return pool
    if not _fallback:
        _fallback.append(ThreadPoolExecutor(4, thread_name_prefix="stream"))
    return _fallback[0]


def request_of(scope: dict) -> ASGIRequest:
    """The socket's handshake as a Django request (headers, query, host and
    scheme read as for a page)."""
    http_scheme = {"wss": "https", "ws": "http"}.get(scope.get("scheme", "ws"), "http")
    http = {**scope, "type": "http", "method": "GET", "scheme": http_scheme}
    request = ASGIRequest(http, io.BytesIO())
    if "HTTP_AUTHORIZATION" not in request.META:
        # Mastodon's other two places for the token.
        token = request.GET.get("access_token") or request.META.get("HTTP_SEC_WEBSOCKET_PROTOCOL")
        if token:
            request.META["HTTP_AUTHORIZATION"] = f"Bearer {token.strip()}"
    return request


def _opened(request: ASGIRequest) -> Reader:
    """On the pool: the token and its person (ApiError when they will not
    do), as an API request authenticates."""
    grant = authenticate(request)
    if grant is None:
        raise ApiError(401, "Missing access token")
    if grant.user is None:
        raise ApiError(422, NEEDS_USER)
    return Reader(
        token=bearer(request) or "",
        handle=grant.user.handle,
        scopes=tuple(grant.scopes),
        base=base_of(request),
    )


def _first(value: object) -> str | None:
    """A message's value as Mastodon reads it: an array's first item; a
    number as its digits (a list id)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | str):
        return str(value)
    return None


class Socket:
    """One client's connection and the streams it subscribed to."""

    def __init__(self, scope: dict, receive: Receive, send: Send) -> None:
        self.scope = scope
        self.receive = receive
        self._send = send
        self.pool = _pool(scope)
        self.sending = asyncio.Lock()
        self.streams: dict[tuple[str, ...], tuple[broker.Subscription, asyncio.Task]] = {}
        self.revoked = asyncio.Event()
        self.closed = False
        self.reader: Reader | None = None

    async def run(self) -> None:
        if (await self.receive())["type"] != "websocket.connect":
            return
        loop = asyncio.get_running_loop()
        try:
            request = request_of(self.scope)
            reader = await loop.run_in_executor(self.pool, _opened, request)
        except DisallowedHost:
            await self._refuse(400, "Bad request")
            return
        except ApiError as exc:
            await self._refuse(exc.status, exc.message)
            return
        reader.on_revoked = lambda: loop.call_soon_threadsafe(self.revoked.set)
        self.reader = reader
        accept: dict[str, Any] = {"type": "websocket.accept"}
        protocol = request.META.get("HTTP_SEC_WEBSOCKET_PROTOCOL")
        if protocol and protocol.strip() in (self.scope.get("subprotocols") or ()):
            accept["subprotocol"] = protocol.strip()  # the token came there: said back
        try:
            # `?stream=`: subscribed before the socket opens, so that nothing
            # published once the client holds it open is missed.
            first = request.GET.get("stream")
            refused = None
            if first:
                params = {name: request.GET.get(name) or "" for name in ("tag", "list")}
                refused = await self.subscribe(first, params)
            await self._send(accept)
            if refused is not None:
                await self.send_json(refused)
            await self._listen()
        finally:
            for sub, task in self.streams.values():
                task.cancel()
                sub.close()
            self.streams.clear()

    async def _listen(self) -> None:
        """Messages until the client leaves, or its token is revoked."""
        revoked = asyncio.ensure_future(self.revoked.wait())
        try:
            while True:
                message = asyncio.ensure_future(self.receive())
                done, _ = await asyncio.wait(
                    {message, revoked}, return_when=asyncio.FIRST_COMPLETED
                )
                if message not in done:
                    message.cancel()
                    await self.close(1000)
                    return
                got = message.result()
                if got["type"] == "websocket.disconnect":
                    self.closed = True
                    return
                if got["type"] != "websocket.receive":
                    continue
                if got.get("text") is None:
                    # Mastodon's streaming server takes text frames only.
                    await self.close(1003)
                    return
                await self.handle(got["text"])
        finally:
            revoked.cancel()

    async def handle(self, text: str) -> None:
        """One message from the client; anything it cannot read is ignored,
        as Mastodon ignores it."""
        if len(text) > MAX_MESSAGE:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        kind, name = message.get("type"), _first(message.get("stream"))
        params = {
            field: value
            for field in ("tag", "list")
            if (value := _first(message.get(field))) is not None
        }
        if kind == "subscribe":
            refused = await self.subscribe(name or "", params)
            if refused is not None:
                await self.send_json(refused)
        elif kind == "unsubscribe":
            await self.unsubscribe(name or "", params)

    async def subscribe(self, name: str, params: dict[str, str]) -> dict | None:
        """Subscribes the socket to a stream; the error message to send when
        it cannot be (None when it is, or was already)."""
        if len(self.streams) >= MAX_STREAMS:
            return {"error": TOO_MANY, "status": 429}
        loop = asyncio.get_running_loop()
        try:
            stream = await loop.run_in_executor(self.pool, self._open, name, params)
        except StreamError as exc:
            return {"error": exc.message, "status": exc.status}
        if stream is None or stream.name in self.streams or self.closed:
            return None
        sub = broker.subscribe(stream.topics)
        self.streams[stream.name] = (sub, asyncio.ensure_future(self._pump(stream, sub)))
        return None

    def _open(self, name: str, params: dict[str, str]) -> Stream | None:
        """On the pool: the stream for the reader as they are now."""
        assert self.reader is not None
        viewer = self.reader.now()
        if viewer is None:
            return None
        return open_stream(name, params, self.reader, viewer)

    async def unsubscribe(self, name: str, params: dict[str, str]) -> None:
        try:
            named = key(name, params)
        except StreamError:
            await self.send_json({"error": UNSUBSCRIBE_FAILED})
            return
        found = self.streams.pop(named, None)
        if found is not None:
            sub, task = found
            task.cancel()
            sub.close()

    async def _pump(self, stream: Stream, sub: broker.Subscription) -> None:
        """One stream's events, rendered on the pool as they come."""
        loop = asyncio.get_running_loop()
        while not self.closed:
            event = await sub.queue.get()
            if event.kind == RESYNC or sub.overflowed:
                # Mastodon's streams have no way to say so: what was missed is missed.
                sub.overflowed = False
                while not sub.queue.empty():
                    sub.queue.get_nowait()
                continue
            try:
                frames = await loop.run_in_executor(self.pool, stream.frames_of, event)
            except Exception:
                log.exception("stream_render_failed", extra={"kind": event.kind})
                continue
            for name, payload in frames:
                message: dict[str, Any] = {"stream": list(stream.name), "event": name}
                if name == "delete":  # the id bare, as Mastodon sends it (streams.py)
                    message["payload"] = json.loads(payload)
                elif name != "filters_changed":  # which has no payload here
                    message["payload"] = payload
                await self.send_json(message)

    async def send_json(self, message: dict) -> None:
        if self.closed:
            return
        text = json.dumps(message, separators=(",", ":"))
        async with self.sending:
            try:
                await self._send({"type": "websocket.send", "text": text})
            except Exception:  # the client is gone mid-send
                self.closed = True

    async def close(self, code: int) -> None:
        if self.closed:
            return
        self.closed = True
        async with self.sending:
            with contextlib.suppress(Exception):
                await self._send({"type": "websocket.close", "code": code})

    async def _refuse(self, status: int, message: str) -> None:
        """The upgrade refused with an HTTP answer where the server can send
        one (ASGI's `websocket.http.response`), else closed before it opens."""
        if "websocket.http.response" in (self.scope.get("extensions") or {}):
            body = json.dumps({"error": message}).encode()
            await self._send(
                {
                    "type": "websocket.http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await self._send({"type": "websocket.http.response.body", "body": body})
            return
        await self._send({"type": "websocket.close", "code": 1008})


async def application(scope: dict, receive: Receive, send: Send) -> None:
    """The ASGI application settings.ASGI_WEBSOCKETS names for `/api/v1/streaming`."""
    await Socket(scope, receive, send).run()
