"""Every page read runs under a database deadline (maxTimeMS), and a page whose
reads run out of it is a friendly 503, not a 500 (issue 10, item 9)."""

import pytest
from pymongo import _csot
from pymongo.errors import ExecutionTimeout, NetworkTimeout, OperationFailure

from profiles import selectors


@pytest.fixture
def searching(monkeypatch):
    """Make people search do `behaviour` when the search page calls it."""

    def install(behaviour):
        monkeypatch.setattr(selectors, "search_people", lambda *args, **kwargs: behaviour())

    return install


@pytest.mark.parametrize(
    "error",
    [
        ExecutionTimeout("operation exceeded time limit", 50),  # the server's maxTimeMS
        NetworkTimeout("timed out"),  # the client's deadline, waiting for a reply
    ],
)
def test_a_timed_out_read_is_a_friendly_503(error, searching, make_user, login):
    def slow():
        raise error

    searching(slow)
    response = login(make_user("ada")).get("/search/?q=bob")
    page = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "This took too long" in page and "try again" in page
    assert 'href="/search/?q=bob"' in page  # the "Try again" link
    assert "/accounts/logout/" in page  # a full page, with the signed-in menu
    # The headers the middleware below set on the stand-in are kept.
    assert response["X-Frame-Options"]
    assert response["X-Request-ID"]


def test_other_database_errors_are_not_taken_for_timeouts(searching, make_user, login):
    def broken():
        raise OperationFailure("something else", 2)

    searching(broken)
    with pytest.raises(OperationFailure):
        login(make_user("ada")).get("/search/?q=bob")


def test_page_reads_run_under_the_configured_deadline(searching, make_user, login, settings):
    settings.MONGODB_REQUEST_TIMEOUT_MS = 1500
    seen = []

    def observe():
        seen.append(_csot.get_timeout())
        return selectors.Page([], None)

    searching(observe)
    client = login(make_user("ada"))
    assert client.get("/search/?q=bob").status_code == 200
    assert seen == [1.5]
    assert _csot.get_timeout() is None  # the deadline ends with the request

    settings.MONGODB_REQUEST_TIMEOUT_MS = 0  # off
    client.get("/search/?q=bob")
    assert seen[-1] is None


def test_a_form_post_has_no_page_deadline(make_user, login, monkeypatch):
    from feeds.services import posts as services

    seen = []
    original = services.post_create

    def observe(**kwargs):
        seen.append(_csot.get_timeout())
        return original(**kwargs)

    monkeypatch.setattr(services, "post_create", observe)
    login(make_user("ada")).post("/posts/", {"type": "status", "text": "hello"})
    assert seen == [None]


def test_the_notifications_page_marks_read_without_the_page_deadline(
    make_user, login, monkeypatch, settings
):
    """Opening the page marks the notifications read: a GET that writes, so
    the page deadline never cuts it (docs/performance.md)."""
    from notifications import services

    settings.MONGODB_REQUEST_TIMEOUT_MS = 1500
    seen = []
    original = services.notifications_mark_read

    def observe(**kwargs):
        seen.append(_csot.get_timeout())
        return original(**kwargs)

    monkeypatch.setattr(services, "notifications_mark_read", observe)
    assert login(make_user("ada")).get("/notifications/").status_code == 200
    assert seen == [None]
