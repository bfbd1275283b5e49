"""The site's bar comes from the fragment cache (socialsite/templatetags/frame.py):
each person sees their own name, counts and current section, the logout
form carries this page's CSRF token, and a signed-out visitor sees the
log-in links."""

import re

from profiles.services import standing
from socialsite import fragments


def _bar(html: str) -> str:
    return html[html.index('<header class="topbar">') : html.index("</header>")]


def _current(bar: str) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]+)"[^>]*aria-current="page"', bar)


def test_each_person_sees_their_own_bar_and_section(make_user, login):
    fragments.cache.clear()
    ann, bob = make_user("ann", name="Ann Archer"), make_user("bob", name="Bob Baker")
    as_ann, as_bob = login(ann), login(bob)

    feed = _bar(as_ann.get("/feed/").content.decode())
    assert _current(feed) == ["/feed/", "/feed/"]  # the bar's link and the phone menu's
    assert "Bob" not in feed and 'href="/u/ann/"' in feed

    mine = _bar(as_ann.get("/u/ann/").content.decode())
    assert _current(mine) == ["/u/ann/", "/u/ann/"]
    theirs = _bar(as_ann.get("/u/bob/").content.decode())
    assert _current(theirs) == []

    settings = _bar(as_bob.get("/settings/").content.decode())
    assert _current(settings) == ["/settings/"]
    assert "Ann" not in settings and 'href="/u/bob/"' in settings

    standing.notifications_unread_add(handle="bob", count=3)
    counted = _bar(as_bob.get("/settings/").content.decode())
    assert 'aria-label="3 unread"' in counted


def test_the_logout_form_carries_this_pages_token(make_user, login):
    client = login(make_user("ann"))
    for _ in range(2):  # the second from the cache
        html = client.get("/feed/").content.decode()
        bar = _bar(html)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', bar).group(1)
        assert token and "slot" not in bar
        logout = client.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
        assert logout.status_code == 302
        client = login(make_user(f"ann{_}"))


def test_a_visitor_sees_the_log_in_links(client):
    bar = _bar(client.get("/").content.decode())
    assert 'href="/accounts/login/"' in bar and "Log out" not in bar
