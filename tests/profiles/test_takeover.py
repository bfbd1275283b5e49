"""Accounts nobody can take over (docs/accounts.md#what-a-stolen-session-cannot-do):
no one but an admin reads the demo's mail, a stolen session cannot change
the address, turn two-factor login on or change the password without the
password, the replaced address can undo a change, every link minted before
it dies, and a burst of parallel guesses checks at most the limit."""

import re
import threading
import time

import pyotp
import pytest
from django.contrib.auth.hashers import check_password as real_check_password
from django.core import mail as outbox
from django.test import Client

from profiles.documents import User
from profiles.services import recovery
from profiles.services import twofactor as twofactor_service
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD, login_client
from tests.profiles.test_recovery import link_in, verified
from tests.profiles.test_twofactor import enrol, next_code, password_step

THIEF_ADDRESS = "thief@example.net"


def _reset_link_for(address: str) -> str:
    Client().post("/accounts/password/reset/", {"email": address})
    return link_in(outbox.outbox[-1])


# --- the mailbox ---------------------------------------------------------------


@pytest.fixture
def mailbox(settings):
    settings.MAILERS = {"default": {"BACKEND": "socialsite.mail.MailboxBackend"}}


def test_a_moderator_cannot_read_a_reset_link(mailbox, make_user, login):
    make_user("boss", role="admin")
    verified("boss", "boss@example.org")
    mod = login(make_user("mod", role="moderator"))
    Client().post("/accounts/password/reset/", {"email": "boss@example.org"})
    assert mod.get("/dev/mail/").status_code == 404
    admin_page = login(User.objects.get(handle="boss")).get("/dev/mail/").content.decode()
    assert "/accounts/password/reset/" in admin_page


def test_without_a_mail_server_a_real_database_keeps_and_logs_no_mail(
    settings, make_user, capsys, caplog
):
    settings.MAILERS = {"default": {"BACKEND": "socialsite.mail.UnsentBackend"}}
    from socialsite import checks
    from socialsite.middleware import StartupGuard

    [error] = checks.mail_configured()
    assert error.id == "socialsite.E006"
    with pytest.raises(Exception, match="EMAIL_URL"):
        StartupGuard(lambda request: None)
    make_user("ada")
    verified("ada", "ada@example.org")
    # What the request's task does (a server would not even start).
    assert recovery.password_reset_send(address="ada@example.org", site="http://x") == 0
    printed = capsys.readouterr()
    logged = caplog.text
    assert "/accounts/password/reset/" not in printed.out + printed.err + logged
    assert "ada@example.org" not in printed.out + printed.err + logged
    assert "EMAIL_URL is not set" in logged


# --- what a stolen session cannot do -------------------------------------------


def test_an_address_change_needs_the_password(make_user, login):
    make_user("ada")
    verified("ada", "ada@example.org")
    stolen = login(User.objects.get(handle="ada"))
    outbox.outbox.clear()
    for form in ({"email": THIEF_ADDRESS}, {"email": THIEF_ADDRESS, "password": "a guess"}):
        refused = stolen.post("/settings/email/", form)
        assert refused.status_code == 200 and 'class="errorlist' in refused.content.decode()
    assert User.objects.get(handle="ada").email == "ada@example.org"
    assert outbox.outbox == []


def test_with_two_factor_an_address_change_also_needs_a_code(make_user, login):
    client = login(make_user("ada"))
    secret, _ = enrol(client)
    assert 'name="code"' in client.get("/settings/email/").content.decode()
    refused = client.post("/settings/email/", {"email": THIEF_ADDRESS, "password": PASSWORD})
    assert refused.status_code == 200 and User.objects.get(handle="ada").email is None
    done = client.post(
        "/settings/email/",
        {"email": "ada@example.org", "password": PASSWORD, "code": next_code(secret)},
    )
    assert done.status_code == 302 and User.objects.get(handle="ada").email == "ada@example.org"


def test_a_password_change_with_two_factor_needs_a_code(make_user, login):
    client = login(make_user("ada"))
    secret, _ = enrol(client)
    fresh = "a brand new secret 4"
    form = {"old_password": PASSWORD, "new_password1": fresh, "new_password2": fresh}
    assert client.post("/settings/password/", form).status_code == 200
    assert real_check_password(PASSWORD, User.objects.get(handle="ada").password)
    done = client.post("/settings/password/", {**form, "code": next_code(secret)})
    assert done.status_code == 302
    assert real_check_password(fresh, User.objects.get(handle="ada").password)


def test_the_old_address_is_told_and_its_links_die(make_user, login):
    make_user("ada")
    verified("ada", "ada@example.org")
    old_reset = _reset_link_for("ada@example.org")
    client = login(User.objects.get(handle="ada"))
    outbox.outbox.clear()
    done = client.post("/settings/email/", {"email": THIEF_ADDRESS, "password": PASSWORD})
    assert done.status_code == 302
    verify, notice = sorted(outbox.outbox, key=lambda m: m.to[0] == "ada@example.org")
    assert verify.to == [THIEF_ADDRESS] and notice.to == ["ada@example.org"]
    assert THIEF_ADDRESS in notice.body and "7 days" in notice.body
    assert "/accounts/email/undo/" in link_in(notice)
    expired = Client().get(old_reset)
    assert expired.status_code == 400 and "not valid any more" in expired.content.decode()


def test_the_undo_link_takes_the_account_back_from_a_thief(make_user, login):
    """The whole takeover of the review, then the owner's way back: the thief
    changes the address (knowing the password from elsewhere is not needed:
    a session and the password are), verifies it, resets the password, turns
    two-factor login on; the owner's undo link ends it all."""
    make_user("ada")
    verified("ada", "ada@example.org")
    owner = login(User.objects.get(handle="ada"))
    thief = login(User.objects.get(handle="ada"))
    outbox.outbox.clear()
    thief.post("/settings/email/", {"email": THIEF_ADDRESS, "password": PASSWORD})
    verify = next(m for m in outbox.outbox if m.to == [THIEF_ADDRESS])
    notice = next(m for m in outbox.outbox if m.to == ["ada@example.org"])
    thief.get(link_in(verify))
    stolen = "the thief's own password 8"
    Client().post(
        _reset_link_for(THIEF_ADDRESS), {"new_password1": stolen, "new_password2": stolen}
    )
    thief = login_client(User.objects.get(handle="ada"), password=stolen)
    enrol_page = thief.get("/settings/2fa/").content.decode()
    secret = re.search(r'data-secret="([A-Z2-7]+)"', enrol_page).group(1)
    thief.post("/settings/2fa/", {"password": stolen, "code": pyotp.TOTP(secret).now()})
    assert User.objects.get(handle="ada").has_2fa
    assert owner.get("/feed/").status_code == 302  # the reset logged the owner out

    undo = link_in(notice)
    asked = Client().get(undo)
    assert asked.status_code == 200 and "ada@example.org" in asked.content.decode()
    assert User.objects.get(handle="ada").email == THIEF_ADDRESS  # a GET changes nothing
    back = Client()
    done = back.post(undo)
    assert done.status_code == 302 and "/accounts/password/reset/" in done["Location"]
    user = User.objects.get(handle="ada")
    assert (user.email, user.email_verified, user.has_2fa) == ("ada@example.org", True, False)
    assert SessionRecord.objects(user="ada").count() == 0
    assert thief.get("/feed/").status_code == 302
    mine = "the owner's new password 5"
    chosen = back.post(done["Location"], {"new_password1": mine, "new_password2": mine})
    assert chosen.status_code == 302
    assert login_client(User.objects.get(handle="ada"), password=mine).get("/feed/").status_code
    assert Client().post(undo).status_code == 400  # once
    # The thief's reset links are dead too.
    assert recovery.password_reset_links(THIEF_ADDRESS) == []


def test_an_undo_link_is_refused_when_forged_or_old(make_user, login, monkeypatch):
    make_user("ada")
    verified("ada", "ada@example.org")
    client = login(User.objects.get(handle="ada"))
    client.post("/settings/email/", {"email": THIEF_ADDRESS, "password": PASSWORD})
    undo = link_in(next(m for m in outbox.outbox if m.to == ["ada@example.org"]))
    assert Client().get(undo[:-3] + "xx/").status_code == 400
    monkeypatch.setattr(recovery, "UNDO_MAX_AGE", -1)  # as 7 days later
    assert Client().post(undo).status_code == 400
    assert User.objects.get(handle="ada").email == THIEF_ADDRESS


# --- the reset tells nothing ---------------------------------------------------


def test_the_reset_answers_identical_headers_for_known_and_unknown_addresses(make_user, settings):
    settings.METER_PUBLIC = False
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    make_user("ada")
    verified("ada", "ada@example.org")
    answers = []
    for address in ("ada@example.org", "nobody@example.org"):
        response = Client().post("/accounts/password/reset/", {"email": address})
        headers = {k: v for k, v in response.headers.items() if k != "X-Request-ID"}
        answers.append((response.status_code, headers, response.content))
    assert answers[0] == answers[1]
    assert "Server-Timing" not in answers[0][1]


def test_the_reset_request_does_the_same_work_for_every_address(make_user, settings):
    """With the meter on (the demo) its figures agree too: the request only
    queues the task that looks the address up."""
    settings.METER_PUBLIC = True
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    make_user("ada")
    verified("ada", "ada@example.org")
    figures = set()
    for address in ("ada@example.org", "nobody@example.org"):
        timing = Client().post("/accounts/password/reset/", {"email": address})["Server-Timing"]
        figures.add(re.search(r'db;desc="([^"]+)"', timing).group(1))
    assert len(figures) == 1, figures


def test_staff_still_see_the_meter_on_a_real_database(make_user, login, settings):
    settings.METER_PUBLIC = False
    assert "Server-Timing" not in login(make_user("ada")).get("/feed/").headers
    assert "Server-Timing" in login(make_user("mod", role="moderator")).get("/feed/").headers


# --- parallel guesses ----------------------------------------------------------

BURST = 20
LIMIT = 5


def _burst(send) -> list[int]:
    """`send(i)` from BURST threads at once; the statuses."""
    start = threading.Barrier(BURST)
    statuses: list[int] = []
    failures: list[BaseException] = []

    def run(i):
        try:
            start.wait()
            statuses.append(send(i).status_code)
        except BaseException as exc:  # surfaced below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    return statuses


def _slow_counting(monkeypatch, target: str, real) -> list[int]:
    """Replace `target` with a slow, counting `real`: slow enough that every
    guess of the burst is in flight before the first one is judged."""
    calls: list[int] = []

    def checked(*args, **kwargs):
        calls.append(1)
        time.sleep(0.05)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, checked)
    return calls


def _copies(client: Client) -> list[Client]:
    copies = []
    for _ in range(BURST):
        copy = Client()
        copy.cookies = client.cookies
        copies.append(copy)
    return copies


def test_parallel_wrong_logins_check_at_most_the_limit(make_user, settings, monkeypatch):
    settings.RATELIMIT_LOGIN_FAILURES = f"{LIMIT}/900"
    make_user("ada")
    checks = _slow_counting(monkeypatch, "profiles.auth.check_password", real_check_password)
    statuses = _burst(
        lambda i: Client().post("/accounts/login/", {"username": "ada", "password": f"guess {i}"})
    )
    assert len(checks) <= LIMIT and statuses.count(429) >= BURST - LIMIT
    assert set(statuses) <= {200, 429}


def test_parallel_wrong_passwords_on_delete_check_at_most_the_limit(
    make_user, login, settings, monkeypatch
):
    settings.RATELIMIT_ACCOUNT_DELETE = f"{LIMIT}/900"
    clients = _copies(login(make_user("ada")))
    checks = _slow_counting(
        monkeypatch, "profiles.views.confirm.check_password", real_check_password
    )
    statuses = _burst(lambda i: clients[i].post("/settings/delete/", {"password": f"guess {i}"}))
    assert len(checks) <= LIMIT and statuses.count(429) >= BURST - LIMIT
    assert User.objects.get(handle="ada").status == "active"


def test_parallel_wrong_codes_check_at_most_the_limit(make_user, login, settings, monkeypatch):
    settings.RATELIMIT_LOGIN_FAILURES = f"{LIMIT}/900"
    enrol(login(make_user("ada")))
    step = Client()
    password_step(step)
    clients = _copies(step)
    checks = _slow_counting(
        monkeypatch, "profiles.views.twofactor.twofactor.verify", twofactor_service.verify
    )
    statuses = _burst(lambda i: clients[i].post("/accounts/login/2fa/", {"code": f"{i:06d}"}))
    assert len(checks) <= LIMIT and statuses.count(429) >= BURST - LIMIT


def test_parallel_reset_requests_mail_at_most_the_limit(make_user, settings):
    settings.RATELIMIT_PASSWORD_RESET = f"{LIMIT}/3600"
    make_user("ada")
    verified("ada", "ada@example.org")
    outbox.outbox.clear()
    statuses = _burst(
        lambda i: Client(REMOTE_ADDR=f"198.51.100.{i}").post(
            "/accounts/password/reset/", {"email": "ada@example.org"}
        )
    )
    assert len(outbox.outbox) <= LIMIT and statuses.count(429) >= BURST - LIMIT
    assert set(statuses) <= {302, 429}


def test_the_reset_benchmark_prints_both_kinds_side_by_side(capsys):
    """`python -m benchmarks.reset` (docs/benchmarks.md#the-password-reset):
    a check of its figures, not of any time."""
    from benchmarks import reset

    assert reset.main(["--addresses", "3", "--wipe"]) == 0
    printed = capsys.readouterr().out
    assert "known (3)" in printed and "unknown (3)" in printed
    assert "one answer shape" in printed


@pytest.mark.no_test_db
def test_only_the_embedded_demo_keeps_mail_and_shows_everyone_the_meter():
    """The settings themselves, as a server process reads them (not under
    pytest): the mailbox and a public meter for the embedded demo only."""
    import json
    import os
    import subprocess
    import sys

    from django.conf import settings

    # The settings module alone: no app starts, nothing connects.
    show = (
        "import json; from socialsite import settings as s; "
        "print(json.dumps([s.MAILERS['default']['BACKEND'], s.METER_PUBLIC]))"
    )
    answers = {}
    for name, uri in (("demo", ""), ("real", "mongodb://127.0.0.1:1/x")):
        env = {k: v for k, v in os.environ.items() if k not in ("EMAIL_URL", "METER_PUBLIC")}
        env.update(DEBUG="true", MONGODB_URI=uri)
        done = subprocess.run(
            [sys.executable, "-c", show],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        answers[name] = json.loads(done.stdout.strip().splitlines()[-1])
    assert answers["demo"] == ["socialsite.mail.MailboxBackend", True]
    assert answers["real"] == ["socialsite.mail.UnsentBackend", False]


def test_sessions_counters_and_one_use_codes_read_the_primary_and_write_by_majority():
    """Whatever the URI asks for the rest of the site (a secondary read, w=1):
    a code used once is gone for the next read, a counter counts every try,
    and a session is there on the next request."""
    from pymongo import ReadPreference

    from profiles.documents import User
    from socialsite.documents import RateCounter, SessionRecord

    for document in (User, SessionRecord, RateCounter):
        collection = document._get_collection()
        assert collection.read_preference == ReadPreference.PRIMARY, document
        assert collection.write_concern.document == {"w": "majority"}, document
