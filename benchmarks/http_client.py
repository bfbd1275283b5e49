"""The HTTP mix's client side (benchmarks/http_mix.py): a signed-in user's
cookies, one keep-alive connection, and what one request measured (its time,
status, and the round trips and documents of its `Server-Timing` header)."""

import http.client
import re
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode

SERVER_TIMING = re.compile(r'db;desc="(\d+) round trips?, (\d+) docs?"')


@dataclass
class Sample:
    ms: float
    status: int
    trips: int | None
    docs: int | None


@dataclass
class Session:
    """One signed-in user: its cookies, where its feed scrolls to next, whom it followed."""

    handle: str
    cookies: dict[str, str] = field(default_factory=dict)
    next_page: str | None = None
    followed: list[str] = field(default_factory=list)


class Connection:
    """One keep-alive HTTP connection; each request carries a session's cookies."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.http = http.client.HTTPConnection(host, port, timeout=60)

    def request(self, session: Session, method: str, path: str, form=None):
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in session.cookies.items())}
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        try:
            response = self._send(method, path, body, headers)
        except (ConnectionError, http.client.HTTPException):
            # The server closed an idle keep-alive connection: one fresh try.
            self.http.close()
            response = self._send(method, path, body, headers)
        content = response.read()
        ms = (time.perf_counter() - started) * 1000
        for header in response.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    session.cookies.pop(name, None)
                else:
                    session.cookies[name] = morsel.value
        timing = SERVER_TIMING.search(response.getheader("Server-Timing") or "")
        trips, docs = (int(timing[1]), int(timing[2])) if timing else (None, None)
        return Sample(ms, response.status, trips, docs), content.decode("utf-8", "replace")

    def _send(self, method, path, body, headers):
        self.http.request(method, path, body=body, headers=headers)
        return self.http.getresponse()

    def close(self):
        self.http.close()
