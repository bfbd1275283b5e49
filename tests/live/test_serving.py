"""Pages and streams from one ASGI process (socialsite/asgi.py, live/streams.py,
docs/live.md#serving): pages as under WSGI, a stream that delivers an
event within moments, resumes from Last-Event-ID, and costs no thread and
no database round trip while idle."""

import socket
import threading
import time

import requests
from django.conf import settings

from live import broker, topics
from messaging import services as messages
from socialsite import roundtrips
from tests.asgi_server import OpenStream
from tests.conftest import PASSWORD, login_client


class Lines(OpenStream):
    """The browser's stream, as a signed-in tab opens it."""

    def __init__(self, server, cookies, headers=None, path="/live/stream"):
        cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
        super().__init__(server, path, {"Cookie": cookie, **(headers or {})})


def not_the_pool():
    return [thread for thread in threading.enumerate() if not thread.name.startswith("page")]


def cookies_of(user):
    return {
        settings.SESSION_COOKIE_NAME: login_client(user)
        .cookies[settings.SESSION_COOKIE_NAME]
        .value
    }


def test_pages_are_served_as_under_wsgi(asgi_server, make_user):
    make_user("alice")
    session = requests.Session()
    page = session.get(asgi_server.url + "/accounts/login/", timeout=10)
    assert page.status_code == 200 and "csrfmiddlewaretoken" in page.text
    token = session.cookies["csrftoken"]
    answer = session.post(
        asgi_server.url + "/accounts/login/",
        data={"csrfmiddlewaretoken": token, "username": "alice", "password": PASSWORD},
        headers={"Referer": asgi_server.url + "/accounts/login/"},
        allow_redirects=False,
        timeout=10,
    )
    assert answer.status_code in (200, 302)
    assert session.get(asgi_server.url + "/nowhere-at-all/", timeout=10).status_code == 404


def test_a_message_reaches_the_open_stream_and_a_lost_one_is_replayed(asgi_server, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    stream = Lines(asgi_server, cookies_of(alice))
    stream.wait_for("retry:")
    messages.conversation_start(sender=bob, to=["alice"], text="hello")
    lines = stream.wait_for("event: message")
    first_id = next(line[4:] for line in lines if line.startswith("id: "))
    stream.close()
    # While the tab is away, another message; the browser reconnects with
    # the last id it saw and gets it.
    messages.conversation_start(sender=bob, to=["alice"], text="are you there?")
    again = Lines(asgi_server, cookies_of(alice), headers={"Last-Event-ID": first_id})
    lines = again.wait_for("event: message")
    assert sum(line == "event: message" for line in lines) == 1
    again.close()
    # An id the process no longer holds: read afresh.
    stale = Lines(asgi_server, cookies_of(alice), headers={"Last-Event-ID": "0" * 24})
    stale.wait_for("event: resync")
    stale.close()


def test_a_visitor_gets_no_stream(asgi_server):
    answer = requests.get(asgi_server.url + "/live/stream", timeout=10)
    assert answer.status_code == 204


def test_idle_streams_hold_no_thread_and_make_no_round_trip(asgi_server, make_user, settings):
    settings.LIVE_HEARTBEAT_SECONDS = 0.2
    alice = make_user("alice")
    cookie = cookies_of(alice)
    warm = [Lines(asgi_server, cookie) for _ in range(4)]
    for stream in warm:
        stream.wait_for("retry:")
    others = len(not_the_pool())
    streams = []
    for _ in range(40):
        sock = socket.create_connection((asgi_server.host, asgi_server.port))
        name = settings.SESSION_COOKIE_NAME
        head = f"GET /live/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {name}={cookie[name]}"
        sock.sendall(f"{head}\r\n\r\n".encode())
        streams.append(sock)
    for sock in streams:
        assert b"200" in sock.recv(200)
    time.sleep(0.1)
    trips = roundtrips.total()
    time.sleep(0.6)  # heartbeats go out meanwhile
    assert roundtrips.total() == trips
    # Requests ran on the page pool (at most its 4 threads); no other thread came.
    assert len(not_the_pool()) <= others
    assert threading.active_count() - len(not_the_pool()) <= 4
    assert broker.hub().open_streams >= 44
    broker.publish(topics.person("alice"), "notification", {"item": None})
    for sock in streams[:3]:
        sock.settimeout(2)
        seen = b""
        while b"event: notification" not in seen:
            seen += sock.recv(4096)
    for sock in streams:
        sock.close()
    for stream in warm:
        stream.close()
