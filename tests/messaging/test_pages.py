"""Round trips of the messages pages, whole requests through the test client
(docs/messages.md, docs/performance.md#one-read-for-a-page): the session
with its user is one aggregate, the inbox one more, a conversation's page
one more at any depth (the conversation, its members' standing and the two
buckets the page reaches, by `$lookup`), and the header's unread count rides
on the user document the session brought: a feed page costs what it did
before messages existed."""

import re

import pytest

from feeds.documents import PUBLIC
from feeds.services import posts
from messaging import services
from profiles import services as graph
from profiles.documents import User

SESSION = "aggregate"  # the session with its user (socialsite/sessions.py)
# The counter names a write by its command on a server, by its method on
# the demo database.
MARK_READ = {"findAndModify", "find_one_and_update"}
COUNT_DOWN = {"update", "update_many"}


@pytest.fixture(autouse=True)
def _quiet(settings):
    # No `last_seen` write in the middle of a counted page.
    settings.LAST_SEEN_RESOLUTION = 24 * 3600


def fresh(handle: str) -> User:
    return User.objects.get(handle=handle)


def counted(client, round_trips, path: str):
    with round_trips() as counter:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode(), counter


def header_count(html: str) -> str:
    found = re.search(r'<a class="messages" href="/messages/" data-unread="(\d+)"', html)
    assert found, "no messages link in the header"
    return found.group(1)


@pytest.mark.parametrize("conversations", [1, 25])
def test_the_inbox_is_one_aggregate_besides_the_session(
    conversations, make_user, login, round_trips, settings
):
    """Flat in the number of conversations, a page of 20 and its next link,
    with a last author who blocked the reader (the preview hidden, looked up
    in the same aggregate)."""
    make_user("ann")
    for n in range(conversations):
        other = make_user(f"pal{n:02d}")
        services.conversation_start(sender=other, to=["ann"], text=f"hello from {n}")
    graph.block_create(blocker=fresh("pal00"), blocked="ann")
    html, counter = counted(login(fresh("ann")), round_trips, "/messages/")
    assert counter.commands == [SESSION, "aggregate"], counter.commands
    rows = html.count('class="conversation-row"')
    assert rows == min(conversations, settings.MESSAGES_INBOX_PAGE_SIZE)
    assert ('rel="next"' in html) == (conversations > settings.MESSAGES_INBOX_PAGE_SIZE)
    assert html.count('data-unread="true"') == rows  # none opened yet
    assert header_count(html) == str(conversations)


def test_a_conversation_page_is_one_aggregate_at_any_depth(
    make_user, login, round_trips, settings
):
    """Back through every page of a conversation many buckets long: each
    page, the newest included once it is read, is the session and one
    aggregate. Opening it unread adds only the two writes of reading it:
    the marker (with the unread list) and the header count."""
    settings.MESSAGES_BUCKET_SIZE = 5
    settings.MESSAGES_PAGE_SIZE = 4
    ann, bob = make_user("ann"), make_user("bob")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="m0")
    for n in range(1, 41):
        sender = bob if n % 2 else ann
        services.message_send(conversation_id=conversation, sender=sender, text=f"m{n}")
    client = login(fresh("ann"))
    url = f"/messages/{conversation}/"
    assert fresh("ann").messages_unread == 1

    html, counter = counted(client, round_trips, url)
    assert counter.commands[:2] == [SESSION, "aggregate"], counter.commands
    assert counter.total == 4, counter.commands
    assert counter.commands[2] in MARK_READ and counter.commands[3] in COUNT_DOWN, counter.commands
    assert fresh("ann").messages_unread == 0 and header_count(html) == "0"

    seen, pages = [], 0
    while True:
        html, counter = counted(client, round_trips, url)
        assert counter.commands == [SESSION, "aggregate"], (url, counter.commands)
        seen = re.findall(r'<p class="dm__text">(m\d+)</p>', html) + seen
        pages += 1
        older = re.search(r'<a rel="prev"[^>]*href="\?before=([^"]+)"', html)
        if older is None:
            break
        url = f"/messages/{conversation}/?before={older.group(1)}"
    assert pages == 11  # 41 messages, 4 a page: the first page and ten older ones
    assert seen == [f"m{n}" for n in range(41)]


def test_the_header_count_costs_a_feed_page_no_round_trip(make_user, login, round_trips):
    """The feed's whole-page budget (tests/feeds/test_page_budgets.py: the
    session and one aggregate) holds with conversations unread, and every
    signed-in page's header carries the count."""
    ann, bob = make_user("ann"), make_user("bob")
    graph.follow_create(follower=ann, followee="bob")
    for n in range(3):
        posts.post_create(
            author=bob, type="status", detail={"text": f"post {n}"}, circles=[PUBLIC]
        )
    client = login(fresh("ann"))
    html, before = counted(client, round_trips, "/feed/")
    assert header_count(html) == "0"

    services.conversation_start(sender=bob, to=["ann"], text="are you there?")
    make_user("cyd")
    services.conversation_start(sender=fresh("cyd"), to=["ann", "bob"], text="all of us")
    html, after = counted(client, round_trips, "/feed/")
    assert header_count(html) == "2"
    assert after.commands == before.commands, (before.commands, after.commands)
    assert after.total <= 2, after.commands
    for path in ("/u/bob/", "/notifications/", "/settings/profile/", "/messages/"):
        assert header_count(client.get(path).content.decode()) == "2", path


def test_a_drifted_unread_count_is_put_right_by_opening_the_inbox(
    make_user, login, round_trips, settings
):
    """A process died between a conversation's write and the count's (or a
    count went wrong): the inbox's first page shows the truth, and the
    header follows it, with no read more when the page holds every
    conversation; one count on the `unread` index when it does not."""
    bob, cyd = make_user("bob"), make_user("cyd")
    make_user("ann")
    services.conversation_start(sender=bob, to=["ann"], text="hi")
    services.conversation_start(sender=cyd, to=["ann"], text="hey")
    User.objects(handle="ann").update_one(set__messages_unread=0)  # lost both $inc
    client = login(fresh("ann"))
    html, counter = counted(client, round_trips, "/messages/")
    assert counter.commands == [SESSION, "aggregate", *counter.commands[2:]]
    assert counter.total == 3, counter.commands  # and the guarded write
    assert fresh("ann").messages_unread == 2 and header_count(html) == "2"
    _, counter = counted(client, round_trips, "/messages/")
    assert counter.total == 2, counter.commands  # right now: nothing written

    # The page no longer holds them all, and shows more unread than counted.
    settings.MESSAGES_INBOX_PAGE_SIZE = 1
    User.objects(handle="ann").update_one(set__messages_unread=0)
    html, counter = counted(login(fresh("ann")), round_trips, "/messages/")
    assert counter.total == 4, counter.commands  # the count, then the write
    assert fresh("ann").messages_unread == 2 and header_count(html) == "2"


def test_the_recount_loses_to_a_message_that_landed_after_the_session_read(make_user):
    bob = make_user("bob")
    make_user("ann")
    reader = fresh("ann")  # the session's read: version 0, count 0
    services.conversation_start(sender=bob, to=["ann"], text="hi")  # +1, version bumped
    services.unread_recount(reader=reader, unread=0)  # a stale truth
    assert fresh("ann").messages_unread == 1
