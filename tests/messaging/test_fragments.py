"""A conversation's messages come from the fragment cache, one fragment per
message (docs/performance.md#the-fragment-cache): each member still sees
their own page (which messages are theirs, where a Report link is), a new
message renders only itself and the one it follows, and the ages move on."""

import re
from datetime import timedelta

import pytest

from messaging import services
from profiles.documents import User
from socialsite import clock, fragments


def fresh(handle: str) -> User:
    return User.objects.get(handle=handle)


@pytest.fixture
def renders(monkeypatch):
    """The messages' fragments rendered (not served from the cache) since the
    last look (the site's bar, a fragment of its own, is not counted)."""
    fragments.cache.clear()
    stored: list[str] = []
    real = fragments.cache.set

    def counting(key: str, html: str) -> None:
        if not key.startswith("topbar:"):
            stored.append(key)
        real(key, html)

    monkeypatch.setattr(fragments.cache, "set", counting)
    return stored


def messages_of(html: str) -> list[tuple[str, bool, bool]]:
    """(text, the reader's own, has a Report link) of each message shown."""
    found = re.findall(r'<li class="dm( dm--mine)?"[^>]*>(.*?)</li>', html, re.S)
    return [
        (
            re.search(r'<p class="dm__text">([^<]*)</p>', body).group(1),
            bool(mine),
            'class="report-control"' in body,
        )
        for mine, body in found
    ]


def test_each_member_sees_their_own_page_from_the_same_cache(make_user, login, renders):
    ann, bob = make_user("ann", "Ann"), make_user("bob", "Bob")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="hi")
    services.message_send(conversation_id=conversation, sender=bob, text="yo")
    url = f"/messages/{conversation}/"
    as_ann, as_bob = login(fresh("ann")), login(fresh("bob"))

    assert messages_of(as_ann.get(url).content.decode()) == [
        ("hi", True, False),
        ("yo", False, True),
    ]
    assert len(renders) == 2
    # Bob's page: the same messages, but his own are his, and his fragments.
    assert messages_of(as_bob.get(url).content.decode()) == [
        ("hi", False, True),
        ("yo", True, False),
    ]
    assert len(renders) == 4
    renders.clear()
    html = as_ann.get(url).content.decode()
    assert renders == []  # all from the cache
    assert messages_of(html) == [("hi", True, False), ("yo", False, True)]
    assert "<!--slot" not in html

    # A new message: it and the one that was last (no longer `#latest`) render.
    services.message_send(conversation_id=conversation, sender=bob, text="there?")
    html = as_ann.get(url).content.decode()
    assert len(renders) == 2
    assert [text for text, _, _ in messages_of(html)] == ["hi", "yo", "there?"]
    assert html.count('id="latest"') == 1
    assert re.search(r'id="latest">.*?there\?', html, re.S)


def test_the_ages_move_on_while_the_messages_are_cached(make_user, login, renders, monkeypatch):
    ann = make_user("ann")
    make_user("bob")
    conversation = services.conversation_start(sender=ann, to=["bob"], text="hi")
    client = login(fresh("bob"))
    url = f"/messages/{conversation}/"
    assert "0\xa0minutes ago</time>" in client.get(url).content.decode()
    renders.clear()
    later = clock.now() + timedelta(hours=2, minutes=5)
    monkeypatch.setattr(clock, "now", lambda: later)
    html = client.get(url).content.decode()
    assert renders == []
    assert "2\xa0hours, 5\xa0minutes ago</time>" in html
