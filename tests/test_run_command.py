"""`manage.py demo` (what scripts/run starts) serves the seeded site with
gunicorn: pages, static files in both DEBUG modes, one log line per request."""

import http.client
import json
import re
import time

import pytest
from django.core.management.base import CommandError

from benchmarks import demo_server as demo
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


@pytest.fixture(scope="module", params=["debug", "production"])
def demo_server(request, tmp_path_factory):
    """`manage.py demo` on a free port, in demo mode, with DEBUG on or off:
    one server per mode for the whole module."""
    tmp_path = tmp_path_factory.mktemp(request.param)
    env = {"MONGODB_URI": "", "DEBUG": "true"}
    if request.param == "production":
        env |= {
            "DEBUG": "false",
            "SECRET_KEY": "run-command-test-" + "k" * 40,
            "STATIC_ROOT": str(tmp_path / "static"),
            "SECURE_SSL_REDIRECT": "false",  # plain http on the loopback
        }
    try:
        server, port = demo.start(["--users", "20"], env=env, logs=tmp_path, timeout=START_TIMEOUT)
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
    assert home.getheader("Server") == "gunicorn"
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
