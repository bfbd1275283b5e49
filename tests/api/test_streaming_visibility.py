"""Who hears what on the streaming API (docs/api.md#streaming,
docs/privacy.md): the REST timelines' rules, applied per reader when each
event is sent. A blocked, muted or filtered author's post never reaches
the streams of who blocked, muted or filtered them, nor a blocker's post
the person they blocked; a circle post only its circle's members; a removed
post no one. A block made while a stream is open counts for its next event.

Some events are forged on the person's own topic (what fan-out would not
send, but a stream must refuse all the same): the check is the stream's.
Each case ends with a post everyone may see: events reach a stream in
order, so once it arrives, nothing before it is still on its way."""

import json
from contextlib import contextmanager

import pytest
from bson import ObjectId
from websockets.sync.client import connect

from api import circles as list_ids
from feeds.services import posts as post_services
from live import broker, topics
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from profiles.services import filters
from tests.api.streaming import WAIT, post, token_for


@pytest.fixture(autouse=True)
def _quick_heartbeats(settings):
    settings.LIVE_HEARTBEAT_SECONDS = 0.2


def user(handle: str) -> User:
    return User.objects.get(handle=handle)


@contextmanager
def socket(server, handle: str, *subscriptions: dict):
    """A WebSocket of `handle`'s, subscribed to `subscriptions` (all in place
    when it is given: a last, bad one is answered after them)."""
    url = f"ws://{server.host}:{server.port}/api/v1/streaming?access_token={token_for(handle)}"
    with connect(url, proxy=None) as ws:
        for subscription in subscriptions:
            ws.send(json.dumps({"type": "subscribe", **subscription}))
        ws.send(json.dumps({"type": "subscribe", "stream": "none such"}))
        assert "error" in json.loads(ws.recv(timeout=WAIT))
        yield ws


def until(ws, status_id: str, *streams: str) -> dict[str, list[str]]:
    """What each stream was sent, up to `status_id`'s update on every one of
    `streams` ("public", "hashtag:news"): by stream and event, the status
    ids (a notification's: its account; a delete's: its payload)."""
    seen: dict[str, list[str]] = {}
    waiting = set(streams)
    while waiting:
        message = json.loads(ws.recv(timeout=WAIT))
        stream = ":".join(message["stream"])
        if message["event"] == "delete":
            seen.setdefault(f"{stream} delete", []).append(message["payload"])
        if message["event"] not in ("update", "notification", "status.update"):
            continue
        payload = json.loads(message["payload"])
        notified = message["event"] == "notification"
        seen.setdefault(f"{stream} {message['event']}", []).append(
            payload["account"]["acct"] if notified else payload["id"]
        )
        if not notified and payload["id"] == status_id:
            waiting.discard(stream)
    return seen


def forge(handle: str, post_id: str, author: str) -> None:
    """A news entry's event for `handle`, as if fan-out had delivered it."""
    data = {"post": post_id, "author": author, "repost_by": None}
    broker.publish(topics.person(handle), "feed", data)


def hide(handle: str, phrase: str, contexts: list[str], action: str = "hide") -> None:
    filters.keyword_filter_create(
        user=user(handle), phrase=phrase, contexts=contexts, action=action, expires_in=None
    )


def test_public_and_hashtag_streams_apply_blocks_mutes_filters_and_circles(asgi_server, make_user):
    for handle in ("ann", "bob", "carl", "dan", "eve", "gil", "mod"):
        make_user(handle)
    moderator = make_user("boss", role="moderator")
    ann = user("ann")
    graph.block_create(blocker=ann, blocked="dan")
    graph.block_create(blocker=user("eve"), blocked="ann")
    graph.mute_create(user=ann, handle="carl")
    hide("ann", "spoiler", ["public"])
    graph.circle_create(owner=user("bob"), name="pals")
    graph.follow_create(follower=user("bob"), followee="gil", circles=["pals"])
    removed = post("gil", "#news a moderator removes")
    moderation.post_remove(moderator=moderator, target=Target("post", removed))
    both = ("public", "hashtag:news")
    with (
        socket(
            asgi_server, "ann", {"stream": "public"}, {"stream": "hashtag", "tag": "news"}
        ) as anns,
        socket(asgi_server, "dan", {"stream": "public"}) as dans,
    ):
        shown = post("bob", "one #news")
        post("bob", "#news for pals only", ["pals"])
        post("dan", "#news from someone ann blocked")
        post("eve", "#news from someone who blocked ann")
        post("carl", "#news from someone ann muted")
        post("gil", "#news with a spoiler")
        broker.publish(topics.POSTS, "post", {"post": removed, "author": "gil"})
        from_ann = post("ann", "#news that dan must not see")  # her own: she sees it
        seen = until(anns, from_ann, *both)
        assert seen["public update"] == seen["hashtag:news update"] == [shown, from_ann]

        graph.block_create(blocker=ann, blocked="bob")  # while the streams are open
        post("bob", "#news after ann blocked bob")
        last = post("gil", "last #news")
        seen = until(anns, last, *both)
        assert seen["public update"] == seen["hashtag:news update"] == [last]
        dan_saw = until(dans, last, "public")["public update"]
        assert from_ann not in dan_saw and shown in dan_saw and last in dan_saw


def test_the_user_stream_applies_the_home_rules_when_it_sends(asgi_server, make_user):
    for handle in ("ann", "bob", "carl", "dan", "eve", "gil"):
        make_user(handle)
    moderator = make_user("boss", role="moderator")
    ann = user("ann")
    for followee in ("bob", "carl", "gil"):
        graph.follow_create(follower=ann, followee=followee, circles=[])
    graph.mute_create(user=ann, handle="carl")
    graph.block_create(blocker=user("eve"), blocked="ann")
    hide("ann", "spoiler", ["home", "notifications"])
    hide("ann", "rumour", ["home"], action="warn")
    graph.circle_create(owner=user("bob"), name="inner")
    # Removed before the stream opens (its own delivery could be sent first).
    removed = post("gil", "soon removed")
    moderation.post_remove(moderator=moderator, target=Target("post", removed))
    with socket(asgi_server, "ann", {"stream": "user"}) as ws:
        post("carl", "muted, though delivered")
        post("gil", "a spoiler, though delivered")
        warned = post("gil", "a rumour")
        forge("ann", post("bob", "for the inner circle", ["inner"]), "bob")
        forge("ann", post("eve", "from a blocker"), "eve")
        forge("ann", removed, "gil")
        graph.follow_create(follower=user("carl"), followee="ann", circles=[])  # muted: untold
        graph.block_create(blocker=ann, blocked="bob")  # while the stream is open
        forge("ann", post("bob", "after the block"), "bob")
        graph.follow_create(follower=user("dan"), followee="ann", circles=[])
        last = post("gil", "plain")

        seen = until(ws, last, "user")
        assert seen["user update"] == [warned, last]
        assert seen["user notification"] == ["dan"]


def test_the_warn_filter_is_folded_not_hidden(asgi_server, make_user):
    for handle in ("ann", "gil"):
        make_user(handle)
    graph.follow_create(follower=user("ann"), followee="gil", circles=[])
    hide("ann", "rumour", ["home"], action="warn")
    url = f"ws://{asgi_server.host}:{asgi_server.port}/api/v1/streaming"
    with connect(f"{url}?stream=user&access_token={token_for('ann')}", proxy=None) as ws:
        warned = post("gil", "a rumour")
        status = json.loads(json.loads(ws.recv(timeout=WAIT))["payload"])
        assert status["id"] == warned
        assert [f["filter"]["filter_action"] for f in status["filtered"]] == ["warn"]


def test_a_circle_post_reaches_its_members_streams_only(asgi_server, make_user):
    for handle in ("ann", "bob", "carl", "gil"):
        make_user(handle)
    ann, bob = user("ann"), user("bob")
    graph.circle_create(owner=bob, name="close")
    graph.circle_create(owner=bob, name="far")
    graph.follow_create(follower=bob, followee="ann", circles=["close"])
    graph.follow_create(follower=bob, followee="gil", circles=["far"])
    for reader in ("ann", "gil"):
        graph.follow_create(follower=user(reader), followee="bob", circles=[])
    graph.circle_create(owner=ann, name="pals")
    for member in ("bob", "carl"):
        graph.follow_create(follower=ann, followee=member, circles=["pals"])
    pals = list_ids.list_ids(user("ann"))["pals"]
    with (
        socket(asgi_server, "ann", {"stream": "user"}, {"stream": "list", "list": pals}) as anns,
        socket(asgi_server, "gil", {"stream": "user"}, {"stream": "public"}) as gils,
    ):
        close = post("bob", "for the close circle", ["close"])
        far = post("bob", "for the far circle", ["far"])
        assert until(gils, far, "user") == {"user update": [far]}
        graph.circle_remove_member(owner=user("ann"), name="pals", member="carl")
        carls = post("carl", "no longer on ann's list")  # still in her home feed
        # Its going is told only to whom it was shown: not to ann, nor publicly.
        post_services.post_delete(post_id=ObjectId(far), actor=bob)
        last = post("bob", "for everyone")

        seen = until(anns, last, "user", f"list:{pals}")
        assert seen["user update"] == [close, carls, last]
        assert seen[f"list:{pals} update"] == [close, last]
        assert "user delete" not in seen and f"list:{pals} delete" not in seen
        seen = until(gils, last, "user", "public")
        assert seen["user update"] == [last]
        assert seen["public update"] == [carls, last]  # a circle post is never public
        assert seen["user delete"] == [far] and "public delete" not in seen
