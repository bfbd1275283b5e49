"""Two-factor login (docs/accounts.md#two-factor-login): enrolment with a code
from the page's secret, a login that asks for the code with no session until
it passes, codes that never work twice, recovery codes that work once, and
turning it off with the password and a code."""

import re
import time

import pyotp
import pytest
from django.test import Client

from profiles.documents import User
from profiles.services import twofactor
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD


def enrol(client) -> tuple[str, list[str]]:
    """Turn 2FA on through the settings page; (secret, recovery codes)."""
    page = client.get("/settings/2fa/").content.decode()
    secret = re.search(r'data-secret="([A-Z2-7]+)"', page).group(1)
    assert "<svg" in page and 'data-2fa="off"' in page
    done = client.post("/settings/2fa/", {"password": PASSWORD, "code": pyotp.TOTP(secret).now()})
    assert done.status_code == 200
    codes = re.findall(r"<li><code>([a-z0-9-]+)</code></li>", done.content.decode())
    return secret, codes


def next_code(secret: str) -> str:
    """The code of the next time step (still accepted: one step of drift).
    Enrolment spent the current one, and a code never works twice."""
    totp = pyotp.TOTP(secret)
    return totp.generate_otp(int(time.time()) // totp.interval + 1)


def password_step(client, handle="ada", password=PASSWORD):
    return client.post("/accounts/login/", {"username": handle, "password": password})


def test_enrolment_shows_the_same_secret_until_confirmed_and_ten_codes_once(make_user, login):
    client = login(make_user("ada"))
    secrets_shown = {
        re.search(r'data-secret="(\w+)"', client.get("/settings/2fa/").content.decode()).group(1)
        for _ in range(2)
    }
    assert len(secrets_shown) == 1  # a reload shows the same secret
    wrong = client.post("/settings/2fa/", {"password": PASSWORD, "code": "000000"})
    assert wrong.status_code == 200 and 'class="errorlist' in wrong.content.decode()
    assert not User.objects.get(handle="ada").has_2fa
    secret, codes = enrol(client)
    assert len(codes) == 10 and len(set(codes)) == 10
    user = User.objects.get(handle="ada")
    assert user.totp_secret == secret and user.totp_pending is None
    assert len(user.recovery_codes) == 10 and codes[0] not in user.recovery_codes  # hashed
    page = client.get("/settings/2fa/").content.decode()
    assert 'data-2fa="on"' in page and codes[0] not in page  # shown once


def test_enrolment_needs_the_password(make_user, login):
    """A stolen session cannot tie the account to the thief's authenticator
    and lock its owner out."""
    client = login(make_user("ada"))
    page = client.get("/settings/2fa/").content.decode()
    assert 'name="password"' in page
    code = pyotp.TOTP(re.search(r'data-secret="([A-Z2-7]+)"', page).group(1)).now()
    for password in ({}, {"password": "not my password"}):
        refused = client.post("/settings/2fa/", {"code": code, **password})
        assert refused.status_code == 200 and 'class="errorlist' in refused.content.decode()
    assert not User.objects.get(handle="ada").has_2fa


def test_a_login_needs_the_code_and_has_no_session_before_it(make_user, login):
    secret, _ = enrol(login(make_user("ada")))
    SessionRecord.objects(user="ada").delete()
    client = Client()
    step = password_step(client)
    assert step.status_code == 302 and step["Location"] == "/accounts/login/2fa/"
    assert SessionRecord.objects(user="ada").count() == 0
    assert client.get("/feed/").status_code == 302  # not logged in yet
    page = client.get("/accounts/login/2fa/")
    assert page.status_code == 200 and "@ada" in page.content.decode()
    wrong = client.post("/accounts/login/2fa/", {"code": "123456"})
    assert wrong.status_code == 200 and "does not work" in wrong.content.decode()
    assert SessionRecord.objects(user="ada").count() == 0
    code = next_code(secret)
    done = client.post("/accounts/login/2fa/", {"code": code})
    assert done.status_code == 302 and done["Location"] == "/feed/"
    assert client.get("/feed/").status_code == 200
    # The same code never works twice, even for a second login right away.
    other = Client()
    password_step(other)
    again = other.post("/accounts/login/2fa/", {"code": code})
    assert again.status_code == 200 and other.get("/feed/").status_code == 302


def test_the_code_step_cannot_be_skipped_or_forged(make_user, login):
    enrol(login(make_user("ada")))
    client = Client()
    assert client.get("/accounts/login/2fa/").status_code == 302  # no password step
    client.cookies["login_2fa"] = "ada"
    assert client.post("/accounts/login/2fa/", {"code": "123456"}).status_code == 302
    password_step(client, password="wrong password")
    assert "login_2fa" not in client.cookies or not client.cookies["login_2fa"].value
    assert SessionRecord.objects(user="ada").count() == 1  # the enrolling one only


def test_a_password_change_in_between_ends_the_code_step(make_user, login):
    secret, _ = enrol(login(make_user("ada")))
    client = Client()
    password_step(client)
    User.objects(handle="ada").update_one(set__password="md5$changed$elsewhere")
    response = client.post("/accounts/login/2fa/", {"code": next_code(secret)})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"


def test_each_recovery_code_works_once(make_user, login):
    _, codes = enrol(login(make_user("ada")))
    first = Client()
    password_step(first)
    assert first.post("/accounts/login/2fa/", {"code": codes[3].upper()}).status_code == 302
    assert len(User.objects.get(handle="ada").recovery_codes) == 9
    second = Client()
    password_step(second)
    assert second.post("/accounts/login/2fa/", {"code": codes[3]}).status_code == 200


def test_wrong_codes_are_rate_limited(make_user, login, settings):
    settings.RATELIMIT_LOGIN_FAILURES = "3/300"
    secret, _ = enrol(login(make_user("ada")))
    client = Client()
    password_step(client)
    for _ in range(3):
        client.post("/accounts/login/2fa/", {"code": "000000"})
    limited = client.post("/accounts/login/2fa/", {"code": next_code(secret)})
    assert limited.status_code == 429 and client.get("/feed/").status_code == 302


def test_turning_it_off_needs_the_password_and_a_code(make_user, login):
    client = login(make_user("ada"))
    secret, _ = enrol(client)
    wrong = client.post("/settings/2fa/", {"password": "not it", "code": next_code(secret)})
    assert wrong.status_code == 200 and User.objects.get(handle="ada").has_2fa
    off = client.post("/settings/2fa/", {"password": PASSWORD, "code": next_code(secret)})
    assert off.status_code == 302
    user = User.objects.get(handle="ada")
    assert not user.has_2fa and user.recovery_codes == []
    assert password_step(Client())["Location"] == "/feed/"


@pytest.mark.parametrize("code", ["", "12345", "1234567", "abcdef", "x" * 65, "١٢٣٤٥٦"])
def test_odd_codes_are_refused_plainly(make_user, login, code):
    enrol(login(make_user("ada")))
    user = User.objects.get(handle="ada")
    assert twofactor.verify(user=user, code=code) is False


def test_staff_are_asked_to_turn_it_on(make_user, login):
    client = login(make_user("mod", role="moderator"))
    page = client.get("/mod/").content.decode()
    assert 'data-nudge="2fa"' in page
    enrol(client)
    assert 'data-nudge="2fa"' not in client.get("/mod/").content.decode()


def test_wrong_passwords_when_turning_it_off_are_rate_limited(make_user, login, settings):
    settings.RATELIMIT_PASSWORD = "2/900"
    client = login(make_user("ada"))
    secret, _codes = enrol(client)
    for _ in range(2):
        wrong = client.post("/settings/2fa/", {"password": "wrong", "code": next_code(secret)})
        assert "do not match" in wrong.content.decode()
    limited = client.post("/settings/2fa/", {"password": PASSWORD, "code": next_code(secret)})
    assert limited.status_code == 429 and "Too many attempts" in limited.content.decode()
    assert User.objects.get(handle="ada").has_2fa


def test_a_code_used_a_moment_ago_is_told_apart_from_a_wrong_one(make_user, login):
    client = login(make_user("ada"))
    secret, _ = enrol(client)  # spent this step's code
    client.post("/accounts/logout/")
    password_step(client)
    reused = client.post("/accounts/login/2fa/", {"code": pyotp.TOTP(secret).now()})
    assert "That code was used a moment ago" in reused.content.decode()
    wrong = client.post("/accounts/login/2fa/", {"code": "000000"})
    assert "That code does not work" in wrong.content.decode()
    assert client.post("/accounts/login/2fa/", {"code": next_code(secret)}).status_code == 302


def test_a_suspended_person_with_the_right_password_is_told_they_are_suspended(make_user):
    make_user("ada", status="suspended")
    refused = Client().post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    page = refused.content.decode()
    assert refused.status_code == 200 and "This account is suspended" in page
    guess = Client().post("/accounts/login/", {"username": "ada", "password": "not it at all"})
    assert "suspended" not in guess.content.decode()  # only the password's owner learns it


def test_the_recovery_codes_can_be_downloaded_and_copied(make_user, login):
    from urllib.parse import unquote

    client = login(make_user("ada"))
    page = client.get("/settings/2fa/").content.decode()
    secret = re.search(r'data-secret="([A-Z2-7]+)"', page).group(1)
    done = client.post("/settings/2fa/", {"password": PASSWORD, "code": pyotp.TOTP(secret).now()})
    html = done.content.decode()
    codes = re.findall(r"<li><code>([a-z0-9-]+)</code></li>", html)
    link = re.search(
        r'download="socialsite-recovery-codes-ada.txt" '
        r'href="data:text/plain;charset=utf-8,([^"]+)"',
        html,
    )
    assert link and all(code in unquote(link[1]) for code in codes) and len(codes) == 10
    copy = re.search(r'<textarea id="recovery-codes-text"[^>]*>(.*?)</textarea>', html, re.S)[1]
    assert all(code in copy for code in codes)
