"""Email, its verification, the password reset and the sessions page
(docs/accounts.md): links that work once and not past their age, a reset
page that does not tell which addresses exist, and sessions a person can see
and end."""

import re

import pytest
from django.core import mail as outbox
from django.test import Client

from profiles import tokens
from profiles.documents import User
from profiles.services import recovery
from socialsite import mail, sessions
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD, login_client

NEW_PASSWORD = "a brand new secret 9"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI_IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)


def link_in(message) -> str:
    """The site path of the link a mail carries (in both of its parts)."""
    found = re.search(r"https?://testserver(/\S+/)", message.body)
    assert found, message.body
    html = message.alternatives[0][0]
    assert found.group(1) in html and "<a href=" in html
    return found.group(1)


def verified(handle: str, email: str) -> None:
    """The address set and verified through the site's own link."""
    user = User.objects.get(handle=handle)
    token, _ = recovery.email_set(user=user, email=email)
    assert recovery.email_verify(token) == handle


def test_an_address_is_verified_by_its_link_once(make_user, login):
    client = login(make_user("ada"))
    page = client.get("/settings/email/").content.decode()
    assert 'class="email-state' in page and 'data-verified="false"' in page

    response = client.post(
        "/settings/email/", {"email": " Ada@Example.ORG ", "password": PASSWORD}
    )
    assert response.status_code == 302
    [message] = outbox.outbox
    assert message.to == ["ada@example.org"]
    assert message.subject == "[Socialsite] Verify your email address"
    assert "Socialsite" in message.body and message.alternatives[0][1] == "text/html"
    page = client.get("/settings/email/").content.decode()
    assert "ada@example.org" in page and 'data-verified="false"' in page

    link = link_in(message)
    assert client.get(link).status_code == 302
    page = client.get("/settings/email/").content.decode()
    assert 'data-verified="true"' in page
    again = client.get(link)  # works once
    assert again.status_code == 400 and "not valid any more" in again.content.decode()
    # A spent verification link points to the email settings, not a reset.
    assert "email settings" in again.content.decode()
    assert "password reset" not in again.content.decode()


def test_a_new_address_replaces_the_old_link_and_unverifies(make_user, login):
    client = login(make_user("ada"))
    client.post("/settings/email/", {"email": "ada@example.org", "password": PASSWORD})
    first = link_in(outbox.outbox[-1])
    client.post("/settings/email/", {"email": "ada@work.example", "password": PASSWORD})
    second = link_in(outbox.outbox[-1])
    assert client.get(first).status_code == 400
    assert client.get(second).status_code == 302
    user = User.objects.get(handle="ada")
    assert (user.email, user.email_verified) == ("ada@work.example", True)
    client.post("/settings/email/", {"email": "ada@other.example", "password": PASSWORD})
    assert User.objects.get(handle="ada").email_verified is False


def test_forged_altered_or_foreign_tokens_are_refused(make_user):
    make_user("ada")
    token, _ = recovery.email_set(user=User.objects.get(handle="ada"), email="a@example.org")
    assert recovery.email_verify(token[:-2] + "xx") is None
    # A reset token is no verification token, and the other way round.
    reset = tokens.make(tokens.RESET_PASSWORD, {"h": "ada", "n": "x"})
    assert recovery.email_verify(reset) is None
    assert recovery.password_reset_user(token) is None
    assert tokens.read(tokens.VERIFY_EMAIL, None, 60) is None
    assert tokens.read(tokens.VERIFY_EMAIL, "a" * 2000, 60) is None


def test_bad_addresses_are_form_errors(make_user, login):
    client = login(make_user("ada"))
    response = client.post("/settings/email/", {"email": "not an address", "password": PASSWORD})
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    assert outbox.outbox == []
    assert Client().get("/settings/email/").status_code == 302  # signed out: log in first


def test_the_reset_answers_the_same_for_every_address(make_user, monkeypatch):
    make_user("ada")
    make_user("bob")
    verified("ada", "ada@example.org")
    # bob's address is not verified: no link goes to it.
    recovery.email_set(user=User.objects.get(handle="bob"), email="bob@example.org")
    outbox.outbox.clear()
    hashed = []
    monkeypatch.setattr(
        "django.contrib.auth.hashers.make_password", lambda *a, **k: hashed.append(a)
    )
    monkeypatch.setattr(
        "django.contrib.auth.hashers.check_password", lambda *a, **k: hashed.append(a)
    )
    answers = {}
    for address in ("ada@example.org", "ADA@example.org", "bob@example.org", "nobody@x.org"):
        client = Client()
        response = client.post("/accounts/password/reset/", {"email": address})
        shown = client.get(response["Location"])
        # Each page has its own script nonce (the CSP's): the rest is the same.
        body = re.sub(rb'nonce="[^"]+"', b'nonce=""', shown.content)
        answers[address] = (
            response.status_code,
            response["Location"],
            response.content,
            shown.status_code,
            body,
        )
    assert len(set(answers.values())) == 1, answers
    assert next(iter(answers.values()))[:2] == (302, "/accounts/password/reset/sent/")
    assert b"If an account has this verified address" in answers["nobody@x.org"][4]
    # Neither answer hashes a password: no hasher-sized gap between them.
    assert hashed == []
    assert [m.to for m in outbox.outbox] == [["ada@example.org"], ["ada@example.org"]]


def test_a_reset_link_sets_the_password_once_and_ends_every_session(make_user):
    make_user("ada")
    verified("ada", "ada@example.org")
    here, elsewhere = (
        login_client(User.objects.get(handle="ada")),
        login_client(User.objects.get(handle="ada")),
    )
    assert SessionRecord.objects(user="ada").count() == 2
    Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    link = link_in(outbox.outbox[-1])
    anonymous = Client()
    form = anonymous.get(link)
    assert form.status_code == 200 and "@ada" in form.content.decode()
    mismatch = anonymous.post(link, {"new_password1": NEW_PASSWORD, "new_password2": "other"})
    assert mismatch.status_code == 200 and 'class="errorlist' in mismatch.content.decode()
    weak = anonymous.post(link, {"new_password1": "ada", "new_password2": "ada"})
    assert weak.status_code == 200 and 'class="errorlist' in weak.content.decode()
    done = anonymous.post(link, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/accounts/login/"
    assert SessionRecord.objects(user="ada").count() == 0
    for client in (here, elsewhere):
        assert client.get("/feed/").status_code == 302
    assert anonymous.get(link).status_code == 400  # used
    fresh = Client()
    assert (
        fresh.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code
        == 200
    )
    login = fresh.post("/accounts/login/", {"username": "ada", "password": NEW_PASSWORD})
    assert login.status_code == 302


def test_only_the_newest_reset_link_works_and_none_past_an_hour(make_user, monkeypatch):
    make_user("ada")
    verified("ada", "ada@example.org")
    Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    first = link_in(outbox.outbox[-1])
    Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    second = link_in(outbox.outbox[-1])
    assert Client().get(first).status_code == 400
    assert Client().get(second).status_code == 200
    monkeypatch.setattr(recovery, "RESET_MAX_AGE", -1)  # as an hour later
    assert Client().get(second).status_code == 400
    assert (
        Client()
        .post(second, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
        .status_code
        == 400
    )


def test_a_suspended_account_gets_no_reset(make_user):
    make_user("ada")
    verified("ada", "ada@example.org")
    User.objects(handle="ada").update_one(set__status="suspended")
    Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert outbox.outbox == []


def test_resets_are_limited_per_ip_and_per_address(make_user, settings):
    settings.RATELIMIT_PASSWORD_RESET = "2/3600"
    make_user("ada")
    verified("ada", "ada@example.org")
    client = Client()
    for _ in range(2):
        assert (
            client.post("/accounts/password/reset/", {"email": "x@example.org"}).status_code == 302
        )
    limited = client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert limited.status_code == 429 and "Try again" in limited.content.decode()
    other_ip = Client(REMOTE_ADDR="10.9.9.9")
    for _ in range(2):
        other_ip.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert (
        Client(REMOTE_ADDR="10.8.8.8")
        .post("/accounts/password/reset/", {"email": "ada@example.org"})
        .status_code
        == 429
    )  # the address's own limit
    # Refused requests count too: the address's second request from the
    # other IP was its third, and only the first from there sent a mail.
    assert len(outbox.outbox) == 1


def test_the_sessions_page_lists_and_ends_sessions(make_user):
    make_user("ada")
    laptop = login_client(User.objects.get(handle="ada"), HTTP_USER_AGENT=FIREFOX)
    phone = login_client(
        User.objects.get(handle="ada"), HTTP_USER_AGENT=SAFARI_IPHONE, REMOTE_ADDR="203.0.113.7"
    )
    page = laptop.get("/settings/sessions/").content.decode()
    assert page.count('class="session"') == 2
    assert page.count('data-current="true"') == 1
    assert "Firefox on Linux" in page and "Safari on iOS" in page and "203.0.x.x" in page
    assert "203.0.113.7" not in page
    listed = sessions.sessions_of("ada")
    phone_id = next(s["id"] for s in listed if s["client"]["agent"] == "Safari on iOS")
    laptop_id = next(s["id"] for s in listed if s["id"] != phone_id)
    assert all(s["key"] not in page for s in listed)  # keys never leave their cookie

    assert laptop.post(f"/settings/sessions/{phone_id}/end/").status_code == 302
    assert phone.get("/feed/").status_code == 302  # logged out
    assert laptop.get("/feed/").status_code == 200
    own = laptop.post(f"/settings/sessions/{laptop_id}/end/", follow=True)
    assert "log out to end it" in own.content.decode()
    assert laptop.post(f"/settings/sessions/{phone_id}/end/").status_code == 404  # gone
    assert laptop.post("/settings/sessions/nosuch/end/").status_code == 404
    assert laptop.get(f"/settings/sessions/{laptop_id}/end/")["Location"] == "/settings/sessions/"


def test_nobody_ends_someone_elses_session(make_user):
    make_user("ada")
    make_user("bob")
    login_client(User.objects.get(handle="ada"))
    bob = login_client(User.objects.get(handle="bob"))
    [ada_session] = sessions.sessions_of("ada")
    assert bob.post(f"/settings/sessions/{ada_session['id']}/end/").status_code == 404
    assert SessionRecord.objects(user="ada").count() == 1


@pytest.fixture
def mailbox(settings):
    settings.MAILERS = {"default": {"BACKEND": "socialsite.mail.MailboxBackend"}}


def test_the_demo_mailbox_keeps_and_prints_what_is_sent(mailbox, make_user, capsys):
    make_user("ada")
    mail.send("ada@example.org", "verify_email", {"name": "Ada", "link": "http://x/verify/t/"})
    [kept] = mail.mailbox()[:1]
    assert kept.to == ("ada@example.org",) and "http://x/verify/t/" in kept.text
    assert kept.html and "<a href=" in kept.html
    printed = capsys.readouterr().out
    assert f"mail #{kept.number} to ada@example.org" in printed and "http://x/verify/t/" in printed


def test_dev_mail_lists_the_mail_for_admins_only(mailbox, make_user, login):
    make_user("ada")
    boss = make_user("boss", role="admin")
    verified("ada", "ada@example.org")
    Client().post("/accounts/password/reset/", {"email": "ada@example.org"})
    page = login(boss).get("/dev/mail/").content.decode()
    assert "Reset your password" in page and "/accounts/password/reset/" in page
    assert login(make_user("mod", role="moderator")).get("/dev/mail/").status_code == 404
    assert login(User.objects.get(handle="ada")).get("/dev/mail/").status_code == 404
    assert Client().get("/dev/mail/").status_code == 404


def test_dev_mail_says_where_mail_goes_otherwise(settings, make_user, login):
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend"}}
    page = login(make_user("boss", role="admin")).get("/dev/mail/").content.decode()
    assert "nothing is kept here" in page
