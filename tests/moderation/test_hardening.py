"""Hostile paging cursors on the moderation pages, and the report rate limit."""

import re

import pytest

from moderation.documents import Report
from tests.moderation.conftest import new_post

PAGES = ["/mod/reports/", "/mod/users/", "/mod/log/"]
# Keyset cursors replaced offsets (issue 10): whatever arrives as a cursor is
# parsed into typed values or ignored, so each of these is the first page.
HOSTILE_CURSORS = [
    "²",
    "١٢_٣",  # Arabic-Indic digits
    "５０_1",  # fullwidth digits
    "-1",
    "1_2",
    "1_2_3_4",
    "1e3_0x10",
    '{"$ne": 1}',
    "",
    "\x00",
    "9" * 10_000,
    "99999999999999999999_6b0409e87957ee291c14d0d3",
    "1_zzzzzzzzzzzzzzzzzzzzzzzz",
]


def handles_listed(response) -> list[str]:
    return re.findall(r'<span class="handle">@(\w+)</span>', response.content.decode())


@pytest.mark.parametrize("cursor", HOSTILE_CURSORS)
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("direction", ["before", "after"])
def test_a_hostile_cursor_is_the_first_page(page, cursor, direction, cast, login):
    response = login(cast.mod).get(page, {direction: cursor})
    assert response.status_code == 200
    assert 'rel="prev"' not in response.content.decode()


def test_the_users_page_by_handle_and_junk_starts_over(cast, login, make_user):
    for i in range(55):
        make_user(f"user{i:02d}")
    mod = login(cast.mod)
    page = mod.get("/mod/users/")
    first = handles_listed(page)
    after = re.search(r'rel="next"[^>]*href="\?q=&amp;after=(\w+)"', page.content.decode())
    second = handles_listed(mod.get("/mod/users/", {"after": after.group(1)}))
    assert len(first) == 50 and len(second) == 10  # 60 users in all
    assert first + second == sorted(first + second)
    for junk in ("²", "-50", "5" * 5000, '{"$gt": ""}'):
        assert handles_listed(mod.get("/mod/users/", {"after": junk})) == first


def test_reports_are_rate_limited_per_user(cast, login, settings):
    settings.RATELIMIT_REPORT = "2/600"
    posts = [new_post(cast.ada, f"post {i}") for i in range(3)]
    bob = login(cast.bob)
    for post in posts[:2]:
        bob.post("/report/", {"target": f"post:{post.id}", "reason": "spam"})
    response = bob.post(
        "/report/", {"target": f"post:{posts[2].id}", "reason": "spam"}, follow=True
    )
    assert "Too many attempts" in response.content.decode()
    assert Report.objects(reporter="bob").count() == 2
    # The limit is Bob's alone: Cyd still reports the third post.
    login(cast.cyd).post("/report/", {"target": f"post:{posts[2].id}", "reason": "spam"})
    assert [r.reporter for r in Report.objects(target_id=str(posts[2].id))] == ["cyd"]
