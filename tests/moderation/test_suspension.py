"""Suspensions: no login, sessions ended at once, posts and comments hidden
from others (not from moderators), lifted by a moderator or by the end date."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from moderation import services
from moderation.documents import AuditEntry
from moderation.services import users
from moderation.targets import resolve_target
from profiles.documents import User
from socialsite.clock import now
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD
from tests.moderation.conftest import new_comment, new_post
from timelines.selectors import pages as selectors

HIDDEN = "[hidden: the author&#x27;s account is suspended]"


def suspend(client, handle, reason="spam", until=""):
    return client.post(f"/mod/users/{handle}/suspend/", {"reason": reason, "until": until})


def status(handle) -> str:
    return User.objects.get(handle=handle).status


def news(handle) -> list:
    return [p["_id"] for p in selectors.news_page(User.objects.get(handle=handle)).posts]


def test_a_suspended_user_cannot_log_in(cast, login, client):
    response = suspend(login(cast.mod), "cyd", "spam")
    assert response.status_code == 302 and response["Location"] == "/mod/users/cyd/"
    assert status("cyd") == "suspended"
    response = client.post("/accounts/login/", {"username": "cyd", "password": PASSWORD})
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert client.get("/feed/").status_code == 302


@pytest.mark.parametrize("sessions_deleted", [True, False])
def test_existing_sessions_are_rejected_on_their_next_request(
    sessions_deleted, cast, login, monkeypatch
):
    cyd, other_browser = login(cast.cyd), login(cast.cyd)
    assert cyd.get("/feed/").status_code == 200
    assert SessionRecord.objects(user="cyd").count() == 2
    if not sessions_deleted:
        # Even a session that survived (say, written back by a request in
        # flight) is refused: every request checks the user's status.
        monkeypatch.setattr(users, "end_sessions_of", lambda handle: 0)
    suspend(login(cast.mod), "cyd")
    assert SessionRecord.objects(user="cyd").count() == (0 if sessions_deleted else 2)
    for browser in (cyd, other_browser):
        response = browser.get("/feed/")
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
        posted = browser.post("/posts/", {"type": "status", "text": "still here?"})
        assert posted.status_code == 302
    assert SessionRecord.objects(user="cyd").count() == 0
    assert not any(p["by"]["id"] == "cyd" for p in selectors.news_page(cast.bob).posts)


@pytest.mark.parametrize("model", ["read", "cache", "month", "size"])
def test_a_suspended_users_posts_and_comments_are_hidden_from_others(
    model, settings, cast, login, client
):
    settings.FEED_MODEL = model
    mine = new_post(cast.cyd, "cyd's own post")
    adas = new_post(cast.ada, "ada's post")
    comment = new_comment(cast.cyd, adas.id, "cyd's comment")
    bob, mod = login(cast.bob), login(cast.mod)
    assert mine.id in news("bob")
    assert "cyd&#x27;s comment" in bob.get("/feed/").content.decode()

    suspend(mod, "cyd")
    assert mine.id not in news("bob") and adas.id in news("bob")
    assert bob.get(f"/posts/{mine.id}/").status_code == 404
    assert client.get(f"/posts/{mine.id}/").status_code == 404
    assert f'data-post-id="{mine.id}"' not in bob.get("/u/cyd/").content.decode()
    feed = bob.get("/feed/").content.decode()
    assert "cyd&#x27;s comment" not in feed  # nor in the card's last comments
    page = bob.get(f"/posts/{adas.id}/").content.decode()
    assert HIDDEN in page and "cyd&#x27;s comment" not in page
    permalink = bob.get(f"/posts/{adas.id}/c/{comment.slug}/")
    assert permalink.status_code == 200 and HIDDEN in permalink.content.decode()
    assert "cyd&#x27;s comment" not in permalink.content.decode()
    # Moderators still see the posts, on the post page and the user's page.
    assert "cyd&#x27;s own post" in mod.get(f"/posts/{mine.id}/").content.decode()
    assert "cyd&#x27;s own post" in mod.get("/mod/users/cyd/").content.decode()

    mod.post("/mod/users/cyd/unsuspend/", {"reason": "appeal"})
    assert status("cyd") == "active"
    assert mine.id in news("bob")
    assert "cyd&#x27;s own post" in bob.get(f"/posts/{mine.id}/").content.decode()
    assert "cyd&#x27;s comment" in bob.get(f"/posts/{adas.id}/").content.decode()
    assert "cyd&#x27;s comment" in bob.get("/feed/").content.decode()
    assert login(cast.cyd).get("/feed/").status_code == 200


def test_a_suspension_needs_a_reason_and_a_future_end_date(cast, login):
    mod = login(cast.mod)
    tomorrow = (now() + timedelta(days=1)).date().isoformat()
    yesterday = (now() - timedelta(days=1)).date().isoformat()
    for reason, until in (("", ""), ("   ", tomorrow), ("spam", yesterday), ("spam", "soon")):
        response = suspend(mod, "cyd", reason, until)
        assert response.status_code == 302
        assert status("cyd") == "active"
    assert AuditEntry.objects.count() == 0
    suspend(mod, "cyd", "spam", tomorrow)
    cyd = User.objects.get(handle="cyd")
    assert cyd.status == "suspended" and cyd.suspension_reason == "spam"
    assert cyd.suspended_until.date().isoformat() == tomorrow
    page = mod.get("/mod/users/cyd/").content.decode()
    assert "Unsuspend" in page and "spam" in page


def test_who_may_suspend_whom(cast, login, make_user):
    mod = login(cast.mod)
    other_mod = make_user("other_mod", role="moderator")
    for handle in ("boss", "other_mod", "mod"):
        response = suspend(mod, handle)
        assert response.status_code == 302
        assert status(handle) == "active"
    assert "Only an admin" in mod.get("/mod/users/boss/").content.decode()
    suspend(login(cast.boss), other_mod.handle)
    assert status("other_mod") == "suspended"
    assert [e.action for e in AuditEntry.objects] == ["user.suspend"]


def test_unsuspending_someone_not_suspended_does_nothing(cast, login):
    mod = login(cast.mod)
    response = mod.post("/mod/users/cyd/unsuspend/", {})
    assert "not suspended" in mod.get(response["Location"]).content.decode()
    assert AuditEntry.objects.count() == 0
    assert mod.post("/mod/users/nobody/unsuspend/", {}).status_code == 404
    assert mod.post("/mod/users/NO$/suspend/", {"reason": "x"}).status_code == 404


def test_expire_suspensions_lifts_them_once_the_end_date_has_passed(cast, login):
    mod = login(cast.mod)
    tomorrow = (now() + timedelta(days=1)).date().isoformat()
    suspend(mod, "cyd", "cool off", tomorrow)
    suspend(mod, "bob", "for good")  # no end date
    post = new_post(cast.ada)
    call_command("expire_suspensions")
    assert status("cyd") == "suspended"

    User.objects(handle="cyd").update_one(set__suspended_until=now() - timedelta(minutes=1))
    out = StringIO()
    call_command("expire_suspensions", stdout=out)
    assert "1 suspension(s) ended." in out.getvalue()
    assert (status("cyd"), status("bob")) == ("active", "suspended")
    lifted = AuditEntry.objects(action="user.unsuspend").get()
    assert (lifted.moderator, lifted.target_id, lifted.reason) == (
        "system",
        "cyd",
        "suspension ended",
    )
    out = StringIO()
    call_command("expire_suspensions", stdout=out)
    assert "0 suspension(s) ended." in out.getvalue()
    assert AuditEntry.objects(action="user.unsuspend").count() == 1
    assert login(cast.cyd).get(f"/posts/{post.id}/").status_code == 200


def test_the_dashboard_also_lifts_expired_suspensions(cast, login):
    services.user_suspend(
        moderator=cast.mod,
        target=resolve_target("user:cyd"),
        reason="x",
        until=now() + timedelta(hours=1),
    )
    User.objects(handle="cyd").update_one(set__suspended_until=now() - timedelta(seconds=1))
    login(cast.mod).get("/mod/")
    assert status("cyd") == "active"
