"""`manage.py demo` (what scripts/run starts) serves the seeded site with
gunicorn: pages, static files in both DEBUG modes, one log line per request."""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from socialsite.management.commands.demo import parse_addrport

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 90  # seconds: seeding 20 users on a busy machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port: int, path: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    response.body = response.read()
    connection.close()
    return response


def wait_until_healthy(server: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"manage.py demo exited with {server.returncode}")
        try:
            if get(port, "/healthz").status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"/healthz did not answer within {START_TIMEOUT} s")


@pytest.fixture(scope="module", params=["debug", "production"])
def demo_server(request, tmp_path_factory):
    """`manage.py demo` on a free port, in demo mode, with DEBUG on or off:
    one server per mode for the whole module."""
    tmp_path = tmp_path_factory.mktemp(request.param)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MONGODB_URI": "", "DEBUG": "true"}
    if request.param == "production":
        env |= {
            "DEBUG": "false",
            "SECRET_KEY": "run-command-test-" + "k" * 40,
            "STATIC_ROOT": str(tmp_path / "static"),
            "SECURE_SSL_REDIRECT": "false",  # plain http on the loopback
        }
    stdout, stderr = tmp_path / "stdout", tmp_path / "stderr"
    with stdout.open("w") as out, stderr.open("w") as err:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "demo", f"127.0.0.1:{port}", "--users", "20"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=err,
            start_new_session=True,  # the worker goes down with the arbiter's group
        )
    try:
        wait_until_healthy(server, port)
        yield request.param, port, stdout, stderr
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


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
    printed by `python -m benchmarks.http_mix` (DESIGN.md §6: no timed tests)."""
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
