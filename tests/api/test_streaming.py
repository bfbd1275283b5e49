"""Mastodon's streaming API (api/streaming/, docs/api.md#streaming): its
streams read by Mastodon.py's StreamListener over Server-Sent Events and by
a plain WebSocket client, against the ASGI application served in the test
process; its errors through the Django test client. Who may see what is
tests/api/test_streaming_visibility.py's."""

import json
import threading
import time
from contextlib import ExitStack

import pytest
from bson import ObjectId
from django.test import Client
from mastodon import Mastodon
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from api import services as api_services
from feeds.services import posts as post_services
from feeds.services import reposts
from messaging import services as messages
from profiles import services as graph
from profiles.documents import User
from profiles.services import filters
from socialsite import roundtrips
from tests.api.conftest import BASE, session_for
from tests.api.streaming import WAIT, RawStream, client, post, stream, token_for


@pytest.fixture(autouse=True)
def _quick_heartbeats(settings):
    # Mastodon.py closes a stream once its reading thread wakes: a heartbeat
    # wakes it (and shows the `:thump` lines are taken).
    settings.LIVE_HEARTBEAT_SECONDS = 0.05


def user(handle: str) -> User:
    return User.objects.get(handle=handle)


def follow(follower: str, followee: str, circles=()) -> None:
    graph.follow_create(follower=user(follower), followee=followee, circles=list(circles))


def test_the_user_stream_sends_the_home_feed_its_reposts_edits_and_notifications(
    asgi_server, make_user
):
    for handle in ("ann", "bob", "carl", "dan"):
        make_user(handle)
    follow("ann", "bob")
    follow("ann", "carl")
    api = client(asgi_server, token_for("ann"))
    # Mastodon.py found the streams where the instance says they are.
    assert api.instance_v1().urls.streaming_api == f"ws://127.0.0.1:{asgi_server.port}"
    handle, events = stream(api.stream_user)
    try:
        posted = post("bob", "hello #news")
        status = events.wait_for("update", lambda s: s.id == posted)
        assert status.account.acct == "bob" and "hello" in status.content
        assert status.visibility == "public" and status.reblog is None

        follow("dan", "ann")
        told = events.wait_for("notification")
        assert told.type == "follow" and told.account.acct == "dan" and told.status is None

        original = post("carl", "worth sharing")
        reposts.repost_create(post_id=ObjectId(original), user=user("bob"))
        shared = events.wait_for("update", lambda s: s.reblog is not None)
        assert shared.account.acct == "bob" and shared.reblog.id == original
        assert shared.reblog.account.acct == "carl" and shared.id != original

        post_services.post_edit(
            post_id=ObjectId(posted), actor=user("bob"), changes={"text": "hello again #news"}
        )
        edited = events.wait_for("status.update")
        assert edited.id == posted and "again" in edited.content
        assert edited.edited_at is not None

        post_services.post_delete(post_id=ObjectId(posted), actor=user("bob"))
        assert events.wait_for("delete") == posted
    finally:
        handle.close()


def test_the_other_streams_through_mastodon_py(asgi_server, make_user):
    for handle in ("ann", "bob", "carl"):
        make_user(handle)
    ann = user("ann")
    graph.circle_create(owner=ann, name="pals")
    follow("ann", "bob", ["pals"])
    api = client(asgi_server, token_for("ann"))
    pals = next(iter(api.lists())).id
    streams = {
        "tag": stream(api.stream_hashtag, "news"),
        "public": stream(api.stream_public),
        "local": stream(api.stream_public, local=True),
        "list": stream(api.stream_list, pals),
        "direct": stream(api.stream_direct),
        "notifications": stream(api.stream_user_notifications),
    }
    try:
        tagged, plain = post("carl", "today's #News"), post("bob", "no tag here")
        events = {name: recorder for name, (_, recorder) in streams.items()}
        assert events["tag"].wait_for("update").id == tagged
        for name in ("public", "local"):
            events[name].wait_for("update", lambda s: s.id == plain)
            assert {s.id for s in events[name].named("update")} == {tagged, plain}
        # The list: its member's post, not carl's.
        assert events["list"].wait_for("update").id == plain
        post_services.post_edit(
            post_id=ObjectId(tagged), actor=user("carl"), changes={"text": "news #news"}
        )
        assert events["tag"].wait_for("status.update").id == tagged

        messages.conversation_start(sender=user("bob"), to=["ann"], text="psst")
        talk = events["direct"].wait_for("conversation")
        assert [a.acct for a in talk.accounts] == ["bob"]
        assert "psst" in talk.last_status.content and talk.last_status.visibility == "direct"
        assert talk.unread is True

        follow("carl", "ann")
        assert events["notifications"].wait_for("notification").account.acct == "carl"
        # The tag stream had the post with its tag, nothing else: no
        # untagged post, no notification.
        assert [s.id for s in events["tag"].named("update")] == [tagged]
        assert events["notifications"].named("update") == []
    finally:
        for handle, _ in streams.values():
            handle.close()


def test_the_framing_is_mastodons_and_a_revoked_token_ends_the_stream(asgi_server, make_user):
    for handle in ("ann", "bob"):
        make_user(handle)
    token = token_for("ann")
    raw = RawStream(asgi_server, "/api/v1/streaming/public?access_token=" + token)
    try:
        lines = raw.wait_for(":thump")
        assert lines[lines.index("") + 1] == ":)"  # after the headers
        posted = post("bob", "soon gone")
        raw.wait_for("event: update")
        post_services.post_delete(post_id=ObjectId(posted), actor=user("bob"))
        # The id as JSON: a string (Mastodon's ids are numbers, ours hex).
        lines = raw.wait_for(f'data: "{posted}"')
        assert lines[lines.index(f'data: "{posted}"') - 1] == "event: delete"
        assert not any(line.startswith(("id:", "retry:")) for line in lines)
        update = next(line for line in lines if line.startswith("data: {"))
        assert json.loads(update[6:])["id"] == posted

        api_services.tokens_revoke_all(user="ann")
        post("bob", "after the revocation")
        assert raw.ended.wait(WAIT), "the stream stayed open"
        assert sum(line == "event: update" for line in raw.lines) == 1
    finally:
        raw.close()


def ws_url(server, query: str = "") -> str:
    return f"ws://{server.host}:{server.port}/api/v1/streaming" + query


def receive(ws) -> dict:
    return json.loads(ws.recv(timeout=WAIT))


def test_one_websocket_carries_several_streams(asgi_server, make_user):
    for handle in ("ann", "bob", "carl"):
        make_user(handle)
    follow("ann", "bob")
    headers = {"Authorization": f"Bearer {token_for('ann')}"}
    with connect(ws_url(asgi_server), additional_headers=headers, proxy=None) as ws:
        ws.send(json.dumps({"type": "subscribe", "stream": "user"}))
        ws.send(json.dumps({"type": "subscribe", "stream": "hashtag", "tag": "news"}))
        # An unknown stream is an error message; the socket stays.
        ws.send(json.dumps({"type": "subscribe", "stream": "nonsense"}))
        assert receive(ws) == {"error": "Unknown stream type", "status": 400}
        ws.send(json.dumps({"type": "subscribe", "stream": "hashtag"}))
        assert receive(ws) == {"error": "Missing tag name parameter", "status": 400}
        ws.send(json.dumps({"type": "subscribe", "stream": "list", "list": "0" * 24}))
        assert receive(ws) == {"error": "Record not found", "status": 404}
        ws.send("not json")
        ws.send(json.dumps(["nor", "this"]))

        tagged = post("carl", "big #news")
        got = receive(ws)
        assert got["stream"] == ["hashtag", "news"] and got["event"] == "update"
        assert json.loads(got["payload"])["id"] == tagged
        home = post("bob", "for my followers")
        got = receive(ws)
        assert got["stream"] == ["user"] and json.loads(got["payload"])["id"] == home

        ws.send(json.dumps({"type": "unsubscribe", "stream": "hashtag", "tag": "news"}))
        ws.send(json.dumps({"type": "unsubscribe", "stream": "nonsense"}))
        assert receive(ws) == {"error": "Error unsubscribing from channel"}
        post("carl", "more #news")  # no longer heard
        both = post("bob", "#news from bob")
        got = receive(ws)
        assert got["stream"] == ["user"] and json.loads(got["payload"])["id"] == both

        post_services.post_delete(post_id=ObjectId(both), actor=user("bob"))
        assert receive(ws) == {"stream": ["user"], "event": "delete", "payload": both}


def test_a_websocket_takes_mastodons_other_token_places_and_refuses_a_bad_one(
    asgi_server, make_user
):
    for handle in ("ann", "bob"):
        make_user(handle)
    token = token_for("ann")
    # The token as the subprotocol (said back), and `?stream=` at once.
    with connect(ws_url(asgi_server, "?stream=public"), subprotocols=[token], proxy=None) as ws:
        assert ws.subprotocol == token
        posted = post("bob", "to everyone")
        got = receive(ws)
        assert got["stream"] == ["public"] and json.loads(got["payload"])["id"] == posted
        # A revoked token ends the socket at its next event.
        api_services.tokens_revoke_all(user="ann")
        post("bob", "again")
        with pytest.raises(Exception):
            ws.recv(timeout=WAIT)
    for query, headers, status in [
        ("", {}, 401),
        ("?access_token=nope", {}, 401),
        ("", {"Authorization": "Bearer nope"}, 401),
        ("?access_token=" + token_for(None), {}, 422),  # an app's own token
    ]:
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url(asgi_server, query), additional_headers=headers, proxy=None)
        assert refused.value.response.status_code == status
        assert "error" in json.loads(refused.value.response.body)
    # A token without a read scope opens the socket; its streams are refused.
    push = token_for("ann", scopes=("push",))
    with connect(ws_url(asgi_server, "?access_token=" + push), proxy=None) as ws:
        ws.send(json.dumps({"type": "subscribe", "stream": "user:notification"}))
        assert receive(ws)["status"] == 403


def test_bad_requests_are_json_errors(make_user, settings):
    settings.RATELIMIT_ENABLED = False
    make_user("ann")
    web = Client()
    read, push, app = token_for("ann"), token_for("ann", ("push",)), token_for(None)

    def get(path: str, token: str | None = None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return web.get(f"/api/v1/streaming{path}", secure=True, headers=headers)

    health = get("/health")
    assert (health.status_code, health.content) == (200, b"OK")
    assert health["Content-Type"].startswith("text/plain")
    for path, token, status in [
        ("/user", None, 401),
        ("/user", "nope", 401),
        ("/user", push, 403),
        ("/user", app, 422),
        ("/public?access_token=nope", None, 401),
        ("/hashtag", read, 400),
        ("/hashtag?tag=", read, 400),
        ("/list", read, 400),
        ("/list?list=nope", read, 404),
        ("/list?list=" + "a" * 24, read, 404),
        ("/nonsense", read, 400),
        ("/user/nonsense/deeper", read, 400),
        ("", read, 404),  # no `stream`: Mastodon's answer when streams are on this host
        ("?stream=nonsense", read, 400),
        ("?stream=hashtag", read, 400),
        ("?stream=user:notification", push, 403),
    ]:
        answer = get(path, token)
        assert answer.status_code == status, (path, answer.status_code, answer.content[:200])
        assert "error" in answer.json(), path
    # Under the test client (WSGI) a stream that opens answers at once.
    for path in ("/user", "/public/local?only_media=1", "/hashtag/local?tag=x", "?stream=direct"):
        answer = get(path, read)
        assert answer.status_code == 200, path
        assert answer["Content-Type"] == "text/event-stream"
    assert get("/user?access_token=" + read).status_code == 200


def test_the_instance_names_the_streams(make_user):
    api = Mastodon(api_base_url=BASE, session=session_for(), version_check_mode="none")
    assert api.instance_v1().urls.streaming_api == "wss://testserver"
    assert api.instance_v2().configuration.urls.streaming == "wss://testserver"


def test_idle_websockets_hold_no_thread_and_make_no_round_trip(asgi_server, make_user):
    make_user("ann")
    url = ws_url(asgi_server, f"?stream=user&access_token={token_for('ann')}")
    with ExitStack() as sockets:
        opened = [sockets.enter_context(connect(url, proxy=None)) for _ in range(20)]
        threads = threading.active_count()
        trips = roundtrips.total()
        time.sleep(0.3)
        assert roundtrips.total() == trips
        assert threading.active_count() <= threads
        # Each still hears its person's events: a new filter, here.
        filters.keyword_filter_create(
            user=user("ann"), phrase="spoiler", contexts=["home"], action="hide", expires_in=None
        )
        for ws in opened:
            assert receive(ws) == {"stream": ["user"], "event": "filters_changed"}
