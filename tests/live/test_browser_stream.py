"""The browser's side of live updates (live/views.py, live/browser.py,
docs/live.md#in-the-browser): which topics a tab's stream listens to (a
post's only when its page would show it, the pulled authors and followed
tags on the news feed), which events it is sent, the header's counts, an
open conversation's newer messages, and the stream under WSGI and ASGI."""

import json
import re

import pytest
from bson import ObjectId

from comments import services as comments
from feeds.documents import PUBLIC
from feeds.selectors import pages
from feeds.services import likes
from feeds.services import posts as feeds
from live.broker import Event
from messaging import services as messaging
from messaging.documents import Conversation
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.services import mutes
from socialsite.cursors import EPOCH
from tests.conftest import login_client, user
from tests.live.test_serving import Lines, cookies_of
from timelines.delivery import pulled as pulling


def say(author: str, text: str, circles=(PUBLIC,)):
    return feeds.post_create(
        author=user(author), type="status", detail={"text": text}, circles=list(circles)
    )


def stream_of(client, query: str = ""):
    """The view's EventStream (the test client is WSGI: it is not served)."""
    return client.get("/live/stream" + query)


@pytest.fixture
def cast(make_user):
    for handle in ("ann", "bob", "cyd", "dan"):
        make_user(handle)
    make_user("mod", role="moderator")
    graph.circle_create(owner=user("cyd"), name="close")
    graph.follow_create(follower=user("cyd"), followee="ann", circles=["close"])


def test_a_visitor_gets_204_and_no_counts(client):
    assert client.get("/live/stream").status_code == 204
    counts = client.get("/live/counts")
    assert counts.status_code == 403 and counts["Cache-Control"] == "no-store"


def test_under_wsgi_the_stream_asks_to_come_back_later_and_ends(cast, settings):
    response = stream_of(login_client(user("ann")))
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert b"".join(response.streaming_content) == (
        f"retry: {settings.LIVE_WSGI_RETRY_MS}\n\n".encode()
    )


def test_a_post_is_listened_to_only_where_its_page_would_show_it(cast):
    ann = login_client(user("ann"))
    public = say("bob", "for everyone")
    close = say("cyd", "for my close circle", circles=["close"])
    others = say("dan", "mine")
    removed = say("bob", "soon removed")
    moderation.post_remove(moderator=user("mod"), target=resolve_target(f"post:{removed.id}"))
    deleted = say("bob", "soon deleted")
    feeds.post_delete(post_id=deleted.id, actor=user("bob"))

    def topics(post_id) -> set:
        return set(stream_of(ann, f"?post={post_id}").topics)

    assert topics(public.id) == {"user:ann", f"post:{public.id}"}
    assert f"post:{close.id}" in topics(close.id)  # cyd put ann in "close"
    graph.circles_set_for(owner=user("cyd"), member="ann", circles=[])
    assert topics(close.id) == {"user:ann"}  # out of the circle
    for gone in (removed, deleted):
        assert topics(gone.id) == {"user:ann"}
    for bad in ("nope", "", ObjectId(), "0" * 30):
        assert topics(bad) == {"user:ann"}
    # Blocks, both ways: ann's of dan, and bob's of ann (whose public post
    # her page still shows, but she may not comment under it).
    graph.block_create(blocker=user("ann"), blocked="dan")
    graph.block_create(blocker=user("bob"), blocked="ann")
    ann = login_client(user("ann"))
    assert topics(others.id) == {"user:ann"}
    assert topics(public.id) == {"user:ann"}


def test_the_news_feed_listens_to_its_pulled_authors_and_followed_tags(cast, settings):
    settings.FEED_PULL_GRACE_SECONDS = 0
    for star in ("bob", "dan"):
        graph.follow_create(follower=user("ann"), followee=star)
        pulling.mark(star, since=EPOCH)
    pulling.mark("cyd", since=EPOCH)  # pulled, but ann does not follow her
    mutes.mute_create(user=user("ann"), handle="dan")
    User = type(user("ann"))
    User.objects(handle="ann").update_one(set__followed_tags=["bread"])
    ann = login_client(user("ann"))
    assert set(stream_of(ann, "?feed=1").topics) == {"user:ann", "author:bob", "tag:bread"}
    # Other pages leave them out.
    assert set(stream_of(ann).topics) == {"user:ann"}


def test_what_a_tab_is_sent_of_each_event(cast):
    ann = login_client(user("ann"))
    post = say("ann", "comment here")
    frames_of = stream_of(ann, f"?post={post.id}").frames_of
    assert frames_of is not None

    def sent(kind: str, topic: str = f"post:{post.id}", **data) -> list:
        return [name for name, _ in frames_of(Event(id="1", topic=topic, kind=kind, data=data))]

    assert sent("comment", by="bob") == ["comment"]
    assert sent("comment", by="ann") == ["comment"]
    assert sent("notification", topic="user:ann", kind_="like") == ["notification"]
    # A followed tag's post nudges the news feed's bar, but not one of hers.
    assert sent("post", topic="tag:bread", author="bob") == ["feed"]
    assert sent("post", topic="tag:bread", author="ann") == []
    # Whoever she muted or blocked, or who blocked her: not even a nudge.
    mutes.mute_create(user=user("ann"), handle="bob")
    graph.block_create(blocker=user("ann"), blocked="cyd")
    frames_of = stream_of(login_client(user("ann")), f"?post={post.id}").frames_of
    assert sent("comment", by="bob") == [] and sent("comment", by="cyd") == []
    assert sent("post", topic="tag:bread", author="bob") == []
    assert sent("comment", by="dan") == ["comment"]
    graph.block_create(blocker=user("dan"), blocked="ann")  # while her tab is open
    assert sent("comment", by="dan") == []


def test_the_counts_are_the_headers(cast):
    post = say("ann", "like me")
    likes.like_create(post_id=post.id, user=user("bob"))
    messaging.conversation_start(sender=user("cyd"), to=["ann"], text="hi")
    ann = login_client(user("ann"))
    counts = ann.get("/live/counts")
    assert counts["Cache-Control"] == "no-store"
    # cyd's follow and bob's like; cyd's message.
    assert counts.json() == {"notifications": 2, "messages": 1}
    header = ann.get("/feed/").content.decode()
    for kind, count in counts.json().items():
        shown = re.search(rf'data-unread="(\d+)" data-live-count="{kind}"', header)
        assert shown is not None and int(shown.group(1)) == count
    ann.get("/notifications/")
    assert ann.get("/live/counts").json() == {"notifications": 0, "messages": 1}


def test_an_open_conversation_reads_its_newer_messages(cast):
    started = messaging.conversation_start(sender=user("bob"), to=["ann"], text="first")
    ann, cyd = login_client(user("ann")), login_client(user("cyd"))
    page = ann.get(f"/messages/{started}/").content.decode()
    after = re.search(r'data-newer-url="([^"]+)" data-after="([^"]+)"', page)
    assert after is not None
    url, cursor = after.groups()
    assert url == f"/messages/{started}/newer/"
    nothing = ann.get(url, {"after": cursor})
    assert nothing.status_code == 200 and 'data-message-id="' not in nothing.content.decode()
    assert nothing["Cache-Control"] == "no-store"
    sent = messaging.message_send(conversation_id=started, sender=user("bob"), text="second")
    assert ann.get("/live/counts").json()["messages"] == 1
    newer = ann.get(url, {"after": cursor}).content.decode()
    # The page's own list item, with the cursor to read on from.
    assert newer.count('data-message-id="') == 1 and f'data-message-id="{sent["_id"]}"' in newer
    assert "second" in newer and "first" not in newer and 'id="latest"' in newer
    assert re.search(r'<ol class="message-list" data-after="[^"]+">', newer)
    # Shown, it is read, as on the page.
    assert ann.get("/live/counts").json()["messages"] == 0
    assert "ann" not in Conversation.objects.get(id=started).unread
    # Without `after`: the newest page's.
    assert "first" in ann.get(url).content.decode()
    # Only its members; never a 500 on bad input.
    assert cyd.get(url, {"after": cursor}).status_code == 404
    assert ann.get(f"/messages/{ObjectId()}/newer/").status_code == 404
    assert ann.get("/messages/nope/newer/").status_code == 404
    for bad in ("", "nope", "x" * 100, "bXxhLmI", "eHwxLjE"):
        assert ann.get(url, {"after": bad}).status_code == 404, bad
    assert ann.post(url).status_code == 405
    assert login_client(user("bob")).get(url, {"after": cursor}).status_code == 200


def test_an_open_post_page_hears_of_comments_but_a_muted_commenters(asgi_server, cast):
    post = say("ann", "what do you think?")
    mutes.mute_create(user=user("ann"), handle="cyd")
    stream = Lines(asgi_server, cookies_of(user("ann")), path=f"/live/stream?post={post.id}")
    try:
        stream.wait_for("event: ready")
        shown = pages.post_by_id(post.id)
        comments.comment_create(post=shown, author=user("cyd"), text="muted words")
        comments.comment_create(post=shown, author=user("bob"), text="good question")
        # In order: once bob's is sent, cyd's was decided (and left out).
        lines = stream.wait_for("event: comment")
        sent = [json.loads(line[6:]) for line in lines if line.startswith('data: {"slug"')]
        assert [data["by"] for data in sent] == ["bob"], lines
    finally:
        stream.close()
