"""Conversations through Mastodon.py (docs/api.md#conversations): our
messages as Mastodon's direct conversations, written with
`status_post(visibility="direct")` by the messages page's service."""

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError

from api.entities import checks
from messaging import services
from messaging.documents import Conversation
from profiles.documents import User
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client


def test_send_list_read_and_leave(ann_api, ann, bob, make_user):
    cyd = make_user("cyd", name="Cyd")
    sent = ann_api.status_post("@bob tea at five? <b>", visibility="direct")
    assert sent.visibility == "direct" and sent.account.acct == "ann"
    assert "&lt;b&gt;" in sent.content and [m.acct for m in sent.mentions] == ["bob"]
    answer = raw(
        ann_api,
        "POST",
        "/api/v1/statuses",
        data={"status": "@bob @cyd all of us", "visibility": "direct"},
    )
    assert answer.status_code == 200, answer.text
    assert checks.problems(answer.json(), checks.STATUS) == []
    assert checks.problems(answer.json(), checks.STATUS_VIEWER) == []
    # The same people again: the same conversation, as on the messages page.
    ann_api.status_post("@bob or six", visibility="direct")
    assert Conversation.objects.count() == 2

    bob_api = logged_in(login_client(bob))
    listed = bob_api.conversations()
    assert [sorted(a.acct for a in c.accounts) for c in listed] == [["ann"], ["ann", "cyd"]]
    assert [c.unread for c in listed] == [True, True]
    assert "or six" in listed[0].last_status.content
    assert listed[0].last_status.visibility == "direct"
    assert str(listed[0].last_status.id) > str(sent.id)  # a message's id is its own, time-ordered
    for data in raw(bob_api, "GET", "/api/v1/conversations").json():
        assert checks.problems(data, checks.CONVERSATION) == []
        assert checks.problems(data["last_status"], checks.STATUS) == []
    assert User.objects.get(handle="bob").messages_unread == 2

    read = bob_api.conversations_read(listed[0].id)
    assert (
        read.unread is False and read.id == listed[0].id and "or six" in read.last_status.content
    )
    assert User.objects.get(handle="bob").messages_unread == 1
    assert [c.unread for c in bob_api.conversations()] == [False, True]

    # A reply from the other side, then paging one at a time.
    bob_api.status_post("@ann five is fine", visibility="direct")
    first = bob_api.conversations(limit=1)
    assert len(first) == 1 and "five is fine" in first[0].last_status.content
    second = bob_api.fetch_next(first)
    assert [c.id for c in second] == [listed[1].id]
    assert not bob_api.fetch_next(second)
    assert bob_api.fetch_previous(first) == []

    # Leaving: gone from the list, a 404 from then on; the others see that.
    raw(bob_api, "DELETE", f"/api/v1/conversations/{listed[1].id}").raise_for_status()
    assert [c.id for c in bob_api.conversations()] == [listed[0].id]
    assert raw(bob_api, "DELETE", f"/api/v1/conversations/{listed[1].id}").status_code == 404
    with pytest.raises(MastodonNotFoundError):
        bob_api.conversations_read(listed[1].id)
    cyd_api = logged_in(login_client(cyd))
    assert [a.acct for a in cyd_api.conversations()[0].accounts] == ["ann"]


def test_the_messaging_rules_hold(ann_api, ann, bob, make_user, settings):
    cyd = make_user("cyd", name="Cyd")
    with pytest.raises(MastodonAPIError, match="mention who"):
        ann_api.status_post("nobody named", visibility="direct")
    with pytest.raises(MastodonAPIError, match="no one called @nobody"):
        ann_api.status_post("@nobody hi", visibility="direct")
    cyd.messages_from = "nobody"
    cyd.save()
    with pytest.raises(MastodonAPIError, match="doesn't take new messages"):
        ann_api.status_post("@cyd hi", visibility="direct")
    from profiles.services import block_create

    block_create(blocker=bob, blocked="ann")
    with pytest.raises(MastodonAPIError, match="can't write to @bob"):
        ann_api.status_post("@bob hi", visibility="direct")
    assert Conversation.objects.count() == 0
    settings.RATELIMIT_CONVERSATION = "1/60"
    make_user("dan")
    ann_api.status_post("@dan one", visibility="direct")
    answer = raw(
        ann_api, "POST", "/api/v1/statuses", data={"status": "@dan two", "visibility": "direct"}
    )
    assert answer.status_code == 429 and answer.headers["Retry-After"]
    # A conversation one is not in is not found.
    dans = Conversation.objects.get()
    cyd_api = logged_in(login_client(cyd))
    assert raw(cyd_api, "POST", f"/api/v1/conversations/{dans.id}/read").status_code == 404
    assert raw(cyd_api, "DELETE", f"/api/v1/conversations/{dans.id}").status_code == 404
    assert cyd_api.conversations() == []


def test_tokens_scopes_and_app_tokens(ann_web, app_api, ann, bob):
    conversation_id = services.conversation_start(sender=bob, to=["ann"], text="hi")
    reader = logged_in(ann_web, scopes=["read:statuses"])
    assert raw(reader, "GET", "/api/v1/conversations").status_code == 200
    for method, path in (
        ("POST", f"/api/v1/conversations/{conversation_id}/read"),
        ("DELETE", f"/api/v1/conversations/{conversation_id}"),
    ):
        answer = raw(reader, method, path)
        assert answer.status_code == 403 and answer.json()["error"]
        assert raw(app_api, method, path).status_code == 422
        assert raw(reader, method, path, headers={"Authorization": ""}).status_code == 401
    assert raw(app_api, "GET", "/api/v1/conversations").status_code == 422
    assert (
        raw(reader, "GET", "/api/v1/conversations", headers={"Authorization": ""}).status_code
        == 401
    )
    unscoped = logged_in(ann_web, scopes=["read:notifications"])
    assert raw(unscoped, "GET", "/api/v1/conversations").status_code == 403
    writer = logged_in(ann_web, scopes=["write:statuses"])
    answer = raw(
        writer, "POST", "/api/v1/statuses", data={"status": "@bob x", "visibility": "direct"}
    )
    assert answer.status_code == 200, answer.text
    for bad in ("nothex", "0" * 24, "x" * 300):
        assert (
            raw(
                ann_web_api := logged_in(ann_web), "POST", f"/api/v1/conversations/{bad}/read"
            ).status_code
            == 404
        )
        assert raw(ann_web_api, "GET", f"/api/v1/conversations?max_id={bad}").status_code == 400


def test_min_id_pages_the_ones_just_above(bob, make_user):
    for handle in ("ann", "cyd", "dan"):
        make_user(handle)
        services.conversation_start(sender=bob, to=[handle], text=f"hi {handle}")
    bob_api = logged_in(login_client(bob))
    newest = bob_api.conversations(limit=1)
    middle = bob_api.fetch_next(newest)
    oldest = bob_api.fetch_next(middle)
    assert [[a.acct for a in page[0].accounts] for page in (newest, middle, oldest)] == [
        ["dan"],
        ["cyd"],
        ["ann"],
    ]
    assert not bob_api.fetch_next(oldest)
    above = bob_api.fetch_previous(oldest)
    assert [c.id for c in above] == [middle[0].id]  # the nearest, not the newest
    assert [c.id for c in bob_api.conversations(since_id=oldest._pagination_prev["min_id"])] == [
        newest[0].id,
        middle[0].id,
    ]
