"""Every outgoing federation HTTP request: actor and object fetches, WebFinger,
deliveries to inboxes.

A remote server chooses the URLs we fetch (an actor's inbox, a key id, a
redirect), so each one is a server-side request forgery risk (OWASP "Server
Side Request Forgery Prevention Cheat Sheet"). The guard has two layers:

- `check_url` before any connection: http(s) only, a host, no userinfo, and
  every address the host resolves to is public (no loopback, private,
  link-local, multicast, reserved or unspecified address, nor an IPv4-mapped
  IPv6 address of one; 6to4 and NAT64 addresses are refused outright).
  `FEDERATION_ALLOW_LOOPBACK` lets loopback through (tests, two instances on
  one machine), nothing else.
- the connection itself: urllib3 resolves the host again when it connects, so
  a name that answered a public address to `check_url` and a private one a
  moment later (DNS rebinding) would slip past the first check. Our
  connection classes check the address the socket is actually connected to
  (`getpeername`) before a byte is sent, and refuse it by the same rules.
  The same check covers any disagreement between our URL parser and urllib3's.

Redirects are followed by hand (at most `MAX_REDIRECTS`, each hop checked,
never from https down to http); POSTs never follow one. Bodies are streamed
and cut at `FEDERATION_FETCH_MAX_BYTES` (decoded size, so a compressed bomb
is cut too). Each connect and each read waits at most
`FEDERATION_FETCH_TIMEOUT` seconds, and a GET's body is abandoned once twice
that has passed since the fetch began, so a server that drips a byte at a
time cannot hold a worker (the overrun is at most one read timeout). Gap: the
status line and headers are bounded only by the per-read timeout and
http.client's own limits (100 headers of 64 KiB), not by that deadline.
The session ignores the
environment (`trust_env = False`): no proxy variables (a proxy would be the
peer we check, and would fetch anything for us) and no ~/.netrc credentials.
"""

import ipaddress
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError as Urllib3Error

Signer = Callable[[str, str, bytes | None], dict[str, str]]
IP = ipaddress.IPv4Address | ipaddress.IPv6Address

ACTIVITY_ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
JRD_ACCEPT = "application/jrd+json, application/json"
MAX_REDIRECTS = 3
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024


class FetchError(Exception):
    """A fetch failed: status, size, timeout, bad JSON (the message says which)."""


class AddressRefused(FetchError):
    """The SSRF guard refused the URL or the address it reached (nothing was sent)."""


def _allow_loopback() -> bool:
    return bool(getattr(settings, "FEDERATION_ALLOW_LOOPBACK", False))


def _timeout() -> float:
    return float(getattr(settings, "FEDERATION_FETCH_TIMEOUT", 5))


def _max_bytes() -> int:
    return int(getattr(settings, "FEDERATION_FETCH_MAX_BYTES", 1_000_000))


def _user_agent() -> str:
    agent = getattr(settings, "FEDERATION_USER_AGENT", None)
    if agent:
        return str(agent)
    site = getattr(settings, "SITE_URL", "")
    return f"Socialsite/0.1 (+{site})" if site else "Socialsite/0.1"


def _refusal(ip: IP, *, allow_loopback: bool) -> str | None:
    """Why `ip` is no address to connect to, or None when it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        if ip.ipv4_mapped is not None:
            # Judged as the IPv4 address it is, but never loopback by this side
            # door: only 127.0.0.0/8 and ::1 themselves.
            inner = _refusal(ip.ipv4_mapped, allow_loopback=False)
            return f"IPv4-mapped {inner}" if inner else None
        # 6to4 (2002::/16) counts as private and NAT64 (64:ff9b::/96) falls in
        # the reserved ::/8, so no private IPv4 address hides in either.
    if ip.is_loopback:
        return None if allow_loopback else "loopback"
    for kind in ("unspecified", "link_local", "multicast", "private", "reserved"):
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    # Shared address space (100.64.0.0/10) and the like: not private, not public.
    return None if ip.is_global else "non-public"


def _refuse_address(ip: IP, where: str) -> None:
    reason = _refusal(ip, allow_loopback=_allow_loopback())
    if reason is not None:
        raise AddressRefused(f"{where}: refused {reason} address {ip}")


def check_url(url: str) -> None:
    """Refuse (AddressRefused) a URL we must not fetch; FetchError if its host
    does not resolve. Any refused address among the host's refuses it all."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise AddressRefused(f"{url!r}: not a valid URL") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise AddressRefused(f"{url!r}: scheme {scheme or 'none'} is not http(s)")
    if not host:
        raise AddressRefused(f"{url!r}: no host")
    if "@" in parts.netloc:
        raise AddressRefused(f"{url!r}: credentials in a URL are refused")
    try:
        literal: IP | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        _refuse_address(literal, url)
        return
    try:
        infos = socket.getaddrinfo(
            host, port or (443 if scheme == "https" else 80), type=socket.SOCK_STREAM
        )
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"{url!r}: cannot resolve {host}") from exc
    if not infos:
        raise FetchError(f"{url!r}: {host} has no address")
    for info in infos:
        _refuse_address(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]), url)


def _check_peer(sock: socket.socket, host: str) -> None:
    """The address the socket reached, by the rules of `check_url`."""
    peer = str(sock.getpeername()[0]).split("%", 1)[0]
    try:
        _refuse_address(ipaddress.ip_address(peer), f"connection to {host}")
    except AddressRefused:
        sock.close()
        raise


class _GuardedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        _check_peer(sock, self.host)
        return sock


class _GuardedHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:
        # Checked before the TLS handshake: nothing is sent to a refused peer.
        sock = super()._new_conn()
        _check_peer(sock, self.host)
        return sock


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _GuardedHTTPConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _GuardedHTTPSConnection


class _GuardedAdapter(HTTPAdapter):
    """requests' adapter over pools of guarded connections (no retries)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _GuardedHTTPPool,
            "https": _GuardedHTTPSPool,
        }


_local = threading.local()


def _session() -> requests.Session:
    """One session per thread (requests' sessions are not thread-safe), so a
    worker's deliveries to one server reuse its connections."""
    session = getattr(_local, "session", None)
    if session is None:
        session = requests.Session()
        session.trust_env = False
        for prefix in ("http://", "https://"):
            session.mount(prefix, _GuardedAdapter())
        _local.session = session
    return session


def _send(
    method: str, url: str, *, headers: dict[str, str], body: bytes | None, timeout: float
) -> requests.Response:
    try:
        return _session().request(
            method,
            url,
            headers=headers,
            data=body,
            timeout=timeout,
            allow_redirects=False,
            stream=True,
        )
    except requests.Timeout as exc:
        raise FetchError(f"{method} {url}: timed out after {timeout:g}s") from exc
    except (requests.RequestException, Urllib3Error, OSError) as exc:
        raise FetchError(f"{method} {url}: {type(exc).__name__}: {exc}") from exc


def _read(response: requests.Response, *, limit: int, deadline: float) -> bytes:
    """The body, or FetchError past `limit` bytes or the deadline. `read1`
    returns what has arrived, so the deadline is checked as data drips in."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise FetchError(f"{response.url}: body of {declared} bytes is over {limit}")
    chunks: list[bytes] = []
    size = 0
    try:
        while chunk := response.raw.read1(_CHUNK, decode_content=True):
            size += len(chunk)
            if size > limit:
                raise FetchError(f"{response.url}: body over {limit} bytes")
            if time.monotonic() > deadline:
                raise FetchError(f"{response.url}: body too slow, timed out")
            chunks.append(chunk)
    except (Urllib3Error, OSError) as exc:
        raise FetchError(f"{response.url}: reading the body: {type(exc).__name__}") from exc
    return b"".join(chunks)


def _get(url: str, *, accept: str, sign: Signer | None) -> dict:
    timeout = _timeout()
    deadline = time.monotonic() + 2 * timeout
    for _hop in range(MAX_REDIRECTS + 1):
        check_url(url)
        headers = {"Accept": accept, "User-Agent": _user_agent()}
        if sign is not None:
            headers.update(sign("GET", url, None))
        with _send("GET", url, headers=headers, body=None, timeout=timeout) as response:
            status = response.status_code
            if status in _REDIRECTS:
                location = response.headers.get("Location")
                if not location:
                    raise FetchError(f"{url}: HTTP {status} without a Location")
                target = urljoin(url, location)
                if url.lower().startswith("https:") and not target.lower().startswith("https:"):
                    raise AddressRefused(f"{url}: redirect from https down to {target}")
                url = target
                continue
            if not 200 <= status < 300:
                raise FetchError(f"{url}: HTTP {status}")
            body = _read(response, limit=_max_bytes(), deadline=deadline)
        try:
            doc = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise FetchError(f"{url}: body is not JSON") from exc
        if not isinstance(doc, dict):
            raise FetchError(f"{url}: JSON is a {type(doc).__name__}, not an object")
        return doc
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


def get_json(url: str, *, sign: Signer | None = None, accept: str = ACTIVITY_ACCEPT) -> dict:
    """An ActivityStreams document (a JSON object) at `url`, following at most
    `MAX_REDIRECTS` redirects. `sign(method, url, body)` gives the headers
    that sign each hop (HTTP Signatures, as Mastodon's "secure mode" wants
    for fetches too)."""
    return _get(url, accept=accept, sign=sign)


def get_jrd(url: str) -> dict:
    """A WebFinger document (RFC 7033 JRD), unsigned, under the same limits."""
    return _get(url, accept=JRD_ACCEPT, sign=None)


def post_json(url: str, body: bytes, *, sign: Signer | None = None) -> int:
    """POST an activity to an inbox; the response status (a redirect is a
    status, never followed: the signature is for this URL)."""
    check_url(url)
    timeout = _timeout()
    headers = {
        "Content-Type": "application/activity+json",
        "Accept": "application/activity+json",
        "User-Agent": _user_agent(),
    }
    if sign is not None:
        headers.update(sign("POST", url, body))
    with _send("POST", url, headers=headers, body=body, timeout=timeout) as response:
        # The status is the answer; the body is read (capped) only so the
        # connection can be reused, and a failure reading it changes nothing.
        left = _max_bytes()
        deadline = time.monotonic() + timeout
        try:
            while left > 0 and time.monotonic() < deadline:
                chunk = response.raw.read1(min(_CHUNK, left), decode_content=True)
                if not chunk:
                    break
                left -= len(chunk)
        except (Urllib3Error, OSError):
            pass
        return response.status_code
