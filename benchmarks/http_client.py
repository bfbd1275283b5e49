"""The HTTP mix's client side (benchmarks/http_mix.py): a signed-in user's
cookies, one keep-alive connection, and what one operation measured (its time,
status, and the round trips and documents of its `Server-Timing` headers).

An operation is what a browser does. A form's POST answered with a redirect
(302 or 303, as every form of the site answers) is followed at once on the
same connection with the session's cookies: the browser loads the page the
form sends it to, which shows, and so consumes, the flash message ("Posted.",
"You follow Ann.") the POST left in its cookie. Without it the messages
cookie grew with every unread message and every later request carried it.
So an operation's time, round trips and documents are the POST's and its
follow-up page's together; its status is the POST's own, and the follow-up
page's status is kept beside it."""

import http.client
import re
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

SERVER_TIMING = re.compile(r'db;desc="(\d+) round trips?, (\d+) docs?"')
# The answers a browser follows with a GET, whatever the request's method.
REDIRECTS = (302, 303)


@dataclass
class Sample:
    ms: float
    status: int
    trips: int | None
    docs: int | None
    followed: int | None = None  # the status of the page a redirect led to

    @property
    def worst(self) -> int:
        """The status that counts for errors: the follow-up page's failure too."""
        return max(self.status, self.followed or 0)


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

    def request(
        self,
        session: Session,
        method: str,
        path: str,
        form: dict | None = None,
        *,
        follow: bool = True,
    ) -> tuple[Sample, str]:
        """One operation: the request, and for a POST answered with a
        redirect the page it leads to (unless `follow` is false: a sign-in
        that only wants the session cookie). Returns its sample and the page
        the browser ends on."""
        started = time.perf_counter()
        response, content = self._exchange(session, method, path, form)
        trips, docs = _timing(response)
        status, followed = response.status, None
        location = _same_site(response.getheader("Location"), self.host, self.port)
        if follow and method == "POST" and status in REDIRECTS and location:
            response, content = self._exchange(session, "GET", location, None)
            followed = response.status
            more_trips, more_docs = _timing(response)
            trips = _plus(trips, more_trips)
            docs = _plus(docs, more_docs)
        ms = (time.perf_counter() - started) * 1000
        return Sample(ms, status, trips, docs, followed), content.decode("utf-8", "replace")

    def _exchange(
        self, session: Session, method: str, path: str, form: dict | None
    ) -> tuple[http.client.HTTPResponse, bytes]:
        """One request and its answer; the answer's cookies go into the session."""
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in session.cookies.items())}
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            response = self._send(method, path, body, headers)
        except (ConnectionError, http.client.HTTPException):
            # The server closed an idle keep-alive connection: one fresh try.
            self.http.close()
            response = self._send(method, path, body, headers)
        content = response.read()
        for header in response.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    session.cookies.pop(name, None)
                else:
                    session.cookies[name] = morsel.value
        return response, content

    def _send(
        self, method: str, path: str, body: str | None, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        self.http.request(method, path, body=body, headers=headers)
        return self.http.getresponse()

    def close(self) -> None:
        self.http.close()


def _timing(response: http.client.HTTPResponse) -> tuple[int | None, int | None]:
    """Round trips and documents from the answer's `Server-Timing`, if any."""
    timing = SERVER_TIMING.search(response.getheader("Server-Timing") or "")
    return (int(timing[1]), int(timing[2])) if timing else (None, None)


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


def _same_site(location: str | None, host: str, port: int) -> str | None:
    """The path (and query) of a redirect to this server, else None: a
    redirect elsewhere is not this connection's to follow."""
    if not location:
        return None
    parts = urlsplit(location)
    if parts.netloc and (parts.hostname, parts.port or 80) != (host, port):
        return None
    if not parts.path.startswith("/"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")
