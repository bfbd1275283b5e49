"""What the streaming tests share: tokens made with the services, a
Mastodon.py client on the ASGI test server, and a StreamListener that
records what it is sent and lets a test wait for it."""

import contextlib
import socket
import threading
import time

from mastodon import Mastodon, StreamListener

from api import secrets
from api import services as api_services
from feeds.documents import PUBLIC
from feeds.services import posts as post_services
from profiles.documents import User

WAIT = 3.0


def token_for(handle: str | None, scopes=("read",)) -> str:
    """A token of a fresh app for `handle` (None: the app's own token)."""
    app, _ = api_services.app_create(
        name="Streamer",
        redirect_uris=["urn:ietf:wg:oauth:2.0:oob"],
        scopes=list(scopes),
        website=None,
    )
    token = secrets.new_secret()
    api_services.token_create(token=token, app=app, user=handle, scopes=list(scopes))
    return token


def client(server, token: str) -> Mastodon:
    return Mastodon(api_base_url=server.url, access_token=token, version_check_mode="none")


def post(handle: str, text: str, circles=(PUBLIC,)) -> str:
    author = User.objects.get(handle=handle)
    made = post_services.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles)
    )
    return str(made.id)


class Recorder(StreamListener):
    """Every event in order, as Mastodon.py parsed it: (name, payload)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []
        self.opened = threading.Event()
        self.changed = threading.Condition()

    def handle_heartbeat(self) -> None:
        # The stream's opening `:)`: it is subscribed on the server by then.
        self.opened.set()

    def on_any_event(self, name, data=None, for_stream=None) -> None:
        with self.changed:
            self.events.append((name, data))
            self.changed.notify_all()

    def wait_for(self, name: str, test=lambda data: True, seconds: float = WAIT):
        """The first event `name` whose payload passes `test`."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while True:
                for event, data in self.events:
                    if event == name and test(data):
                        return data
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {name!r} in {self.events}")
                self.changed.wait(left)

    def named(self, name: str) -> list:
        with self.changed:
            return [data for event, data in self.events if event == name]


def stream(open_with, *args, **kwargs) -> tuple[object, Recorder]:
    """A stream opened by a Mastodon.py method (`api.stream_user`...) on a
    thread of its own, once the server holds it: (its handle, its recorder)."""
    recorder = Recorder()
    handle = open_with(*args, recorder, run_async=True, **kwargs)
    assert recorder.opened.wait(WAIT), "the stream did not open"
    return handle, recorder


class RawStream:
    """One SSE stream read line by line on a raw socket (closing it is at
    once a client's leaving): for what Mastodon.py does not show, the
    framing itself."""

    def __init__(self, server, path: str, token: str | None = None) -> None:
        self.lines: list[str] = []
        self.ended = threading.Event()
        self.sock = socket.create_connection((server.host, server.port), timeout=WAIT)
        # HTTP/1.0: the body as it is sent, not in chunks.
        head = [f"GET {path} HTTP/1.0", "Host: 127.0.0.1"]
        if token:
            head.append(f"Authorization: Bearer {token}")
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

    def wait_for(self, line: str, seconds: float = WAIT) -> list[str]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if line in self.lines:
                return list(self.lines)
            time.sleep(0.005)
        raise AssertionError(f"{line!r} not in {self.lines}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
