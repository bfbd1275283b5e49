"""The site's ASGI application (socialsite/asgi.py) served from a thread of the
test process, for tests of live streams: pytest-django's `live_server` is a
WSGI server, which holds no stream.

uvicorn serves it here (in production `manage.py demo` uses gunicorn's ASGI
worker; both speak ASGI to the same application). The server's threads
share the test's in-process database, so `tests/conftest.py`'s per-test
cleanup applies to it, and tests can set up people, blocks and filters with
the services directly.

    def test_x(asgi_server):
        requests.get(asgi_server.url + "/live/stream", stream=True)
"""

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass
class Served:
    url: str
    host: str
    port: int
    #: Cut every open connection at once, as a network drop or a restarting
    #: proxy does: open streams end, and their browsers reconnect.
    drop: Callable[[], None]


@pytest.fixture(scope="module")
def asgi_server():
    import uvicorn

    from live import broker
    from socialsite.asgi import PagesOnAPool

    broker.reset()
    app = PagesOnAPool(threads=4)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, lifespan="off", ws="websockets-sansio", log_level="warning"
    )
    server = uvicorn.Server(config)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(
        target=lambda: loop.run_until_complete(server.serve()), name="asgi-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the ASGI test server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]

    def drop() -> None:
        def cut() -> None:
            for connection in list(server.server_state.connections):
                connection.transport.abort()

        loop.call_soon_threadsafe(cut)

    yield Served(url=f"http://127.0.0.1:{port}", host="127.0.0.1", port=port, drop=drop)
    server.should_exit = True
    thread.join(5)
    app.pool.shutdown(wait=False, cancel_futures=True)
    broker.reset()


class OpenStream:
    """One SSE stream of the served site read line by line on a raw socket,
    on a thread of its own (closing the socket is at once a client's
    leaving). HTTP/1.0: the body as it is sent, not in chunks."""

    def __init__(self, server, path: str, headers: dict[str, str] | None = None) -> None:
        self.lines: list[str] = []
        self.ended = threading.Event()
        self.sock = socket.create_connection((server.host, server.port), timeout=10)
        head = [f"GET {path} HTTP/1.0", "Host: 127.0.0.1"]
        head += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        pending = b""
        try:
            while chunk := self.sock.recv(4096):
                pending += chunk
                *done, pending = pending.split(b"\n")
                self.lines += [line.rstrip(b"\r").decode() for line in done]
        except OSError:
            pass
        self.ended.set()

    def wait_for(self, text: str, seconds: float = 2.0, *, whole_line: bool = False) -> list[str]:
        """The lines so far, once one is `text` (`whole_line`) or holds it."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            lines = list(self.lines)
            if any(line == text if whole_line else text in line for line in lines):
                return lines
            time.sleep(0.005)
        raise AssertionError(f"{text!r} not in {self.lines}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
