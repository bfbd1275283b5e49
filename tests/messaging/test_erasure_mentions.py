"""An erased person's handle leaves the others' direct messages too
(docs/accounts.md#erasure): a message that mentions them keeps its words with
the handle written "[deleted account]", as posts and comments write it, in
conversations they were never in as well, and so does the inbox preview. The
messages are found on the `messages.mentions` index, one update per bucket,
and a second run changes nothing."""

import pytest
from mongoengine.connection import get_db

from feeds.mentions import unmention
from messaging import removals, selectors, services
from messaging.documents import Conversation, MessageBucket
from profiles.documents import User
from profiles.services import erasure
from socialsite import mongo
from tests import plans
from tests.conftest import login_client
from tests.query_recorder import Recorder, install_listener, install_mongomock

GONE = "[deleted account]"
COLLECTIONS = ("conversation", "conversation_key", "message_buckets")


def naming(value, needle: str) -> list[str]:
    """Every string (or key) in a document that holds `needle`, any case."""
    if isinstance(value, dict):
        return [
            hit
            for key, item in value.items()
            for hit in ([str(key)] if needle in str(key).lower() else []) + naming(item, needle)
        ]
    if isinstance(value, list | tuple):
        return [hit for item in value for hit in naming(item, needle)]
    if isinstance(value, str) and needle in value.lower():
        return [value]
    return []


def raw() -> dict[str, list[dict]]:
    db = get_db()
    return {name: list(db[name].find({}).sort("_id", 1)) for name in COLLECTIONS}


def fresh(handle: str) -> User:
    return User.objects.get(handle=handle)


@pytest.fixture
def talk(make_user):
    """Bob and Cyd talk about Ann without her; Ann, Bob and Cyd talk too."""
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    make_user("dan")
    apart = services.conversation_start(sender=cyd, to=["bob"], text="where were we?")
    # Two mentions in one bucket besides the preview's, one of them shouting.
    services.message_send(conversation_id=apart, sender=cyd, text="@ANN said hi, and @dan")
    services.message_send(conversation_id=apart, sender=bob, text="back to @ann")
    group = services.conversation_start(sender=ann, to=["bob", "cyd"], text="hi @bob, it's me")
    services.message_send(conversation_id=group, sender=bob, text="back to @ann")
    return ann, bob, cyd, apart, group


def test_a_message_stores_the_handles_it_mentions(talk):
    _ann, _bob, _cyd, apart, _group = talk
    bucket = MessageBucket._get_collection().find_one({"conversation": apart})
    assert [m.get("mentions") for m in bucket["messages"]] == [None, ["ann", "dan"], ["ann"]]


def test_erasure_writes_the_handle_as_posts_do_in_every_message_and_preview(talk):
    ann, bob, _cyd, apart, group = talk
    assert naming(raw(), "ann")  # the world names her before

    erasure.erasure_begin(user=ann)  # the walk runs at once (the immediate backend)

    assert User.objects(handle="ann").first() is None
    assert naming(raw(), "ann") == []
    # Bob and Cyd's conversation, which Ann was never in: words kept, the
    # handle written as a post writes it.
    assert unmention("back to @ann", "ann") == f"back to {GONE}"
    page = selectors.conversation_page(apart, fresh("bob"))
    assert [m.shown_text for m in page.messages] == [
        "where were we?",
        f"{GONE} said hi, and @dan",
        f"back to {GONE}",
    ]
    bucket = MessageBucket._get_collection().find_one({"conversation": apart})
    assert [m.get("mentions") for m in bucket["messages"]] == [None, ["dan"], []]
    # The group goes on without her: her words a placeholder, Bob's kept.
    page = selectors.conversation_page(group, fresh("bob"))
    assert [(m.erased, m.shown_text) for m in page.messages] == [
        (True, "[deleted]"),
        (False, f"back to {GONE}"),
    ]
    # The inbox previews of both.
    previews = {row["_id"]: row["last"]["text"] for row in Conversation._get_collection().find({})}
    assert previews == {apart: f"back to {GONE}", group: f"back to {GONE}"}
    inbox = login_client(bob).get("/messages/").content.decode()
    assert inbox.count(f"back to {GONE}") == 2 and "@ann" not in inbox

    # Both erasers again, from the start: nothing more changes.
    before = raw()
    assert removals.messages_erase("ann", 100) == 0
    assert removals.messages_unmention("ann", 100) == 0
    assert raw() == before


def test_the_eraser_reads_on_the_index_and_writes_once_a_bucket(talk, monkeypatch):
    removals.messages_erase("ann", 100)  # the walk's step before: her own messages
    recorder = Recorder()
    if mongo.is_demo():
        install_mongomock(recorder, monkeypatch)
    else:
        install_listener(recorder, monkeypatch)
    recorder.on = True
    try:
        assert removals.messages_unmention("ann", 1) == 1  # a batch of one bucket
        assert removals.messages_unmention("ann", 1) == 1
        assert removals.messages_unmention("ann", 1) == 0
    finally:
        recorder.on = False
    documents = {"message_buckets": MessageBucket, "conversation": Conversation}
    queries = [q for q in recorder.queries if q.collection in documents]
    for query in queries:
        document = documents[query.collection]
        verdict = plans.check(query, plans.declared_indexes(document), plans.array_paths(document))
        assert verdict.problem is None, str(verdict)
    assert any("messages.mentions" in q.filter for q in queries)
    # One write a bucket (each holds every message of its conversation here),
    # however many of its messages mention her.
    bucket_writes = [
        q for q in queries if q.collection == "message_buckets" and q.op.startswith("update")
    ]
    assert len(bucket_writes) == 2
    assert naming(raw(), "ann") == []
