"""The audit log: exactly one entry per moderator action (one per target of
a bulk action), filterable, and append-only: no route or command changes or
deletes an entry."""

import contextlib
import re
from io import StringIO
from pathlib import Path

import pytest
from bson import ObjectId
from django.core.management import call_command, get_commands
from django.core.management.base import CommandError
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from moderation.documents import AuditEntry, ReportedItem
from tests.conftest import PASSWORD
from tests.moderation.conftest import audit_rows, new_comment, new_post

ROOT = Path(__file__).resolve().parents[2]
APPS = ("socialsite", "profiles", "feeds", "comments", "moderation")


def log_rows(client, **filters) -> list[str]:
    html = client.get("/mod/log/", filters).content.decode()
    return re.findall(r'<tr class="log-entry" data-action="([^"]+)"', html)


def entries() -> list[tuple]:
    return [
        (e["moderator"], e["action"], e["target_type"], e["target_id"], e["reason"])
        for e in audit_rows()
    ]


@pytest.fixture
def scene(cast):
    posts = [new_post(cast.ada, f"post {i}") for i in range(4)]
    comment = new_comment(cast.cyd, posts[0].id, "a comment")
    return posts, comment


def test_exactly_one_entry_per_action(cast, scene, login):
    posts, comment = scene
    p0, p1, p2, p3 = (str(p.id) for p in posts)
    c = f"{p0}/{comment.slug}"
    bob, mod, boss = login(cast.bob), login(cast.mod), login(cast.boss)
    for key in (f"post:{p1}", f"post:{p2}", f"comment:{c}", "user:cyd", f"post:{p3}"):
        bob.post("/report/", {"target": key, "reason": "spam"})

    mod.post("/mod/act/", {"key": f"post:{p0}", "action": "remove", "reason": "r1"})
    mod.post("/mod/act/", {"key": f"post:{p0}", "action": "restore", "reason": "r2"})
    mod.post("/mod/act/", {"key": f"comment:{c}", "action": "remove", "reason": "r3"})
    mod.post("/mod/act/", {"key": f"comment:{c}", "action": "restore"})
    mod.post("/mod/act/", {"key": "user:cyd", "action": "dismiss", "reason": "r4"})
    mod.post("/mod/users/cyd/suspend/", {"reason": "r5"})
    mod.post("/mod/users/cyd/unsuspend/", {"reason": "r6"})
    boss.post("/mod/users/bob/role/", {"role": "moderator"})
    # A bulk action: one entry per target; a key given twice counts once,
    # and a user (suspended from their page, not removed) is skipped.
    response = mod.post(
        "/mod/bulk/",
        {
            "keys": [f"post:{p1}", f"post:{p2}", f"post:{p1}", "user:ada", f"post:{ObjectId()}"],
            "action": "remove",
            "reason": "bulk",
        },
    )
    html = mod.get(response["Location"]).content.decode()
    assert "Removed: 2 items." in html and "suspend users from their page" in html
    # Removing the comment resolved Bob's report; Ada reports it again.
    login(cast.ada).post("/report/", {"target": f"comment:{c}", "reason": "other"})
    mod.post("/mod/bulk/", {"keys": [f"post:{p3}", f"comment:{c}"], "action": "dismiss"})
    mod.post("/mod/bulk/", {"keys": [f"post:{p3}"], "action": "dismiss"})  # nothing open: no entry

    assert entries() == [
        ("mod", "post.remove", "post", p0, "r1"),
        ("mod", "post.restore", "post", p0, "r2"),
        ("mod", "comment.remove", "comment", c, "r3"),
        ("mod", "comment.restore", "comment", c, ""),
        ("mod", "report.dismiss", "user", "cyd", "r4"),
        ("mod", "user.suspend", "user", "cyd", "r5"),
        ("mod", "user.unsuspend", "user", "cyd", "r6"),
        ("boss", "user.role", "user", "bob", ""),
        ("mod", "post.remove", "post", p1, "bulk"),
        ("mod", "post.remove", "post", p2, "bulk"),
        ("mod", "report.dismiss", "post", p3, ""),
        ("mod", "report.dismiss", "comment", c, ""),
    ]
    role = AuditEntry.objects(action="user.role").get()
    assert role.details == {"role": "moderator"}
    assert all(e["ts"] is not None for e in audit_rows())
    # The log page shows who, when, what, on what and why, newest first.
    page = login(cast.boss).get("/mod/log/").content.decode()
    assert log_rows(login(cast.boss)) == [e[1] for e in reversed(entries())]
    assert "@boss" in page and "(now moderator)" in page and "r5" in page
    assert f"post:{p1}" in page and "<time datetime=" in page


def test_the_log_filters_by_moderator_action_and_target(cast, scene, login):
    posts, _ = scene
    mod, boss = login(cast.mod), login(cast.boss)
    for post in posts[:3]:
        mod.post("/mod/act/", {"key": f"post:{post.id}", "action": "remove"})
    boss.post("/mod/act/", {"key": f"post:{posts[0].id}", "action": "restore"})
    boss.post("/mod/users/cyd/suspend/", {"reason": "spam"})
    assert log_rows(mod, moderator="mod") == ["post.remove"] * 3
    assert log_rows(mod, moderator="BOSS") == ["user.suspend", "post.restore"]
    assert log_rows(mod, action="post.restore") == ["post.restore"]
    assert log_rows(mod, target="user") == ["user.suspend"]
    assert log_rows(mod, target=f"post:{posts[0].id}") == ["post.restore", "post.remove"]
    assert log_rows(mod, moderator="mod", action="user.suspend") == []
    assert log_rows(mod, moderator="nobody") == []
    # Junk filters find nothing rather than fail.
    for junk in ({"target": '{"$ne": 1}'}, {"action": "$where"}, {"skip": "-1"}, {"skip": "x"}):
        assert mod.get("/mod/log/", junk).status_code == 200
    html = mod.get("/mod/log/").content.decode()
    assert '<option value="post.remove">' in html  # the action filter lists what exists


def _routes(patterns=None, prefix=""):
    for p in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(p, URLResolver):
            yield from _routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern)


def test_no_route_changes_or_deletes_an_entry(cast, scene, login):
    posts, comment = scene
    mod = login(cast.mod)
    mod.post("/mod/act/", {"key": f"post:{posts[1].id}", "action": "remove", "reason": "keep"})
    mod.post("/mod/users/bob/suspend/", {"reason": "keep"})
    before = {e["_id"]: e for e in audit_rows()}
    entry_id = str(next(iter(before)))
    values = {
        "handle": "cyd",
        "post_id": str(posts[0].id),
        "slug": comment.slug,
        "id": entry_id,
        "pk": entry_id,
    }
    junk = [
        {},
        {"id": entry_id, "action": "delete", "reason": "gone"},
        {"key": f"audit:{entry_id}", "action": "remove"},
        {"key": f"log:{entry_id}", "action": "dismiss", "keys": [f"audit:{entry_id}"]},
        {"moderator": "nobody", "target": "post:x", "reason": "edited", "_method": "DELETE"},
    ]
    # Logging out last, so the signed-in clients stay signed in for the rest.
    routes = sorted(set(_routes()), key=lambda route: ("logout" in route, route))
    assert len(routes) > 30 and "mod/log/" in routes and routes[-1] == "accounts/logout/"
    for role_client, log_status in (
        (login(cast.boss), 200),
        (login(cast.mod), 200),
        (Client(), 302),
    ):
        for route in routes:
            if route == "accounts/logout/":  # still signed in (or not) as at the start
                assert role_client.get("/mod/log/").status_code == log_status
            path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m[1], "x"), route)
            for data in junk:
                role_client.post(path, data)
            role_client.get(path, junk[1])
            role_client.generic("DELETE", path)
            role_client.generic("PUT", path, "reason=edited")
            role_client.generic("PATCH", path, "reason=edited")
    after = {e["_id"]: e for e in audit_rows()}
    assert {k: after.get(k) for k in before} == before


def test_no_command_changes_or_deletes_an_entry(cast, scene, login):
    login(cast.mod).post("/mod/users/bob/suspend/", {"reason": "keep"})
    before = {e["_id"]: e for e in audit_rows()}
    ours = {
        name
        for name, app in get_commands().items()
        if app in APPS and name not in ("demo", "run_worker")  # both serve until stopped
    }
    assert {"set_role", "create_admin", "expire_suspensions"} <= ours
    for name in sorted(ours):
        with contextlib.suppress(CommandError, SystemExit):
            call_command(name, stdout=StringIO(), stderr=StringIO())
    call_command("set_role", "cyd", "moderator", stdout=StringIO())
    call_command(
        "create_admin",
        "--handle=root",
        "--name=Root",
        f"--password={PASSWORD}",
        "--no-input",
        stdout=StringIO(),
    )
    after = {e["_id"]: e for e in audit_rows()}
    assert {k: after.get(k) for k in before} == before
    assert len(after) == len(before) + 2


def test_the_code_only_ever_inserts_audit_entries():
    """Belt and braces for the two tests above: no module writes to the
    audit collection except by inserting."""
    writes = re.compile(r"\b(update|delete|remove|drop|modify|replace|save|insert)\w*\(")
    offenders = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if ("AuditEntry" in line or "audit_log" in line) and writes.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
    source = (ROOT / "moderation" / "services" / "base.py").read_text()
    assert ").save(force_insert=True)" in source


def test_the_queue_item_is_not_an_audit_entry(cast, scene, login):
    """Dismissing or resolving changes the queue item, never an audit entry."""
    posts, _ = scene
    login(cast.bob).post("/report/", {"target": f"post:{posts[0].id}", "reason": "spam"})
    mod = login(cast.mod)
    mod.post("/mod/act/", {"key": f"post:{posts[0].id}", "action": "dismiss"})
    first = audit_rows()
    login(cast.cyd).post("/report/", {"target": f"post:{posts[0].id}", "reason": "spam"})
    mod.post("/mod/act/", {"key": f"post:{posts[0].id}", "action": "remove"})
    assert audit_rows()[: len(first)] == first
    assert ReportedItem.objects.get(key=f"post:{posts[0].id}").status == "resolved"
