"""Live updates in two browsers (docs/live.md#in-the-browser), against the
ASGI application (tests/asgi_server.py: pytest-django's `live_server` is
WSGI, which holds no stream): Bob's open pages change as Alice acts, with
no reload. His feed offers Alice's new post, his header counts her like,
his open conversation shows her message; then his connection drops, she
writes and likes meanwhile, and once it is back his page shows it all."""

import re

import pytest
from playwright.sync_api import expect

from feeds.documents import PUBLIC
from feeds.services import likes
from feeds.services import posts as feeds
from messaging import services as messaging
from profiles import services as graph
from tests.conftest import PASSWORD, user
from tests.e2e.conftest import pages_of

# "Within 2 s" of the write, as the page shows it.
LIVE_MS = 2000


@pytest.fixture
def asgi_page(request, browser, asgi_server):
    """`asgi_page()`: `new_page` on the ASGI server."""
    yield from pages_of(request, browser, asgi_server.url)


def log_in(page, handle: str) -> None:
    page.goto("/accounts/login/")
    page.locator("[name=username]").fill(handle)
    page.locator("[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))


def live(page):
    """The page's stream is open (static/js/live.js marks <html>)."""
    expect(page.locator("html")).to_have_attribute("data-live", "open")


def test_bobs_open_pages_follow_what_alice_does(make_user, asgi_page, asgi_server):
    alice, bob = make_user("alice", "Alice Liddell"), make_user("bob", "Bob Kahn")
    graph.follow_create(follower=bob, followee="alice")
    bobs = [
        feeds.post_create(author=bob, type="status", detail={"text": t}, circles=[PUBLIC])
        for t in ("Bread day", "Still bread day")
    ]
    talk = messaging.conversation_start(sender=alice, to=["bob"], text="Lunch?")
    alice_page, bob_page = asgi_page(), asgi_page()
    log_in(alice_page, "alice")
    log_in(bob_page, "bob")
    live(bob_page)
    notifications = bob_page.locator("header a.notifications")
    expect(notifications).to_have_attribute("data-unread", "0")

    # Alice posts from her own composer: Bob's feed offers it at once.
    alice_page.locator("#composer-text").fill("Fresh from the oven")
    alice_page.get_by_role("button", name="Post", exact=True).click()
    bar = bob_page.locator(".new-posts__button")
    expect(bar).to_have_text("1 new post", timeout=LIVE_MS)
    # She likes his post: his header counts it, and says so.
    likes.like_create(post_id=bobs[0].id, user=user("alice"))
    expect(notifications).to_have_attribute("data-unread", "1", timeout=LIVE_MS)
    expect(notifications.locator(".notifications__count")).to_have_text("1")
    expect(bob_page.locator("header [role=status]")).to_have_text("1 unread notification")
    bar.click()
    expect(bob_page.locator(".feed-list article.post").first).to_contain_text(
        "Fresh from the oven"
    )

    # His conversation with her, open: her message comes into it, read.
    bob_page.goto(f"/messages/{talk}/")
    live(bob_page)
    alice_page.goto(f"/messages/{talk}/")
    alice_page.get_by_label("Your message").fill("At one?")
    alice_page.get_by_role("button", name="Send").click()
    said = bob_page.locator("ol.message-list li.dm", has_text="At one?")
    expect(said).to_be_visible(timeout=LIVE_MS)
    expect(said).to_have_attribute("id", "latest")
    expect(bob_page.locator("#latest")).to_have_count(1)
    expect(bob_page.locator("header a.messages")).to_have_attribute("data-unread", "0")

    # His connection drops; meanwhile she writes and likes. Back online,
    # his page reads what it missed.
    bob_page.context.set_offline(True)  # his browser's attempts to reconnect fail
    asgi_server.drop()
    expect(bob_page.locator("html")).to_have_attribute("data-live", "closed")
    messaging.message_send(conversation_id=talk, sender=user("alice"), text="Or at two?")
    likes.like_create(post_id=bobs[1].id, user=user("alice"))
    bob_page.context.set_offline(False)
    live(bob_page)
    expect(bob_page.locator("li.dm", has_text="Or at two?")).to_be_visible(timeout=LIVE_MS)
    expect(notifications).to_have_attribute("data-unread", "2", timeout=LIVE_MS)
    assert bob_page.locator("ol.message-list li.dm").count() == 3
