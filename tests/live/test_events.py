"""What the apps' writes publish (live/receivers.py, docs/live.md#what-streams):
each event on the topic of those it concerns, after the write it announces
has landed, carrying ids only; and the hub's replay and overflow rules."""

import asyncio
import threading

import pytest

from comments import services as comments
from feeds.services import likes
from feeds.services import posts as feed_posts
from live import broker, topics
from live.broker import RESYNC, Event, Hub
from messaging import services as messages
from profiles import services as graph
from socialsite.clock import now
from timelines.stores import get_store


class Recorder:
    """A transport that keeps what is published, and what the news of each
    reader held at that moment."""

    def __init__(self):
        self.events: list[Event] = []
        self.news_then: dict[str, list[str]] = {}

    def publish(self, event):
        self.publish_many([event])

    def publish_many(self, events):
        for event in events:
            if event.kind == "feed":
                reader = event.topic.split(":", 1)[1]
                page = get_store().entries("news", reader, None, 10).entries
                self.news_then[reader] = [str(entry["id"]) for entry in page]
            self.events.append(event)

    def listen(self, hub):
        pass

    def on(self, topic, kind=None):
        return [e for e in self.events if e.topic == topic and kind in (None, e.kind)]


@pytest.fixture
def recorder(monkeypatch, settings):
    settings.FEED_MODEL = "cache"  # a model that stores news entries
    recorded = Recorder()
    monkeypatch.setattr(broker, "transport", lambda: recorded)
    return recorded


def post(author, text="Hello", circles=("*public*",)):
    return feed_posts.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles)
    )


def test_a_post_reaches_its_readers_topics_after_their_entries_are_written(recorder, make_user):
    alice = make_user("alice")
    for handle in ("bob", "cid"):
        graph.follow_create(follower=make_user(handle, last_seen=now()), followee="alice")
    made = post(alice, "Hello #Python")
    for reader in ("bob", "cid"):
        (event,) = recorder.on(topics.person(reader), "feed")
        assert event.data == {"post": str(made.id), "author": "alice", "repost_by": None}
        # Published after the fan-out wrote it: a page read then shows it.
        assert recorder.news_then[reader] == [str(made.id)]
    assert [e.data["post"] for e in recorder.on(topics.POSTS)] == [str(made.id)]
    assert [e.data["post"] for e in recorder.on(topics.tag("python"))] == [str(made.id)]
    feed_posts.post_delete(post_id=made.id, actor=alice)
    # With its author and audience: streams tell only those who could have seen it.
    (gone,) = recorder.on(topics.CHANGES, "delete")
    assert gone.data == {
        "post": str(made.id),
        "author": "alice",
        "circles": ["*public*"],
        "to": None,
        "tags": ["python"],
    }


def test_a_circle_post_reaches_only_the_circle(recorder, make_user):
    alice = make_user("alice")
    for handle in ("bob", "cid"):
        graph.follow_create(follower=make_user(handle, last_seen=now()), followee="alice")
    graph.follow_create(follower=alice, followee="bob")
    graph.circle_create(owner=alice, name="close")
    graph.circle_add_member(owner=alice, name="close", member="bob")
    alice.reload()
    post(alice, "Just us", circles=["close"])
    assert len(recorder.on(topics.person("bob"), "feed")) == 1
    assert recorder.on(topics.person("cid")) == []


def test_notifications_messages_and_comments_go_to_those_they_concern(recorder, make_user):
    alice, bob, cid = make_user("alice"), make_user("bob"), make_user("cid")
    made = post(alice)
    likes.like_create(post_id=made.id, user=bob)
    (told,) = recorder.on(topics.person("alice"), "notification")
    assert told.data["kind"] == "like" and told.data["counted"] is True
    conversation = messages.conversation_start(sender=bob, to=["alice", "cid"], text="Hi both")
    for handle in ("alice", "bob", "cid"):
        (event,) = recorder.on(topics.person(handle), "message")
        assert event.data["conversation"] == str(conversation) and event.data["by"] == "bob"
    comment = comments.comment_create(
        post={"_id": made.id, "by": {"id": "alice"}}, author=cid, text="Nice"
    )
    (event,) = recorder.on(topics.post(str(made.id)), "comment")
    assert event.data == {"slug": comment.slug, "by": "cid"}


def test_nothing_is_published_for_a_notification_a_block_stopped(recorder, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    made = post(alice)
    graph.block_create(blocker=alice, blocked="bob")
    recorder.events.clear()
    with pytest.raises(likes.LikeError):  # the post is not there for bob
        likes.like_create(post_id=made.id, user=bob)
    assert recorder.on(topics.person("alice"), "notification") == []


def test_the_hub_replays_after_an_id_and_resyncs_an_unknown_or_overflowing_one(settings):
    settings.LIVE_QUEUE_MAX = 3
    hub = Hub(replay=4)
    sent = [Event(id=str(n), topic="user:a" if n % 2 else "user:b", kind="feed") for n in range(8)]

    async def run():
        sub = hub.subscribe(["user:a"])
        for event in sent:
            hub.deliver(event)
        await asyncio.sleep(0)
        assert [e.id for e in hub.since(["user:a"], "4")] == ["5", "7"]
        assert hub.since(["user:a"], "2") is None  # older than the latest four
        # Three queued, the fourth found the queue full: the stream will resync.
        assert sub.queue.qsize() == 3 and sub.overflowed
        for _ in range(3):
            sub.queue.get_nowait()
        hub.lost_events()  # the transport reconnected: events may have gone by
        await asyncio.sleep(0)
        assert sub.queue.get_nowait().kind == RESYNC
        assert hub.open_streams == 1
        sub.close()
        assert hub.open_streams == 0

    # On a thread of its own: a browser test before it on this worker may
    # leave its event loop running on this one (Playwright's sync API).
    failures = []
    thread = threading.Thread(target=lambda: failures.append(_run(run)))
    thread.start()
    thread.join(10)
    assert failures == [None]


def _run(coroutine_function):
    try:
        asyncio.run(coroutine_function())
    except BaseException as exc:  # re-raised by the test on its own thread
        return exc
    return None
