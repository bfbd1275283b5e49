"""Conversations (docs/messages.md): starting one or continuing the one with
exactly those people, writing, reading newest first and paging back, the
unread state and the header's count, leaving."""

import pytest
from bson import ObjectId

from messaging import selectors, services
from messaging.documents import Conversation, MessageBucket
from profiles.documents import User


@pytest.fixture
def cast(make_user):
    return make_user("ann", "Ann Example"), make_user("bob", "Bob Kahn"), make_user("cyd", "Cyd C")


def fresh(handle) -> User:
    return User.objects.get(handle=handle)


def texts(page) -> list[str]:
    return [m.text for m in page.messages if not m.kind]


def test_start_continue_read_and_leave(cast):
    ann, bob, _cyd = cast
    first = services.conversation_start(sender=ann, to=["bob", "cyd"], text="hello both")
    again = services.conversation_start(sender=bob, to=["cyd", "ann"], text="hi ann")
    assert first == again  # exactly those people: the same conversation
    assert services.conversation_start(sender=ann, to=["bob"], text="just you") != first
    assert fresh("cyd").messages_unread == 1 and fresh("ann").messages_unread == 1
    page = selectors.conversation_page(first, fresh("cyd"))
    assert texts(page) == ["hello both", "hi ann"] and page.unread
    assert services.conversation_read(
        conversation_id=first, reader=fresh("cyd"), newest=page.newest, seat=page.seat
    )
    assert fresh("cyd").messages_unread == 0
    services.conversation_leave(conversation_id=first, member=fresh("cyd"))
    assert selectors.conversation_page(first, fresh("cyd")) is None
    page = selectors.conversation_page(first, fresh("ann"))
    assert page.messages[-1].kind == "left" and [m["h"] for m in page.members] == ["bob"]
    # Writing to bob and cyd again starts afresh: the old one is not "exactly them" now.
    assert services.conversation_start(sender=ann, to=["bob", "cyd"], text="again") != first


def test_the_pages_go_back_through_buckets_without_gaps_or_repeats(cast, settings, round_trips):
    settings.MESSAGES_BUCKET_SIZE = 7
    settings.MESSAGES_PAGE_SIZE = 5
    ann, bob, _ = cast
    conversation = services.conversation_start(sender=ann, to=["bob"], text="m0")
    for i in range(1, 40):
        services.message_send(
            conversation_id=conversation, sender=ann if i % 2 else bob, text=f"m{i}"
        )
    assert MessageBucket.objects(conversation=conversation).count() >= 5
    seen, before, reader = [], None, fresh("bob")
    while True:
        with round_trips() as counted:
            page = selectors.conversation_page(conversation, reader, before=before)
        assert counted.total == 1, counted.commands
        seen = texts(page) + seen
        if page.older is None:
            break
        before = page.older
    assert seen == [f"m{i}" for i in range(40)]


def test_paging_back_through_a_thousand_messages_while_more_arrive(cast, round_trips):
    """1,000 messages in 10 full buckets; 5 more arrive while the reader pages
    back. Every page is one round trip, and the pages hold each of the
    1,000 once, in order: a place (bucket, index) never moves."""
    ann, _, _ = cast
    conversation = services.conversation_start(sender=ann, to=["bob"], text="m0")
    stored = MessageBucket._get_collection().find_one({"conversation": conversation})
    first = stored["messages"][0]
    messages = [first] + [
        {**first, "_id": ObjectId(), "text": f"m{n}", "ts": first["ts"]} for n in range(1, 1000)
    ]
    MessageBucket._get_collection().delete_many({"conversation": conversation})
    MessageBucket._get_collection().insert_many(
        [
            {
                "conversation": conversation,
                "bucket": b,
                "count": 100,
                "messages": messages[b * 100 : (b + 1) * 100],
            }
            for b in range(10)
        ]
    )
    Conversation._get_collection().update_one(
        {"_id": conversation}, {"$set": {"num_buckets": 10, "count": 1000}}
    )
    reader = fresh("bob")
    seen, before, pages = [], None, 0
    while True:
        with round_trips() as counted:
            page = selectors.conversation_page(conversation, reader, before=before)
        assert counted.total == 1, counted.commands
        pages += 1
        if pages == 1:
            for n in range(5):  # arrivals, after the first page was read
                services.message_send(conversation_id=conversation, sender=ann, text=f"new{n}")
        seen = texts(page) + seen
        if page.older is None:
            break
        before = page.older
    assert seen == [f"m{n}" for n in range(1000)]
    assert pages == 34


def test_the_last_one_out_deletes_the_conversation(cast):
    ann, _, _ = cast
    conversation = services.conversation_start(sender=ann, to=["bob"], text="bye")
    services.conversation_leave(conversation_id=conversation, member=ann)
    assert MessageBucket.objects(conversation=conversation).count() == 1  # bob still reads it
    services.conversation_leave(conversation_id=conversation, member=fresh("bob"))
    assert Conversation.objects(id=conversation).count() == 0
    assert MessageBucket.objects(conversation=conversation).count() == 0


def test_a_conversation_everyone_else_left_takes_no_more_messages(cast):
    ann, _, _ = cast
    conversation = services.conversation_start(sender=ann, to=["bob"], text="hello?")
    services.conversation_leave(conversation_id=conversation, member=fresh("bob"))
    before = Conversation.objects.get(id=conversation).count  # hers, and "bob left"
    with pytest.raises(services.MessageRefused, match="Everyone else has left"):
        services.message_send(conversation_id=conversation, sender=fresh("ann"), text="anyone?")
    assert Conversation.objects.get(id=conversation).count == before
