"""Sending a probe: query strings, form and multipart bodies and headers
built by hand rather than by the test client, so that they can carry what a
browser never sends but an attacker does (invalid UTF-8, malformed escapes,
repeated and operator-shaped keys); then the page a POST redirects to, and a
tour of the pages that show what was stored."""

import sys
from collections.abc import Iterator
from urllib.parse import unquote_to_bytes, urlsplit

from tests.hostile.probe import Probe, valid_path
from tests.hostile.routes import Route
from tests.hostile.values import TEN_K, Raw, encode
from tests.hostile.world import World, png_bytes

BOUNDARY = "hostile-boundary-7MA4YWxkTrZu0gW"


def _urlencoded(pairs) -> str:
    return "&".join(f"{encode(k)}={encode(v)}" for k, v in pairs)


def _bytes(value: str) -> bytes:
    if isinstance(value, Raw):
        return unquote_to_bytes(str(value))
    return value.encode("utf-8", "surrogatepass")


def _multipart(pairs) -> bytes:
    parts = []
    for name, value in pairs:
        head = (
            b'Content-Disposition: form-data; name="' + _bytes(name).replace(b'"', b"%22") + b'"'
        )
        if name == "photo":
            content = png_bytes() if value == "<file>" else _bytes(value)
            head += b'; filename="p.png"\r\nContent-Type: image/png'
        else:
            content = _bytes(value)
        parts.append(b"--" + BOUNDARY.encode() + b"\r\n" + head + b"\r\n\r\n" + content + b"\r\n")
    return b"".join(parts) + b"--" + BOUNDARY.encode() + b"--\r\n"


class Escaped:
    """An exception that got out of Django itself: the 500 handler raised too
    (say, the error page's context asks for the user that just failed to
    load). The WSGI server answers 500; the test client raises it."""

    status_code = 500

    def __init__(self):
        self.exc_info = sys.exc_info()

    def get(self, header: str, default: str = "") -> str:
        return default


def send(world: World, probe: Probe):
    client = world.clients[probe.role]
    extra = {"QUERY_STRING": _urlencoded(probe.query), **_latin1(probe.headers)}
    if probe.body is not None:
        body, content_type = probe.body, probe.content_type
    elif probe.method == "GET":
        body, content_type = b"", "application/octet-stream"
    elif probe.multipart:
        body, content_type = _multipart(probe.form), f"multipart/form-data; boundary={BOUNDARY}"
    else:
        body, content_type = _urlencoded(probe.form).encode(), "application/x-www-form-urlencoded"
    try:
        return client.generic(probe.method, probe.path, body, content_type, **extra)
    except Exception:
        return Escaped()


def _latin1(headers: dict[str, str]) -> dict[str, str]:
    """Header values as a WSGI server passes them: the bytes read as latin-1."""
    return {name: _bytes(value).decode("latin-1") for name, value in headers.items()}


HEADER_SAMPLES = {
    "HTTP_COOKIE": [
        "sessionid=" + "x" * 5000,
        "sessionid=$ne",
        "sessionid=" + "²" * 32,
        "sessionid=%ff%fe%00",
        'sessionid="a;b"; csrftoken=' + "\x00" * 64,
        "csrftoken=" + "²" * 64,
        "messages=" + "x" * 5000,
        "=; ==; sessionid",
    ],
    "HTTP_HOST": ["evil.example", "[::1", "a" * 300, "testserver:99999999", "testserver\x00"],
    "HTTP_IF_NONE_MATCH": ["*", '"' + "x" * 5000 + '"', "\x00", "²"],
    "HTTP_X_FORWARDED_FOR": ["²", "x" * 5000, "::1, \x00"],
    "HTTP_REFERER": ["http://[::1", "\x00", "x" * 5000],
    "HTTP_ACCEPT_LANGUAGE": ["²", "x" * 5000, "*;q=²", "zz-ZZ;q=1e309"],
    "HTTP_USER_AGENT": ["\x00", "x" * TEN_K, "\ud800"],
}


def header_sweep(world: World) -> Iterator[Probe]:
    """Hostile cookies and headers on a page, a photo and a form post."""
    photo = world.values["photo_post_id"][0]
    targets = [
        ("anon", "GET", "/", []),
        ("anon", "GET", f"/posts/{photo}/photo/", []),
        ("anon", "POST", "/accounts/login/", [("username", "bob"), ("password", "x")]),
    ]
    for name, values in HEADER_SAMPLES.items():
        for value in values:
            for role, method, path, form in targets:
                yield Probe("(headers)", role, method, path, [], form, False, {name: value})


def _get(client, path: str, query: str):
    try:
        return client.generic("GET", path, QUERY_STRING=query)
    except Exception:
        return Escaped()


# Bodies no form sends: a multipart body without its boundary or cut short,
# JSON with an operator, a charset nobody knows, bytes that are not text.
ODD_BODIES = [
    ("multipart/form-data", b"--x\r\nContent-Disposition: form-data; name=text\r\n\r\nab"),
    ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="text"'),
    ("multipart/form-data; boundary=x", b"--x--\r\n" + b"\xff" * 64),
    ("application/json", b'{"text": {"$ne": null}, "type": ["status"]}'),
    ("application/x-www-form-urlencoded; charset=no-such-codec", b"text=%ff&type=status"),
    ("application/x-www-form-urlencoded; charset=utf-16", b"text=abc&type=status"),
    ("text/plain", b"\xff\xfe\x00"),
]
ODD_METHODS = ["HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"]


def odd_requests(key: str, route: Route, world: World) -> Iterator[Probe]:
    """The route with other methods than GET and POST, and, if it has a form,
    with bodies no form sends."""
    role = "admin" if route.staff else "alice"
    path = valid_path(key, route, world)
    for method in ODD_METHODS:
        yield Probe(key, role, method, path, [], [], False)
    if route.form:
        for content_type, body in ODD_BODIES:
            yield Probe(key, role, "POST", path, [], [], False, {}, body, content_type)


def exchange(world: World, probe: Probe) -> Iterator[tuple[Probe, object]]:
    """The probe's response and, when a POST redirects within the site, the
    page it redirects to: a hostile value that was stored must not break the
    page that shows it."""
    response = send(world, probe)
    yield probe, response
    location = response.get("Location", "") if response.status_code in (301, 302, 303) else ""
    if probe.method != "POST" or not location.startswith("/") or location.startswith("//"):
        return
    target = urlsplit(location)
    follow = Probe(
        route=f"{probe.route} (then its redirect)",
        role=probe.role,
        method="GET",
        path=target.path,
        query=[],
        form=[],
        multipart=False,
    )
    yield follow, _get(world.clients[probe.role], target.path, target.query)


# Pages that show what the probes may have stored (posts, comments, names,
# circles, reports, suspensions), visited after each route's probes.
TOUR = [
    ("alice", "/feed/"),
    ("bob", "/feed/"),
    ("alice", "/incoming/"),
    ("bob", "/u/alice/"),
    ("alice", "/u/bob/"),
    ("alice", "/circles/"),
    ("mod", "/mod/reports/"),
    ("mod", "/mod/log/"),
    ("mod", "/mod/users/bob/"),
    ("alice", "/search/?q=a"),
    ("anon", "/u/bob/followers/"),
    ("bob", "/messages/"),  # the previews of what was sent
]


def tour(world: World, after: str) -> Iterator[tuple[Probe, object]]:
    thread = world.values["thread_post_id"][0]
    conversation = world.values["conversation_id"][0]  # alice and bob's
    pages = [("bob", f"/posts/{thread}/"), ("bob", f"/messages/{conversation}/")]
    for role, path in [*TOUR, *pages]:
        target = urlsplit(path)
        visit = Probe(f"{after} (then {target.path})", role, "GET", path, [], [], False)
        yield visit, _get(world.clients[role], target.path, target.query)
