"""Sign-up, login, logout, sessions and password change through the test client."""

import pytest
from django.test import Client

from profiles.documents import User
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD

SIGNUP = {
    "username": "ada",
    "name": "Ada Lovelace",
    "password1": "analytical engine 1843",
    "password2": "analytical engine 1843",
}


def test_signup_creates_user_and_logs_in(client):
    response = client.post("/accounts/signup/", SIGNUP)
    assert response.status_code == 302
    user = User.objects.get(handle="ada")
    assert user.name == "Ada Lovelace"
    assert user.password.startswith("md5$") and "analytical" not in user.password
    assert client.get("/settings/profile/").status_code == 200


@pytest.mark.parametrize(
    "change, field",
    [
        ({"username": "A"}, "username"),
        ({"username": "has space"}, "username"),
        ({"username": "x" * 31}, "username"),
        ({"password2": "different thing 1"}, "password2"),
        ({"password1": "12345678", "password2": "12345678"}, "password1"),
        ({"password1": "password", "password2": "password"}, "password1"),
        ({"name": "   "}, "name"),
    ],
)
def test_signup_errors_rerender_the_form(client, change, field):
    response = client.post("/accounts/signup/", {**SIGNUP, **change})
    assert response.status_code == 200
    assert field in response.context["form"].errors
    assert b"errorlist" in response.content
    assert User.objects.count() == 0


def test_signup_with_taken_handle(client, make_user):
    make_user("ada")
    response = client.post("/accounts/signup/", SIGNUP)
    assert response.status_code == 200
    assert "taken" in str(response.context["form"].errors["username"])


def test_login_logout(client, make_user):
    make_user("ada")
    response = client.post("/accounts/login/", {"username": "ADA", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/feed/"
    assert SessionRecord.objects(user="ada").count() == 1
    assert client.get("/accounts/logout/")["Location"] == "/"  # logout is POST only
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert SessionRecord.objects(user="ada").count() == 0
    assert client.get("/settings/profile/").status_code == 302


def test_wrong_password_and_unknown_handle_answer_the_same(client, make_user):
    make_user("ada")
    wrong = client.post("/accounts/login/", {"username": "ada", "password": "nope nope"})
    unknown = client.post("/accounts/login/", {"username": "zoe", "password": "nope nope"})
    assert wrong.status_code == unknown.status_code == 200
    assert wrong.context["form"].non_field_errors() == unknown.context["form"].non_field_errors()


def test_suspended_user_cannot_log_in(client, make_user):
    make_user("ada", status="suspended")
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 200
    assert SessionRecord.objects.count() == 0


@pytest.mark.parametrize(
    "next_url, expected",
    [
        ("/u/ada/", "/u/ada/"),
        ("https://evil.example/", "/feed/"),
        ("//evil.example/", "/feed/"),
        ("/\\evil.example", "/feed/"),
        ("javascript:alert(1)", "/feed/"),
    ],
)
def test_login_next_is_same_site_only(client, make_user, next_url, expected):
    make_user("ada")
    response = client.post(
        f"/accounts/login/?next={next_url}", {"username": "ada", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert response["Location"] == expected


def test_login_required_redirects_with_next(client):
    response = client.get("/circles/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fcircles%2F"


def test_password_change_ends_other_sessions(make_user, login):
    make_user("ada")
    here, elsewhere = login(User.objects.get(handle="ada")), Client()
    elsewhere.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert elsewhere.get("/settings/profile/").status_code == 200
    response = here.post(
        "/settings/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a brand new secret 2",
            "new_password2": "a brand new secret 2",
        },
    )
    assert response.status_code == 302
    assert here.get("/settings/profile/").status_code == 200
    assert elsewhere.get("/settings/profile/").status_code == 302
    assert SessionRecord.objects(user="ada").count() == 1


def test_session_with_stale_password_hash_is_rejected(make_user, login):
    """Even a session that survived deletion is invalid once the password changes."""
    ada = make_user("ada")
    client = login(ada)
    User.objects(handle="ada").update_one(set__password="md5$other$hash")
    assert client.get("/settings/profile/").status_code == 302


def test_suspension_rejects_existing_session(make_user, login):
    ada = make_user("ada")
    client = login(ada)
    assert client.get("/settings/profile/").status_code == 200
    User.objects(handle="ada").update_one(set__status="suspended")
    assert client.get("/settings/profile/").status_code == 302


def test_login_rate_limit_triggers(client, make_user, settings):
    settings.RATELIMIT_LOGIN = "3/300"
    make_user("ada")
    statuses = [
        client.post("/accounts/login/", {"username": "ada", "password": "wrong wrong"}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]
    # Even the right password is refused while limited, with a clear message.
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 429
    assert b"Too many attempts" in response.content


def test_login_rate_limit_is_loose_per_handle_across_ips(make_user, settings):
    """Failures from many addresses add up on the handle, at its own (loose) limit."""
    settings.RATELIMIT_LOGIN_HANDLE = "2/300"
    make_user("ada")
    for i in range(2):
        Client(REMOTE_ADDR=f"10.0.0.{i}").post(
            "/accounts/login/", {"username": "ada", "password": "wrong wrong"}
        )
    response = Client(REMOTE_ADDR="10.0.0.9").post(
        "/accounts/login/", {"username": "ada", "password": PASSWORD}
    )
    assert response.status_code == 429


def test_signup_rate_limit_per_ip(client, settings):
    settings.RATELIMIT_SIGNUP = "2/3600"
    for i in range(2):
        Client().post("/accounts/signup/", {**SIGNUP, "username": f"user{i}"})
    response = client.post("/accounts/signup/", {**SIGNUP, "username": "third"})
    assert response.status_code == 429
    assert User.objects(handle="third").count() == 0
