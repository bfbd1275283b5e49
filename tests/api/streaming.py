"""What the streaming tests share: tokens made with the services, a
Mastodon.py client on the ASGI test server, and a StreamListener that
records what it is sent and lets a test wait for it."""

import threading
import time

from mastodon import Mastodon, StreamListener

from api import secrets
from api import services as api_services
from feeds.documents import PUBLIC
from feeds.services import posts as post_services
from profiles.documents import User
from tests.asgi_server import OpenStream

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


class RawStream(OpenStream):
    """For what Mastodon.py does not show: the framing itself, line by line."""

    def __init__(self, server, path: str, token: str | None = None) -> None:
        super().__init__(server, path, {"Authorization": f"Bearer {token}"} if token else {})

    def wait_for(self, line: str, seconds: float = WAIT, **_) -> list[str]:
        return super().wait_for(line, seconds, whole_line=True)
