"""The README's first command (`./scripts/run`, which starts `manage.py demo`)
serves the seeded site with gunicorn as a visitor meets a production site:
DEBUG off, the site's own error pages, its static files, one log line per
request; and `manage.py demo` with DEBUG on."""

import http.client
import json
import re
import socket
import time
from urllib.parse import urlencode

import pytest
from django.core.management.base import CommandError

from benchmarks import demo_server as demo
from profiles.demo import DEMO_PASSWORD
from socialsite.management.commands.demo import parse_addrport

pytestmark = pytest.mark.no_test_db(
    reason="the demo server runs in a subprocess on its own demo database"
)

START_TIMEOUT = 90  # seconds: seeding 20 users on a busy machine


def get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


@pytest.fixture(scope="module", params=["debug", "readme"])
def demo_server(request, tmp_path_factory):
    """In demo mode, one server per mode for the whole module: `manage.py
    demo` with DEBUG on, and `./scripts/run` as the README gives it, with
    nothing set but its address, a small demo and where static files go."""
    tmp_path = tmp_path_factory.mktemp(request.param)
    env = {"MONGODB_URI": "", "DEMO_USERS": "20"}
    if request.param == "debug":
        env |= {"DEBUG": "true"}
    else:
        # Unset as on a new machine ("" reads as unset in settings and scripts/run).
        env |= {"DEBUG": "", "SECRET_KEY": "", "STATIC_ROOT": str(tmp_path / "static")}
    try:
        server, port = demo.start(
            ["--users", "20"],
            env=env,
            logs=tmp_path,
            timeout=START_TIMEOUT,
            run_script=request.param == "readme",
        )
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield request.param, port, tmp_path / "stdout", tmp_path / "stderr"
    finally:
        demo.stop(server)


def test_the_demo_is_served_by_gunicorn_with_its_static_files(demo_server):
    _, port, stdout, _ = demo_server
    home = get(port, "/")
    assert home.status == 200
    # gunicorn's ASGI worker: pages and live streams from this one process.
    assert home.getheader("Server") == "gunicorn/asgi"
    assert "Serving on" in stdout.read_text() and "with gunicorn" in stdout.read_text()
    # The stylesheet the page links (a hashed name with DEBUG off) is served.
    stylesheet = re.search(r'href="(/static/[^"]+\.css)"', home.body.decode())
    assert stylesheet, "the home page links no stylesheet"
    css = get(port, stylesheet[1])
    assert css.status == 200
    assert css.getheader("Content-Type").startswith("text/css")
    assert len(css.body) > 100


def test_each_request_is_logged_once_as_a_json_line(demo_server):
    _, port, _, stderr = demo_server
    assert get(port, "/accounts/login/").status == 200
    time.sleep(0.2)  # the line is written after the response
    lines = [json.loads(line) for line in stderr.read_text().splitlines() if line.strip()]
    logins = [line for line in lines if line.get("path") == "/accounts/login/"]
    assert len(logins) == 1, "no gunicorn access log besides the site's request line"
    assert logins[0]["status"] == 200
    # gunicorn's own lines are JSON lines too.
    assert any(line.get("logger") == "gunicorn.error" for line in lines)


def test_health_checks_keep_one_connection_alive(demo_server):
    """gunicorn's threads keep the connection open between answers (runserver
    closed it, the 44 ms per check the issue measured). How fast they are is
    printed by `python -m benchmarks.http_mix` (docs/performance.md: no timed tests)."""
    _, port, _, _ = demo_server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/healthz")
    connection.getresponse().read()
    socket_used = connection.sock
    for _ in range(20):
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        assert response.getheader("Connection", "").lower() != "close"
    assert connection.sock is socket_used, "one connection throughout"
    connection.close()


def test_the_readme_command_answers_the_sites_own_error_pages(demo_server):
    """A removed post, an unknown person and a bad page cursor: the site's own
    404 page (its header, a sentence, a way home), never Django's debug page."""
    mode, port, _, _ = demo_server
    if mode != "readme":
        pytest.skip("DEBUG on shows Django's debug pages, as it should to a developer")
    moderator = Visitor(port)
    moderator.log_in("moderator", DEMO_PASSWORD)
    wall = moderator.get("/u/alice/").body.decode()
    post_id = re.search(r'href="/posts/([0-9a-f]{24})/"', wall)[1]
    assert moderator.get(f"/posts/{post_id}/").status == 200
    removed = moderator.post("/mod/act/", {"key": f"post:{post_id}", "action": "remove"})
    assert removed.status == 302
    # A moderator still opens the removed post (to restore it); nobody else does.
    assert moderator.get(f"/posts/{post_id}/").status == 200
    reader = Visitor(port)
    reader.log_in("alice", DEMO_PASSWORD)
    for path in (f"/posts/{post_id}/", "/u/nobody_here_at_all/", "/u/alice/?before=not-a-cursor"):
        for visitor in (reader, Visitor(port)):
            response = visitor.get(path)
            page = response.body.decode()
            assert response.status == 404, path
            assert 'class="error-code">404<' in page and 'href="/"' in page, path
            assert '<header class="topbar"' in page, path
            assert "Traceback" not in page and "URLconf" not in page and "DEBUG" not in page


def test_the_readme_command_serves_live_streams_from_the_same_process(demo_server):
    """One command, no other service: a message written through one page
    reaches the other person's open stream (docs/live.md#serving)."""
    mode, port, _, _ = demo_server
    if mode != "readme":
        pytest.skip("one of the two servers is enough")
    reader, writer = Visitor(port), Visitor(port)
    reader.log_in("alice", DEMO_PASSWORD)
    writer.log_in("moderator", DEMO_PASSWORD)
    stream = socket.create_connection(("127.0.0.1", port), timeout=10)
    cookies = "; ".join(f"{k}={v}" for k, v in reader.cookies.items())
    stream.sendall(
        f"GET /live/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookies}\r\n\r\n".encode()
    )
    seen = stream.recv(4096)
    assert b"200 OK" in seen and b"text/event-stream" in seen
    sent = writer.post("/messages/", {"to": "alice", "text": "Are you there?"})
    assert sent.status == 302
    deadline = time.monotonic() + 5
    while b"event: message" not in seen and time.monotonic() < deadline:
        seen += stream.recv(4096)
    stream.close()
    assert b"event: message" in seen


class Visitor:
    """A browser's cookies and CSRF token over plain HTTP (the demo on the loopback)."""

    def __init__(self, port: int):
        self.port, self.cookies = port, {}

    def request(self, method: str, path: str, body: str = "") -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if method == "POST":
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "Origin": f"http://127.0.0.1:{self.port}",
            }
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.body = response.read()
        for header in response.headers.get_all("Set-Cookie") or ():
            name, _, rest = header.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        connection.close()
        return response

    def get(self, path: str) -> http.client.HTTPResponse:
        return self.request("GET", path)

    def post(self, path: str, fields: dict) -> http.client.HTTPResponse:
        token = self.cookies.get("csrftoken") or self._token()
        return self.request("POST", path, urlencode({**fields, "csrfmiddlewaretoken": token}))

    def _token(self) -> str:
        self.get("/accounts/login/")
        return self.cookies["csrftoken"]

    def log_in(self, handle: str, password: str) -> None:
        response = self.post("/accounts/login/", {"username": handle, "password": password})
        assert response.status == 302, response.body[:300]


@pytest.mark.parametrize(
    ("addrport", "bind"),
    [
        ("8000", "127.0.0.1:8000"),
        ("0.0.0.0:8001", "0.0.0.0:8001"),
        ("[::1]:8002", "[::1]:8002"),
        ("localhost:8003", "localhost:8003"),
    ],
)
def test_the_address_takes_runservers_forms(addrport, bind):
    assert parse_addrport(addrport) == bind


@pytest.mark.parametrize("addrport", ["", "host:", "99999", "0", "a b:80", "http://x:80"])
def test_a_bad_address_is_refused_before_anything_starts(addrport):
    with pytest.raises(CommandError, match="not a port"):
        parse_addrport(addrport)
