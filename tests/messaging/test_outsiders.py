"""Anyone outside a conversation gets a 404 from every route of it, exactly
as for an id that names nothing (docs/messages.md): someone never in it,
someone who left it, a malformed id and an unknown one; an anonymous
visitor is sent to log in. The routes are those of tests/hostile/routes.py
whose path names a conversation, each with every method its view takes, so
a conversation route added later is held to this the day it is added (the
hostile-input test then throws hostile values at it; this test says what
the answer must be)."""

from urllib.parse import urlencode

import pytest
from bson import ObjectId
from django.test import Client
from django.urls import resolve

from messaging import services
from messaging.documents import Conversation, MessageBucket
from profiles.documents import User
from socialsite.methods import allowed_methods
from tests.hostile.routes import ROUTES

# The pages' routes: the client API's (`api/v1/conversations/...`) answer a
# token, not a session, and are held to the same rule in
# tests/api/test_conversations.py and tests/api/test_visibility_inbox.py.
ROUTE_KEYS = sorted(
    key
    for key, route in ROUTES.items()
    if "conversation_id" in route.path and not key.startswith("api/")
)
# Bodies a member's request of each method would carry: an outsider's must
# be refused as a request that would have worked.
FORM = {"POST": {"text": "let me in"}}


def path_of(key: str, conversation_id: str) -> str:
    return "/" + key.replace("<str:conversation_id>", conversation_id)


def methods_of(key: str) -> list[str]:
    """What the route's view takes (its decorator, as the site's method
    middleware reads it); OPTIONS only lists them."""
    view = resolve(path_of(key, str(ObjectId()))).func
    return sorted(allowed_methods(view) - {"OPTIONS"})


def send(client: Client, method: str, path: str):
    if method not in FORM:
        return client.generic(method, path)
    body = urlencode(FORM[method])
    return client.generic(method, path, body, "application/x-www-form-urlencoded")


@pytest.fixture
def conversation(make_user):
    """Ann's conversation with bob and dee, which dee has left; cyd was
    never in it."""
    ann, _, _, dee = (make_user(h) for h in ("ann", "bob", "cyd", "dee"))
    made = services.conversation_start(sender=ann, to=["bob", "dee"], text="hello both")
    services.conversation_leave(conversation_id=made, member=dee)
    return str(made)


def _stored(conversation_id: str) -> tuple:
    """Everything a request could change of the conversation."""
    oid = ObjectId(conversation_id)
    row = Conversation._get_collection().find_one({"_id": oid})
    buckets = list(MessageBucket._get_collection().find({"conversation": oid}).sort("bucket", 1))
    return row, buckets


def test_the_table_names_every_conversation_route():
    """The routes this test walks: a rename that dropped one would make it
    pass on nothing."""
    assert ROUTE_KEYS == [
        "messages/<str:conversation_id>/",
        "messages/<str:conversation_id>/leave/",
        "messages/<str:conversation_id>/newer/",
    ]
    assert methods_of(ROUTE_KEYS[0]) == ["GET", "HEAD", "POST"]
    assert methods_of(ROUTE_KEYS[1]) == ["POST"]
    assert methods_of(ROUTE_KEYS[2]) == ["GET"]


@pytest.mark.parametrize("key", ROUTE_KEYS)
@pytest.mark.parametrize("who", ["cyd", "dee"])
def test_someone_outside_it_gets_404_and_changes_nothing(conversation, login, key, who):
    client = login(User.objects.get(handle=who))
    before = _stored(conversation)
    for method in methods_of(key):
        response = send(client, method, path_of(key, conversation))
        assert response.status_code == 404, (who, method, key, response.status_code)
    assert _stored(conversation) == before
    assert User.objects.get(handle=who).messages_unread == 0


@pytest.mark.parametrize("key", ROUTE_KEYS)
@pytest.mark.parametrize(
    "bad_id",
    [
        "0123456789abcdef01234567",  # well formed, names nothing
        "not-an-id",
        "٠" * 24,  # Arabic-Indic zeros: isdigit() would say yes
        "5F2B6C1E9D3A4B7C8E0F1A2B",  # upper-case hex of an id that is not there
        "$ne",
    ],
)
def test_an_unknown_or_malformed_id_is_404_to_a_member_of_others(conversation, login, key, bad_id):
    client = login(User.objects.get(handle="ann"))
    for method in methods_of(key):
        response = send(client, method, path_of(key, bad_id))
        assert response.status_code == 404, (bad_id, method, key, response.status_code)


@pytest.mark.parametrize("key", ROUTE_KEYS)
def test_an_anonymous_visitor_is_sent_to_log_in(conversation, key):
    client = Client()
    path = path_of(key, conversation)
    before = _stored(conversation)
    for method in methods_of(key):
        response = send(client, method, path)
        assert response.status_code == 302, (method, key, response.status_code)
        assert response["Location"].startswith("/accounts/login/?next="), response["Location"]
    assert _stored(conversation) == before


def test_the_same_requests_from_a_member_work(conversation, login):
    """The control: the 404s above are the outsiders' own, not broken routes."""
    bob = login(User.objects.get(handle="bob"))
    page = path_of(ROUTE_KEYS[0], conversation)
    assert send(bob, "GET", page).status_code == 200
    assert send(bob, "HEAD", page).status_code == 200
    sent = send(bob, "POST", page)
    assert sent.status_code == 302 and sent["Location"].startswith(page)
    assert "let me in" in bob.get(page).content.decode()
    left = send(bob, "POST", path_of(ROUTE_KEYS[1], conversation))
    assert left.status_code == 302 and left["Location"] == "/messages/"
    # Having left, bob is an outsider too.
    assert send(bob, "GET", page).status_code == 404
