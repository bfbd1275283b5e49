"""The ASGI application: pages and live streams from one process (docs/live.md#serving).

`manage.py demo` serves this with gunicorn's ASGI worker; so can any ASGI
server (`gunicorn -k asgi socialsite.asgi`, uvicorn).

Pages are the same synchronous Django as under WSGI (the same middleware,
views and database code), run on a fixed pool of PAGE_THREADS threads, so
a burst of page views costs no more threads than the WSGI server's. Django's
own ASGI handler is not used: it runs sync middleware one call at a time on
a single thread per request, and a streaming response holds a thread for as
long as it is open. A view that opens a live stream instead returns a
response with a `serve_asgi(receive, send)` coroutine (live/streams.py):
the request's thread is released once the response's headers are decided,
and the stream waits on the event loop, with no thread and no database
round trip while nothing happens.

WebSocket connections go to the application that ASGI_WEBSOCKETS names for
their path (the client API's multiplexed streams); settings name them, so
this module, at the bottom of the layers, imports no app above it.
"""

import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")

import django

django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402
from django.core import signals  # noqa: E402
from django.core.handlers import base  # noqa: E402
from django.core.handlers.asgi import ASGIRequest  # noqa: E402
from django.http import HttpResponseBase  # noqa: E402
from django.urls import set_script_prefix  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: Threads that run pages (and a stream's work when an event arrives): the
#: WSGI server's request threads (socialsite/gunicorn_conf.py).
PAGE_THREADS = int(os.environ.get("GUNICORN_THREADS", "8"))
_DONE = object()
#: The scope key under which a WebSocket application finds the page pool.
POOL = "socialsite.pool"


class PagesOnAPool(base.BaseHandler):
    """Django's synchronous request handling, each request on a pool thread."""

    def __init__(self, threads: int = PAGE_THREADS) -> None:
        super().__init__()
        self.load_middleware()
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="page")
        self.websockets: dict[str, Callable[[Scope, Receive, Send], Awaitable[None]]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        for path, name in settings.ASGI_WEBSOCKETS.items():
            if scope["path"] == path:
                app = self.websockets.get(path)
                if app is None:
                    app = self.websockets[path] = import_string(name)
                # The page pool rides along: a socket's database work runs there.
                await app({**scope, POOL: self.pool}, receive, send)
                return
        await receive()  # websocket.connect
        await send({"type": "websocket.close", "code": 4404})

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        body = await _read_body(receive)
        if body is None:  # the client left before sending its body
            return
        response = await loop.run_in_executor(self.pool, self._respond, scope, body)
        serve = getattr(response, "serve_asgi", None)
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": _headers(response),
                }
            )
            if serve is not None:
                # The stream's own loop; the request ended (request_finished)
                # when its headers were decided.
                await serve(receive, send, self.pool)
            elif response.streaming:
                await self._send_chunks(response, send)
            else:
                await send({"type": "http.response.body", "body": response.content})
        except OSError:  # the client went away mid-response
            pass
        finally:
            if serve is None:
                await loop.run_in_executor(self.pool, response.close)
            body.close()

    def _respond(self, scope: Scope, body: tempfile.SpooledTemporaryFile) -> HttpResponseBase:
        """One request, as WSGIHandler.__call__ handles it, on a pool thread."""
        set_script_prefix(scope.get("root_path", "") or "/")
        signals.request_started.send(sender=self.__class__, scope=scope)
        request = ASGIRequest(scope, body)
        response = self.get_response(request)
        response._handler_class = self.__class__
        if getattr(response, "serve_asgi", None) is not None:
            # The request is over here (its thread, its database work, its
            # log line); what follows waits on the event loop.
            response.close()
        return response

    async def _send_chunks(self, response: HttpResponseBase, send: Send) -> None:
        """A streaming response (a file download, an export) read chunk by
        chunk on the pool, so a slow client holds no thread while it reads."""
        loop = asyncio.get_running_loop()
        chunks: Iterator[bytes] = iter(response)
        while (chunk := await loop.run_in_executor(self.pool, next, chunks, _DONE)) is not _DONE:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})


async def _read_body(receive: Receive) -> tempfile.SpooledTemporaryFile | None:
    # Closed by `_http` once the response is sent.
    body = tempfile.SpooledTemporaryFile(  # noqa: SIM115
        max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b"
    )
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            body.close()
            return None
        body.write(message.get("body", b""))
        if not message.get("more_body"):
            body.seek(0)
            return body


def _headers(response: HttpResponseBase) -> list[tuple[bytes, bytes]]:
    headers = [(key.encode("latin-1"), value.encode("latin-1")) for key, value in response.items()]
    for cookie in response.cookies.values():
        headers.append((b"set-cookie", cookie.output(header="").strip().encode("latin-1")))
    return headers


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


application = PagesOnAPool()
