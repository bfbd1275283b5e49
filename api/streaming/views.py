"""The streams over Server-Sent Events (docs/api.md#streaming): one route
per stream, as Mastodon's streaming server serves them, each answering an
`EventStream` (live/streams.py) that waits on the event loop under ASGI.

Mastodon's framing: the stream opens with a `:)` comment, each event is
an `event:` line and one `data:` line (JSON; a deleted status's bare id),
and a `:thump` comment keeps an idle connection open. No `id:` and no
`retry:` lines: Mastodon's clients take any line of their own for part
of an event. The token comes as `Authorization: Bearer`, or as the
`access_token` query parameter Mastodon still takes for streaming.
"""

import asyncio
import contextlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.views.decorators.csrf import csrf_exempt

from api.http import ApiError, api_view, app_endpoint, bearer, error
from api.params import Params
from api.streaming.streams import Reader, Stream, StreamError, open_stream
from api.views.common import base_of
from live.streams import EventStream, Receive, Send

UNKNOWN_CHANNEL = "Unknown channel requested"
#: Mastodon's opening comment and heartbeat.
PRELUDE, HEARTBEAT = b":)\n", b":thump\n"


class ApiEventStream(EventStream):
    """An `EventStream` that ends when its reader's token is revoked (seen
    when the next event is rendered)."""

    def __init__(self, stream: Stream) -> None:
        super().__init__(
            topics=stream.topics,
            frames_of=stream.frames_of,
            heartbeat=HEARTBEAT,
            with_ids=False,
            prelude=PRELUDE,
        )
        self.reader = stream.reader

    async def serve_asgi(self, receive: Receive, send: Send, pool: Any) -> None:
        loop = asyncio.get_running_loop()
        revoked = asyncio.Event()
        self.reader.on_revoked = lambda: loop.call_soon_threadsafe(revoked.set)
        serving = asyncio.ensure_future(super().serve_asgi(receive, send, pool))
        ended = asyncio.ensure_future(revoked.wait())
        try:
            done, _ = await asyncio.wait({serving, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not serving.done():
                serving.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await serving
        if serving in done:
            serving.result()
            return
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def token_in_query(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """`?access_token=` read as the bearer token when no Authorization
    header came (docs.joinmastodon.org/methods/streaming#authorization)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        token = request.GET.get("access_token")
        if token and "HTTP_AUTHORIZATION" not in request.META:
            request.META["HTTP_AUTHORIZATION"] = f"Bearer {token}"
            request.__dict__.pop("headers", None)  # a cached view of META
        return view(request, *args, **kwargs)

    return wrapper


def _served(request: HttpRequest, name: str, params: Params) -> EventStream:
    """The stream `name` for the token's person, or an ApiError."""
    reader = Reader(
        token=bearer(request) or "",
        handle=request.user.handle,
        scopes=tuple(request.grant.scopes),
        base=base_of(request),
    )
    values = {key: value for key in ("tag", "list", "only_media") if (value := params.get(key))}
    try:
        stream = open_stream(name, values, reader, request.user)
    except StreamError as exc:
        raise ApiError(exc.status, exc.message) from exc
    return ApiEventStream(stream)


def _route(name: str, scope: str = "read:statuses") -> Callable[..., HttpResponseBase]:
    @api_view(["GET"], scope=scope, user=True)
    def view(request: HttpRequest, params: Params) -> EventStream:
        return _served(request, name, params)

    view.__name__ = view.__qualname__ = f"stream_{name.replace(':', '_')}"
    return token_in_query(view)


user = _route("user")
user_notification = _route("user:notification", "read:notifications")
public = _route("public")
public_local = _route("public:local")
public_remote = _route("public:remote")
hashtag = _route("hashtag")
hashtag_local = _route("hashtag:local")
list_stream = _route("list")
direct = _route("direct")


@api_view(["GET"], scope=("read:statuses", "read:notifications"), user=True)
def _named(request: HttpRequest, params: Params) -> EventStream:
    return _served(request, params.get("stream") or "", params)


_named_with_query_token = token_in_query(_named)


@csrf_exempt  # a bearer token, never a cookie, says who asks (docs/api.md#conventions)
@app_endpoint("GET")
def streaming(request: HttpRequest) -> HttpResponseBase:
    """`GET /api/v1/streaming?stream=user`: the stream its parameter names,
    as the streaming server takes it. Without one, a 404: Mastodon's REST
    side answers so when streams are served on its own host."""
    if not request.GET.get("stream"):
        return error(404, "Not found")
    return _named_with_query_token(request)


@csrf_exempt  # a bearer token, never a cookie, says who asks (docs/api.md#conventions)
@app_endpoint("GET")
def health(request: HttpRequest) -> HttpResponseBase:
    """Whether streams are served: as Mastodon's, a plain `OK`."""
    return HttpResponse("OK", content_type="text/plain")


@csrf_exempt  # a bearer token, never a cookie, says who asks (docs/api.md#conventions)
@app_endpoint("GET")
def unknown(request: HttpRequest, rest: str) -> HttpResponseBase:
    """A stream path Mastodon does not have: its 400."""
    return error(400, UNKNOWN_CHANNEL)
