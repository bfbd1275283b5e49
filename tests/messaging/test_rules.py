"""Who may write to whom (docs/messages.md#who-may-write-to-you): each
person's `messages_from`, blocks both ways, suspended senders, the limits on
recipients and text; 20 parallel senders at a bucket boundary; erasure and
the export."""

import threading

import pytest

from messaging import removals, selectors, services
from messaging.documents import Conversation, ConversationKey, MessageBucket
from profiles import services as graph
from profiles.documents import User
from tests.conftest import login_client


@pytest.fixture
def cast(make_user):
    return make_user("ann", "Ann Example"), make_user("bob", "Bob Kahn"), make_user("cyd", "Cyd C")


def fresh(handle) -> User:
    return User.objects.get(handle=handle)


def set_from(handle: str, value: str) -> None:
    User.objects(handle=handle).update_one(set__messages_from=value)


def texts(page) -> list[str]:
    return [m.text for m in page.messages if not m.kind]


def test_nobody_and_following_refuse_new_conversations_with_a_clear_message(cast):
    ann, _bob, _cyd = cast
    set_from("bob", "nobody")
    with pytest.raises(services.MessageRefused, match="@bob doesn't take new messages"):
        services.conversation_start(sender=ann, to=["bob"], text="hi")
    set_from("cyd", "following")
    with pytest.raises(services.MessageRefused, match="only from people they follow"):
        services.conversation_start(sender=ann, to=["cyd"], text="hi")
    graph.follow_create(follower=fresh("cyd"), followee="ann")
    assert services.conversation_start(sender=ann, to=["cyd"], text="hi")
    assert Conversation.objects.count() == 1 and ConversationKey.objects.count() == 1
    # The form says so, and nothing is stored.
    response = login_client(ann).post("/messages/", {"to": "bob", "text": "please"})
    assert response.status_code == 403
    assert "@bob doesn&#x27;t take new messages." in response.content.decode()
    assert Conversation.objects.count() == 1


def test_an_open_conversation_continues_whatever_the_setting_is_now(cast):
    ann, _bob, _ = cast
    first = services.conversation_start(sender=ann, to=["bob"], text="hi")
    set_from("bob", "nobody")
    assert services.conversation_start(sender=ann, to=["bob"], text="still here") == first


def test_blocks_stop_messages_both_ways_and_hide_them_in_a_group(cast, make_user):
    ann, bob, _cyd = cast
    group = services.conversation_start(sender=ann, to=["bob", "cyd"], text="hello all")
    services.message_send(conversation_id=group, sender=bob, text="bob before")
    graph.block_create(blocker=fresh("ann"), blocked="bob")
    seen = selectors.conversation_page(group, fresh("ann"))
    services.conversation_read(
        conversation_id=group, reader=fresh("ann"), newest=seen.newest, seat=seen.seat
    )
    # No new one-to-one, either way.
    with pytest.raises(services.MessageRefused, match="You blocked @bob"):
        services.conversation_start(sender=fresh("ann"), to=["bob"], text="x")
    with pytest.raises(services.MessageRefused, match="You can't write to @ann"):
        services.conversation_start(sender=fresh("bob"), to=["ann"], text="x")
    # In the group, bob still writes to cyd, but ann and bob see none of each other's.
    services.message_send(conversation_id=group, sender=fresh("bob"), text="bob after")
    services.message_send(conversation_id=group, sender=fresh("ann"), text="ann after")
    assert texts(selectors.conversation_page(group, fresh("cyd"))) == [
        "hello all",
        "bob before",
        "bob after",
        "ann after",
    ]
    assert texts(selectors.conversation_page(group, fresh("ann"))) == ["hello all", "ann after"]
    assert texts(selectors.conversation_page(group, fresh("bob"))) == ["bob before", "bob after"]
    # Bob's message did not make it unread for the blocker (ann's own did not either).
    assert "ann" not in Conversation.objects.get(id=group).unread
    # A one-to-one across a block takes nothing more.
    one = services.conversation_start(sender=fresh("cyd"), to=["bob"], text="cyd to bob")
    graph.block_create(blocker=fresh("bob"), blocked="cyd")
    with pytest.raises(services.MessageRefused, match="can't write in this conversation"):
        services.message_send(conversation_id=one, sender=fresh("cyd"), text="hello?")


def test_limits_on_recipients_and_text(cast, make_user):
    ann, _, _ = cast
    many = [make_user(f"user{i:02d}").handle for i in range(21)]
    with pytest.raises(services.MessageRefused, match="at most 21 people"):
        services.conversation_start(sender=ann, to=many, text="hi")
    with pytest.raises(services.MessageRefused, match="no one called @nobody_here"):
        services.conversation_start(sender=ann, to=["nobody_here"], text="hi")
    with pytest.raises(services.MessageRefused, match="at most 5,000"):
        services.conversation_start(sender=ann, to=["bob"], text="x" * 5001)
    with pytest.raises(services.MessageRefused, match="Choose who"):
        services.conversation_start(sender=ann, to=["ann"], text="me")
    client = login_client(ann)
    assert client.post("/messages/", {"to": many, "text": "hi"}).status_code == 400
    assert client.post("/messages/", {"to": "bob", "text": ""}).status_code == 400
    assert client.post("/messages/", {"to": "b@d!", "text": "x"}).status_code == 400
    assert Conversation.objects.count() == 0


def test_a_suspended_member_cannot_send_and_their_messages_show_as_removed(cast):
    ann, bob, _ = cast
    conversation = services.conversation_start(sender=ann, to=["bob"], text="hi")
    services.message_send(conversation_id=conversation, sender=bob, text="bob says")
    client = login_client(bob)
    User.objects(handle="bob").update_one(set__status="suspended")
    # Their session is over: nothing is sent.
    response = client.post(f"/messages/{conversation}/", {"text": "still me"})
    assert response.status_code == 302 and "/accounts/login/" in response.url
    page = selectors.conversation_page(conversation, fresh("ann"))
    shown = [m.shown_text for m in page.messages]
    assert shown == ["hi", "[removed: the account is suspended]"]


def test_twenty_parallel_senders_at_a_bucket_boundary_keep_every_message_once(
    cast, make_user, settings
):
    settings.MESSAGES_BUCKET_SIZE = 5
    settings.MESSAGES_PAGE_SIZE = 7
    ann, *_ = cast
    senders = [make_user(f"sender{i:02d}") for i in range(20)]
    conversation = services.conversation_start(
        sender=ann, to=[s.handle for s in senders], text="warm-up 1"
    )
    for i in range(2, 5):  # the bucket is one message from full
        services.message_send(conversation_id=conversation, sender=ann, text=f"warm-up {i}")
    start = threading.Barrier(len(senders))
    failures = []

    def send(person):
        start.wait()
        try:
            services.message_send(conversation_id=conversation, sender=person, text=person.handle)
        except Exception as exc:  # surfaced below
            failures.append(exc)

    threads = [threading.Thread(target=send, args=(s,)) for s in senders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    stored = [
        m["text"]
        for b in MessageBucket._get_collection()
        .find({"conversation": conversation})
        .sort("bucket")
        for m in b["messages"]
    ]
    assert len(stored) == 24 and sorted(stored[4:]) == sorted(s.handle for s in senders)
    assert stored[:4] == [f"warm-up {i}" for i in range(1, 5)]
    # The pages show them in the order they were stored, each once.
    shown, before = [], None
    while True:
        page = selectors.conversation_page(conversation, fresh("ann"), before=before)
        shown = texts(page) + shown
        if page.older is None:
            break
        before = page.older
    assert shown == stored
    assert Conversation.objects.get(id=conversation).count == 24
    # Every recipient was made unread once, whatever raced.
    assert fresh("sender00").messages_unread == 1 and fresh("ann").messages_unread == 1


def test_export_lists_ones_own_messages_and_erasure_leaves_placeholders(cast):
    ann, bob, _cyd = cast
    group = services.conversation_start(sender=ann, to=["bob", "cyd"], text="ann's words")
    services.message_send(conversation_id=group, sender=bob, text="bob's words")
    pair = services.conversation_start(sender=bob, to=["ann"], text="just us")
    exported = list(selectors.messages_export("ann"))
    assert [row["text"] for row in exported] == ["ann's words"]
    assert exported[0]["with"] == ["bob", "cyd"]
    while removals.messages_erase("ann", 1):
        pass
    page = selectors.conversation_page(group, fresh("bob"))
    assert [(m.erased, m.shown_text) for m in page.messages] == [
        (True, "[deleted]"),
        (False, "bob's words"),
    ]
    assert "ann" not in str(Conversation._get_collection().find_one({"_id": group}))
    # The one-to-one is bob's alone now: still his, without ann.
    assert [m["h"] for m in selectors.conversation_page(pair, fresh("bob")).members] == []
    assert ConversationKey.objects.count() == 0


def test_erasure_batches_are_bounded_by_writes_and_keep_the_walks_lease(
    cast, settings, monkeypatch
):
    """A long conversation is many batches, each at most `limit` bucket
    writes; the person leaves it only when every bucket is done, and each
    write tells the walk it is alive (owners.lease_keep)."""
    ann, bob, _cyd = cast
    settings.MESSAGES_BUCKET_SIZE = 2
    group = services.conversation_start(sender=ann, to=["bob", "cyd"], text="ann 0")
    for n in range(1, 6):
        services.message_send(conversation_id=group, sender=bob, text=f"bob {n}")
        services.message_send(conversation_id=group, sender=ann, text=f"ann {n}")
    assert MessageBucket.objects(conversation=group, messages__by="ann").count() == 6
    beats = []
    monkeypatch.setattr(removals.owners, "lease_keep", lambda: beats.append(1))
    batches = []
    while done := removals.messages_erase("ann", 2):
        batches.append(done)
        assert MessageBucket.objects(conversation=group, messages__by="ann").count() == max(
            0, 6 - 2 * len(batches)
        )
    # Three batches of two bucket writes, then the leaving (keys, seat, preview).
    assert batches == [2, 2, 2, 1]
    assert len(beats) == 6
    stored = str(Conversation._get_collection().find_one({"_id": group}))
    assert "ann" not in stored and "'bob'" in stored
    page = selectors.conversation_page(group, fresh("bob"))
    assert [m.shown_text for m in page.messages].count("[deleted]") == 6


def test_a_long_batch_refreshes_the_erasure_jobs_beat(monkeypatch):
    from datetime import timedelta

    from profiles.documents import ErasureJob
    from profiles.services import erasure_walk
    from socialsite import owners
    from socialsite.clock import now

    old = now() - timedelta(hours=1)
    ErasureJob._get_collection().insert_one({"_id": "zed", "step": "", "beat": old, "runs": 1})
    seen = []

    def slow_eraser(handle: str, limit: int) -> int:
        if seen:
            return 0
        seen.append(erasure_walk.erasures_stalled(older_than_seconds=60))
        owners.lease_keep()  # mid-batch: the job's beat moves on
        seen.append(erasure_walk.erasures_stalled(older_than_seconds=60))
        return 1

    monkeypatch.setattr(erasure_walk, "LEASE_REFRESH_SECONDS", 0)
    entry = owners.Owned("conversation", ("everyone",), slow_eraser, "messaging")
    erasure_walk._erase_all(entry, "zed", 10, ErasureJob._get_collection())
    # Stalled an hour before the refresh, alive after it: no sweeper restarts it.
    assert seen == [["zed"], []]
    # Outside a walk the call does nothing.
    owners.lease_keep()
