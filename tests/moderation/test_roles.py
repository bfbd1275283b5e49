"""Roles: set_role and create_admin on the command line; role changes on the
site are for admins only and take effect on the next request."""

import getpass
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from moderation import services
from moderation.documents import AuditEntry
from profiles.documents import User
from tests.conftest import login_client

STRONG = "a long harmless passphrase"


class Terminal(StringIO):
    def isatty(self):
        return True


def role(handle) -> str:
    return User.objects.get(handle=handle).role


def run(*args, **kwargs) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **kwargs)
    return out.getvalue()


def test_set_role(cast):
    assert "@bob is now moderator." in run("set_role", "bob", "moderator")
    assert role("bob") == "moderator"
    assert "@bob is now user." in run("set_role", "BOB", "user")
    assert role("bob") == "user"
    assert [
        (e.moderator, e.action, e.target_id, e.details["role"]) for e in AuditEntry.objects
    ] == [
        ("system", "user.role", "bob", "moderator"),
        ("system", "user.role", "bob", "user"),
    ]
    with pytest.raises(CommandError, match="No user @nobody"):
        run("set_role", "nobody", "admin")
    with pytest.raises(CommandError, match="Not a handle"):
        run("set_role", "$ne", "admin")
    with pytest.raises(CommandError):
        run("set_role", "bob", "overlord")
    assert role("bob") == "user" and AuditEntry.objects.count() == 2


def test_create_admin_from_flags(cast, client):
    out = run(
        "create_admin", "--handle=root", "--name=Root Admin", f"--password={STRONG}", "--no-input"
    )
    assert "Admin @root created." in out
    root = User.objects.get(handle="root")
    assert (root.role, root.name, root.status) == ("admin", "Root Admin", "active")
    entry = AuditEntry.objects.get(target_id="root")
    assert (entry.moderator, entry.action, entry.details) == (
        "system",
        "user.role",
        {"role": "admin"},
    )
    admin = login_client(root, STRONG)
    assert admin.get("/mod/").status_code == 200
    # The name defaults to the handle without --no-input prompts.
    run("create_admin", "--handle=root2", f"--password={STRONG}", "--no-input")
    assert User.objects.get(handle="root2").name == "root2"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--handle=root"], "--password is required with --no-input"),
        ([f"--password={STRONG}"], "--handle is required with --no-input"),
        (["--handle=No Way", f"--password={STRONG}"], "A handle is"),
        (["--handle=ada", f"--password={STRONG}"], "exists already"),
        (["--handle=root", "--password=short"], "too short"),
        (["--handle=root", "--password=password123"], "too common"),
    ],
)
def test_create_admin_refuses_bad_input(args, message, cast):
    with pytest.raises(CommandError, match=message):
        run("create_admin", *args, "--no-input")
    assert not User.objects(handle="root").count()
    assert role("ada") == "user"
    assert AuditEntry.objects.count() == 0


def test_create_admin_interactively(cast, monkeypatch):
    answers = iter(["newadmin", "New Admin"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    monkeypatch.setattr(getpass, "getpass", lambda prompt: STRONG)
    out = run("create_admin", stdin=Terminal())
    assert "Admin @newadmin created." in out
    admin = User.objects.get(handle="newadmin")
    assert (admin.role, admin.name) == ("admin", "New Admin")


def test_create_admin_interactively_needs_matching_passwords(cast, monkeypatch):
    answers = iter(["newadmin", ""])
    passwords = iter([STRONG, STRONG + "!"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    monkeypatch.setattr(getpass, "getpass", lambda prompt: next(passwords))
    with pytest.raises(CommandError, match="do not match"):
        run("create_admin", stdin=Terminal())
    assert not User.objects(handle="newadmin").count()


def test_create_admin_without_a_terminal_asks_for_flags(cast):
    with pytest.raises(CommandError, match="Not a terminal"):
        run("create_admin", stdin=StringIO("root\n"))


def test_only_admins_change_roles(cast, login):
    mod, boss = login(cast.mod), login(cast.boss)
    assert mod.post("/mod/users/bob/role/", {"role": "admin"}).status_code == 403
    assert "Change role" not in mod.get("/mod/users/bob/").content.decode()
    assert "Change role" in boss.get("/mod/users/bob/").content.decode()
    with pytest.raises(services.ModerationError, match="Only admins"):
        services.role_set(actor=cast.mod, handle="bob", role="admin")
    with pytest.raises(services.ModerationError, match="Only admins"):
        services.role_set(actor=cast.bob, handle="bob", role="admin")
    assert role("bob") == "user" and AuditEntry.objects.count() == 0

    response = boss.post("/mod/users/bob/role/", {"role": "overlord"})
    assert "A role is one of" in boss.get(response["Location"]).content.decode()
    assert role("bob") == "user"
    assert boss.post("/mod/users/nobody/role/", {"role": "admin"}).status_code == 404


def test_a_role_change_applies_to_open_sessions(cast, login):
    bob, boss = login(cast.bob), login(cast.boss)
    assert bob.get("/mod/").status_code == 403
    boss.post("/mod/users/bob/role/", {"role": "moderator"})
    assert bob.get("/mod/").status_code == 200
    assert bob.post("/mod/users/cyd/role/", {"role": "admin"}).status_code == 403
    boss.post("/mod/users/bob/role/", {"role": "user"})
    assert bob.get("/mod/").status_code == 403
    assert [e.details["role"] for e in AuditEntry.objects] == ["moderator", "user"]
