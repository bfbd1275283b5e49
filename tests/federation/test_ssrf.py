"""Outgoing fetches never reach loopback, private or link-local addresses
unless FEDERATION_ALLOW_LOOPBACK lets loopback through (docs/federation.md#moderation-and-safety):
a server on this machine stands ready and counts every connection."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from feeds.documents import Post
from profiles.documents import User
from tests.api.conftest import logged_in
from tests.conftest import login_client
from tests.federation.test_inbox import note


@pytest.fixture
def listener():
    """An HTTP server on 127.0.0.1 that records each request it gets."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(404)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def test_resolving_a_handle_on_loopback_or_a_private_address_fetches_nothing(
    make_user, listener, settings
):
    host, hits = listener
    settings.FEDERATION_ALLOW_LOOPBACK = False
    api = logged_in(login_client(make_user("alice")))
    for query in (f"@ada@{host}", "@ada@10.0.0.5", "@ada@169.254.169.254", "@ada@localhost"):
        assert api.search_v2(query, resolve=True)["accounts"] == []
    assert hits == []
    assert not User.objects(domain__ne=None).count()


def test_a_key_on_loopback_is_never_fetched_and_the_activity_refused(remote, listener, make_user):
    host, hits = listener
    make_user("alice")
    remote.person("ada")
    body = json.dumps(
        {
            "id": f"http://{host}/f",
            "type": "Follow",
            "actor": f"http://{host}/users/ada",
            "object": "http://testserver/u/alice/",
        }
    ).encode()
    headers = remote.signed("ada", body)
    headers["Signature"] = headers["Signature"].replace(
        remote.actor_id("ada"), f"http://{host}/users/ada"
    )
    assert remote.post(body, headers).status_code == 401
    assert hits == []


def test_an_attachment_on_a_private_address_is_linked_never_fetched(remote, listener, make_user):
    host, hits = listener
    make_user("alice")
    activity = note(remote, "ada", 1)
    activity["object"]["attachment"] = [
        {
            "type": "Document",
            "mediaType": "image/png",
            "url": f"http://{host}/x.png",
            "name": "a cat",
        }
    ]
    assert remote.deliver("ada", activity).status_code == 202
    post = Post.objects.get(by__id="ada@remote.example")
    assert post.detail["attachments"][0]["url"] == f"http://{host}/x.png"
    assert hits == []


def test_with_loopback_allowed_the_same_handle_is_asked(make_user, listener, settings):
    """The control: the listener does count what reaches it."""
    host, hits = listener
    settings.FEDERATION_ALLOW_LOOPBACK = True
    api = logged_in(login_client(make_user("alice")))
    assert api.search_v2(f"@ada@{host}", resolve=True)["accounts"] == []
    assert hits and hits[0].startswith("/.well-known/webfinger?resource=acct")
