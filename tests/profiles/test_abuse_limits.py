"""Abuse limits on accounts and the graph (issue 9): failed logins that cannot
lock the owner out, per-user limits on follows, profile edits, circle changes
and wrong current passwords, each refusing without changing anything."""

from django.test import Client

from profiles import services
from profiles.documents import FollowingEdge, User
from tests.conftest import PASSWORD, login_client

WRONG = {"username": "ada", "password": "wrong wrong"}
RIGHT = {"username": "ada", "password": PASSWORD}


def _login(ip, data):
    return Client(REMOTE_ADDR=ip).post("/accounts/login/", data)


# --- login -----------------------------------------------------------------


def test_successful_logins_do_not_use_up_the_budget(make_user, settings):
    settings.RATELIMIT_LOGIN = settings.RATELIMIT_LOGIN_FAILURES = "2/300"
    settings.RATELIMIT_LOGIN_HANDLE = "2/300"
    make_user("ada")
    assert [_login("10.0.0.1", RIGHT).status_code for _ in range(6)] == [302] * 6
    # The failures still count, and still stop at the limit.
    assert [_login("10.0.0.1", WRONG).status_code for _ in range(3)] == [200, 200, 429]


def test_a_strangers_failures_do_not_lock_the_owner_out(make_user, settings):
    settings.RATELIMIT_LOGIN_FAILURES = "3/300"  # per (handle, IP)
    settings.RATELIMIT_LOGIN_HANDLE = "10/300"  # per handle
    make_user("ada")
    # The stranger keeps going long after being refused: refusals count nothing.
    statuses = [_login("203.0.113.66", WRONG).status_code for _ in range(30)]
    assert statuses == [200] * 3 + [429] * 27
    # From that address even the right password waits out the window...
    assert _login("203.0.113.66", RIGHT).status_code == 429
    # ...but the owner, elsewhere, logs in.
    response = _login("198.51.100.7", RIGHT)
    assert response.status_code == 302
    assert response["Location"] == "/feed/"


def test_failures_per_ip_are_limited_across_handles(make_user, settings):
    settings.RATELIMIT_LOGIN = "3/300"  # per IP
    for handle in ("ada", "bob", "cy_", "dee"):
        make_user(handle)
    ip = "203.0.113.9"
    for handle in ("ada", "bob", "cy_"):
        assert _login(ip, {"username": handle, "password": "nope nope"}).status_code == 200
    response = _login(ip, {"username": "dee", "password": PASSWORD})
    assert response.status_code == 429
    assert b"Too many attempts" in response.content
    assert _login("198.51.100.7", {"username": "dee", "password": PASSWORD}).status_code == 302


# --- password change -------------------------------------------------------


def _change(client, old, new1="a brand new secret 2", new2="a brand new secret 2"):
    return client.post(
        "/settings/password/",
        {"old_password": old, "new_password1": new1, "new_password2": new2},
    )


def test_wrong_current_passwords_are_limited(make_user, login, settings):
    settings.RATELIMIT_PASSWORD = "2/900"
    ada = make_user("ada")
    client = login(ada)
    stored = User.objects.get(handle="ada").password
    # Other mistakes on the form do not count.
    for _ in range(3):
        response = _change(client, PASSWORD, new2="something else 3")
        assert response.status_code == 200
        assert "new_password2" in response.context["form"].errors
    for _ in range(2):
        response = _change(client, "not my password")
        assert response.status_code == 200
        assert "old_password" in response.context["form"].errors
    # Refused even with the right password, and the form does not say whether
    # the guess was right: it was never checked.
    response = _change(client, PASSWORD)
    assert response.status_code == 429
    assert "old_password" not in response.context["form"].errors
    assert "Too many attempts" in response.content.decode()
    assert User.objects.get(handle="ada").password == stored
    login_client(ada)  # the old password still works


# --- per-user limits on writes ----------------------------------------------


def test_follow_and_unfollow_are_limited(make_user, login, settings):
    settings.RATELIMIT_FOLLOW = "2/60"
    ada = make_user("ada")
    for handle in ("bob", "cat", "dan"):
        make_user(handle)
    client = login(ada)
    assert client.post("/u/bob/follow/").status_code == 302
    assert client.post("/u/cat/follow/").status_code == 302
    refused_follow = client.post("/u/dan/follow/")
    refused_unfollow = client.post("/u/bob/unfollow/")
    assert refused_follow.status_code == refused_unfollow.status_code == 429
    assert "Too many attempts" in refused_unfollow.content.decode()
    assert sorted(e.followee for e in FollowingEdge.objects(follower="ada")) == ["bob", "cat"]
    assert User.objects.get(handle="ada").following_count == 2
    assert User.objects.get(handle="dan").followers_count == 0


def test_profile_edits_are_limited(make_user, login, settings):
    settings.RATELIMIT_PROFILE_EDIT = "1/60"
    client = login(make_user("ada", name="Ada"))
    assert client.post("/settings/profile/", {"name": "Ada L"}).status_code == 302
    response = client.post("/settings/profile/", {"name": "Ada Lovelace", "bio": "hi"})
    assert response.status_code == 429
    assert "Too many attempts" in str(response.context["form"].non_field_errors())
    ada = User.objects.get(handle="ada")
    assert (ada.name, ada.profile.bio) == ("Ada L", "")


def test_circle_changes_are_limited(make_user, login, settings):
    settings.RATELIMIT_CIRCLES = "3/60"
    ada = make_user("ada")
    make_user("bob")
    services.follow_create(follower=ada, followee="bob")
    client = login(ada)
    assert client.post("/circles/", {"name": "friends"}).status_code == 302
    add = {"action": "add", "circle": "friends", "member": "bob"}
    assert client.post("/circles/", add).status_code == 302
    assert (
        client.post(
            "/circles/", {"action": "rename", "circle": "friends", "new": "pals"}
        ).status_code
        == 302
    )
    refused = [
        client.post("/circles/", {"name": "work"}),
        client.post("/circles/", {"action": "delete", "circle": "pals"}),
        client.post("/circles/", {"action": "remove", "circle": "pals", "member": "bob"}),
        client.post("/u/bob/circles/", {"circles": []}),
    ]
    assert [r.status_code for r in refused] == [429] * 4
    assert "Too many attempts" in refused[0].content.decode()
    assert User.objects.get(handle="ada").circles == ["pals"]
    assert FollowingEdge.objects.get(follower="ada", followee="bob").circles == ["pals"]
