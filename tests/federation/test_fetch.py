"""federation.fetch against a real HTTP server on loopback (a thread of this
process), and its SSRF guard on address literals and stubbed DNS answers."""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import override_settings

from federation import fetch
from federation.fetch import AddressRefused, FetchError, check_url, get_jrd, get_json, post_json

PORTS = range(9110, 9120)
LIMIT = 10_000
loopback = override_settings(FEDERATION_ALLOW_LOOPBACK=True, FEDERATION_FETCH_MAX_BYTES=LIMIT)


class Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []
    stop = threading.Event()

    def log_message(self, format, *args):
        pass

    def _send(self, status: int, body: bytes = b"", **headers: str) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.seen.append({"method": "GET", "path": self.path, "headers": dict(self.headers)})
        path = self.path
        if path in ("/json", "/jrd"):
            self._send(200, json.dumps({"id": path}).encode(), Content_Type="application/json")
        elif path == "/huge":
            self._send(200, b"[" + b"1," * LIMIT + b"1]")
        elif path == "/huge-undeclared":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b" " * (LIMIT * 3))
        elif path == "/to-private":
            self._send(302, Location="http://10.0.0.1/x")
        elif path == "/to-json":
            self._send(302, Location="/json")
        elif path.startswith("/chain/"):
            left = int(path.rsplit("/", 1)[1])
            self._send(302, Location=f"/chain/{left - 1}" if left else "/json")
        elif path == "/loop":
            self._send(301, Location="/loop")
        elif path == "/500":
            self._send(500, b'{"error": "boom"}')
        elif path == "/html":
            self._send(200, b"<html>not json</html>", Content_Type="text/html")
        elif path == "/list":
            self._send(200, b"[1, 2]")
        elif path == "/slow":
            self.stop.wait(3)
            self._send(200, b"{}")
        elif path == "/drip":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            while not self.stop.wait(0.1):
                self.wfile.write(b" ")
                self.wfile.flush()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append(
            {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": body}
        )
        if self.path == "/inbox":
            self._send(202, b"x" * (LIMIT * 2))
        elif self.path == "/moved":
            self._send(308, Location="/inbox")


@pytest.fixture(scope="module")
def base():
    for port in PORTS:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
            break
        except OSError:
            continue
    else:
        pytest.skip("no free port in 9110-9119")
    server.block_on_close = False
    Handler.stop.clear()
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield f"http://127.0.0.1:{port}"
    Handler.stop.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def seen(base):
    Handler.seen.clear()
    return Handler.seen


def _answer(*addresses):
    """A getaddrinfo stand-in answering `addresses` for any name."""

    def getaddrinfo(host, port, *args, **kwargs):
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in addresses
        ]

    return getaddrinfo


# -- the guard, before any connection -------------------------------------------------

ALWAYS_REFUSED = [
    "http://10.0.0.1/",
    "http://192.168.1.10/inbox",
    "http://172.16.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fc00::1]/",
    "http://[fe80::1]/",
    "http://0.0.0.0:8000/",
    "http://[::]/",
    "http://224.0.0.1/",
    "http://100.64.0.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[2002:a00:1::1]/",
    "ftp://example.com/file",
    "file:///etc/passwd",
    "gopher://example.com/",
    "http://user:pw@example.com/",
    "http://user@127.0.0.1/",
    "http://example.com\\@127.0.0.1/",
    "http:///no-host",
    "http://[::1/",
]


@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("url", ALWAYS_REFUSED)
def test_refused_whatever_loopback_setting(url, allow):
    with override_settings(FEDERATION_ALLOW_LOOPBACK=allow), pytest.raises(AddressRefused):
        check_url(url)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/", "http://127.1.2.3:9110/", "http://[::1]/", "http://localhost/"]
)
def test_loopback_only_with_the_setting(url):
    with pytest.raises(AddressRefused, match="loopback"):
        check_url(url)
    with override_settings(FEDERATION_ALLOW_LOOPBACK=True):
        check_url(url)


def test_numeric_host_forms_resolve_and_are_refused():
    # 2130706433 is 127.0.0.1 to the resolver (and to curl and browsers).
    with pytest.raises(AddressRefused, match="loopback"):
        check_url("http://2130706433/")


def test_a_name_is_refused_if_any_of_its_addresses_is(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _answer("93.184.215.14"))
    check_url("https://example.com/users/alice")
    monkeypatch.setattr(socket, "getaddrinfo", _answer("93.184.215.14", "192.168.0.5"))
    with pytest.raises(AddressRefused, match="private"):
        check_url("https://example.com/users/alice")
    monkeypatch.setattr(socket, "getaddrinfo", _answer("2606:2800:21f:cb07::1", "fd00::5"))
    with pytest.raises(AddressRefused):
        check_url("https://example.com/")


def test_unresolvable_host_is_a_fetch_error(monkeypatch):
    def fail(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(FetchError, match="cannot resolve") as caught:
        check_url("https://nowhere.invalid/")
    assert not isinstance(caught.value, AddressRefused)


# -- fetches from the local server ----------------------------------------------------


def test_loopback_server_refused_without_the_setting(base, seen):
    with pytest.raises(AddressRefused):
        get_json(f"{base}/json")
    with pytest.raises(AddressRefused):
        post_json(f"{base}/inbox", b"{}")
    assert seen == []


@loopback
def test_get_json_sends_our_headers_and_the_signature(base, seen):
    calls = []

    def sign(method, url, body):
        calls.append((method, url, body))
        return {"Signature": f'keyId="k",signature="{len(calls)}"', "Date": "now"}

    assert get_json(f"{base}/to-json", sign=sign) == {"id": "/json"}
    # Signed per hop, for the URL of that hop.
    assert calls == [("GET", f"{base}/to-json", None), ("GET", f"{base}/json", None)]
    assert [r["headers"]["Signature"] for r in seen] == [
        'keyId="k",signature="1"',
        'keyId="k",signature="2"',
    ]
    headers = seen[1]["headers"]
    assert headers["Accept"].startswith("application/activity+json")
    assert headers["User-Agent"].startswith("Socialsite/0.1")


@loopback
def test_get_jrd_asks_for_jrd(base, seen):
    assert get_jrd(f"{base}/jrd") == {"id": "/jrd"}
    assert seen[0]["headers"]["Accept"] == "application/jrd+json, application/json"
    assert "Signature" not in seen[0]["headers"]


@loopback
def test_redirects_three_followed_four_refused(base, seen):
    assert get_json(f"{base}/chain/2") == {"id": "/json"}
    with pytest.raises(FetchError, match="redirects"):
        get_json(f"{base}/chain/3")
    seen.clear()
    with pytest.raises(FetchError, match="redirects"):
        get_json(f"{base}/loop")
    assert len(seen) == 4


@loopback
def test_redirect_to_a_private_address_is_refused(base, seen):
    with pytest.raises(AddressRefused, match=r"10\.0\.0\.1"):
        get_json(f"{base}/to-private")


@loopback
@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/500", "HTTP 500"),
        ("/html", "not JSON"),
        ("/list", "not an object"),
        ("/huge", "over 10000"),
        ("/huge-undeclared", "over 10000"),
    ],
)
def test_bad_answers_are_fetch_errors(base, path, message):
    with pytest.raises(FetchError, match=message):
        get_json(f"{base}{path}")


@override_settings(FEDERATION_ALLOW_LOOPBACK=True, FEDERATION_FETCH_TIMEOUT=1)
def test_slow_server_times_out(base):
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        get_json(f"{base}/slow")
    assert time.monotonic() - started < 2


@override_settings(FEDERATION_ALLOW_LOOPBACK=True, FEDERATION_FETCH_TIMEOUT=0.3)
def test_dripping_server_is_cut_at_the_deadline(base):
    # A byte every 0.1 s never trips the read timeout; the whole fetch's does.
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        get_json(f"{base}/drip")
    assert time.monotonic() - started < 1.5


@loopback
def test_post_json_sends_body_and_signature_and_returns_the_status(base, seen):
    body = b'{"type": "Follow"}'
    signed = []

    def sign(method, url, sent):
        signed.append((method, url, sent))
        return {"Signature": "sig", "Digest": "SHA-256=x"}

    assert post_json(f"{base}/inbox", body, sign=sign) == 202
    assert signed == [("POST", f"{base}/inbox", body)]
    assert seen[0]["body"] == body
    assert seen[0]["headers"]["Content-Type"] == "application/activity+json"
    assert seen[0]["headers"]["Signature"] == "sig"


@loopback
def test_post_json_never_follows_a_redirect(base, seen):
    assert post_json(f"{base}/moved", b"{}") == 308
    assert [r["path"] for r in seen] == ["/moved"]


@override_settings(FEDERATION_ALLOW_LOOPBACK=True, FEDERATION_FETCH_TIMEOUT=1)
def test_post_to_a_closed_port_is_a_fetch_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError):
        post_json(f"http://127.0.0.1:{port}/inbox", b"{}")


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_the_connection_itself_is_checked(base, seen, monkeypatch, scheme):
    # DNS rebinding: the name was public when checked, loopback when connected.
    # (https: refused before the TLS handshake, which this server cannot do.)
    monkeypatch.setattr(fetch, "check_url", lambda url: None)
    monkeypatch.setattr(fetch, "_local", threading.local())  # no pooled connection
    url = base.replace("http:", f"{scheme}:")
    with pytest.raises(AddressRefused, match=r"connection to 127\.0\.0\.1"):
        get_json(f"{url}/json")
    with pytest.raises(AddressRefused, match=r"connection to 127\.0\.0\.1"):
        post_json(f"{url}/inbox", b"{}")
    assert seen == []


@loopback
def test_proxy_variables_are_ignored(base, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    monkeypatch.setenv("http_proxy", "http://10.0.0.1:3128")
    assert get_json(f"{base}/json") == {"id": "/json"}
