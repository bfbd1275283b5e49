"""The messaging pages through the test client: the inbox and its form,
a conversation's page, sending, reading (the header count), leaving, and
404 for anyone outside a conversation."""

import re

from messaging import services
from messaging.documents import Conversation
from profiles.documents import User
from tests.conftest import login_client

HEADER = re.compile(r'<a class="messages" href="/messages/" data-unread="(\d+)"')


def header_count(html: str) -> int:
    return int(HEADER.search(html).group(1))


def test_write_read_reply_and_leave_through_the_pages(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    cyd = make_user("cyd")
    ann_client, bob_client = login_client(ann), login_client(bob)
    # "Message" on a profile fills the form.
    profile = ann_client.get("/u/bob/").content.decode()
    assert 'href="/messages/?to=bob" data-message-link' in profile
    form = ann_client.get("/messages/?to=bob").content.decode()
    assert 'name="to" type="text" value="bob"' in form
    response = ann_client.post("/messages/", {"to": ["bob", "@cyd"], "text": "hello"})
    assert response.status_code == 302 and response.url.endswith("/#latest")
    url = response.url.split("#")[0]
    assert header_count(bob_client.get("/feed/").content.decode()) == 1
    inbox = bob_client.get("/messages/").content.decode()
    assert 'data-unread="true"' in inbox and "hello" in inbox
    page = bob_client.get(url).content.decode()
    assert "hello" in page and 'id="latest"' in page
    assert header_count(page) == 0  # opening it read it, in the same response
    assert header_count(bob_client.get("/feed/").content.decode()) == 0
    assert bob_client.post(url, {"text": "hi ann"}).status_code == 302
    assert 'data-unread="true"' in ann_client.get("/messages/").content.decode()
    # Bad input: the page again with its error, nothing stored.
    assert bob_client.post(url, {"text": ""}).status_code == 400
    assert bob_client.post(url, {"text": "x" * 5001}).status_code == 400
    assert Conversation.objects.get().count == 2
    # Cyd leaves: the page is a 404 to her now, the others see that she left.
    cyd_client = login_client(cyd)
    assert cyd_client.post(url + "leave/").status_code == 302
    for response in (
        cyd_client.get(url),
        cyd_client.post(url, {"text": "back?"}),
        cyd_client.post(url + "leave/"),
    ):
        assert response.status_code == 404
    assert "Cyd left the conversation" in ann_client.get(url).content.decode()


def test_anyone_outside_gets_404_and_anonymous_visitors_log_in(make_user):
    ann, _bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="private")
    url = f"/messages/{conversation}/"
    eve_client = login_client(eve)
    for path in (url, f"/messages/{'0' * 24}/", "/messages/nonsense/"):
        assert eve_client.get(path).status_code == 404
        assert eve_client.post(path, {"text": "hi"}).status_code == 404
        assert eve_client.post(path + "leave/").status_code == 404
    assert "private" not in eve_client.get("/messages/").content.decode()
    anonymous = login_client.__globals__["Client"]()
    assert anonymous.get(url).status_code == 302
    assert User.objects.get(handle="bob").messages_unread == 1


def test_older_and_newer_pages_link_each_other(make_user, settings):
    settings.MESSAGES_PAGE_SIZE = 3
    settings.MESSAGES_BUCKET_SIZE = 4
    ann, bob = make_user("ann"), make_user("bob")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="m0")
    for i in range(1, 8):
        services.message_send(conversation_id=conversation, sender=ann, text=f"m{i}")
    client = login_client(bob)
    first = client.get(f"/messages/{conversation}/").content.decode()
    older = re.search(r'rel="prev" class="button button--ghost" href="\?before=([^"]+)"', first)
    assert older and 'dm__text">m7<' in first and 'dm__text">m4<' not in first
    second = client.get(f"/messages/{conversation}/?before={older.group(1)}").content.decode()
    assert 'dm__text">m4<' in second and 'dm__text">m7<' not in second
    assert 'rel="next"' in second
    assert client.get(f"/messages/{conversation}/?before=garbage").status_code == 404


def test_a_message_costs_at_most_seven_round_trips(make_user, round_trips):
    """docs/performance.md: the session, the rate limit, the conversation
    (membership and the bucket being filled, one read), who blocked the
    sender, the bucket's upsert, the conversation's update, and the header
    counts of those it made unread."""
    ann, bob = make_user("ann"), make_user("bob")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="hello")
    client = login_client(bob)
    with round_trips() as counted:
        response = client.post(f"/messages/{conversation}/", {"text": "hi"})
    assert response.status_code == 302
    assert counted.total <= 7, counted.commands
