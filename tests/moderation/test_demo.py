"""The demo's moderation data: the accounts the README names, open reports
of every kind, one past action, and every moderation page rendering it."""

import re
from io import StringIO

import pytest
from django.core.management import call_command

from moderation.documents import AuditEntry, Report, ReportedItem
from profiles.demo import DEMO_PASSWORD
from profiles.documents import User
from tests.conftest import login_client


@pytest.mark.mongomock_only(
    reason="the demo's content; seeding runs through the driver in tests/test_site.py"
)
def test_the_demo_has_moderators_and_reports():
    out = StringIO()
    call_command("seed_demo", users=60, maxfollows=10, stdout=out)
    assert "moderation: accounts moderator and admin" in out.getvalue()
    assert User.objects.get(handle="moderator").role == "moderator"
    assert User.objects.get(handle="admin").role == "admin"
    open_items = ReportedItem.objects(status="open")
    assert {i.target_type for i in open_items} == {"post", "comment", "user"}
    assert max(i.reporters for i in open_items) >= 3
    assert len({r.reporter for r in Report.objects}) >= 5
    assert [e.action for e in AuditEntry.objects] == ["report.dismiss"]

    moderator = login_client(User.objects.get(handle="moderator"), DEMO_PASSWORD)
    html = moderator.get("/mod/reports/").content.decode()
    keys = re.findall(r'data-key="([^"]+)"', html)
    assert len(keys) == open_items.count()
    suspect = next(k for k in keys if k.startswith("user:")).split(":")[1]
    for path in ("/mod/", "/mod/users/", f"/mod/users/{suspect}/", "/mod/log/"):
        assert moderator.get(path).status_code == 200, path
    # Every reported item's author has a page that renders, whatever they posted.
    for author in {i.author for i in ReportedItem.objects}:
        assert moderator.get(f"/mod/users/{author}/").status_code == 200, author
    admin = login_client(User.objects.get(handle="admin"), DEMO_PASSWORD)
    assert "Change role" in admin.get(f"/mod/users/{suspect}/").content.decode()
