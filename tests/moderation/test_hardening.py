"""Hostile paging offsets on the moderation pages, and the report rate limit."""

import re

import pytest

from moderation.documents import Report
from moderation.views import MAX_SKIP
from tests.moderation.conftest import new_post

PAGES = ["/mod/reports/", "/mod/users/", "/mod/log/"]
# Each was either a 500 (int() refuses "²", "١٢" and over 4,300 digits) or an
# offset the server would walk through; each is the first page.
HOSTILE_SKIPS = [
    "²",
    "١٢",  # Arabic-Indic digits
    "５０",  # fullwidth digits
    "-1",
    "+50",
    " 50",
    "1e3",
    "0x10",
    "x",
    "",
    "\x00",
    "9" * 10_000,
    str(MAX_SKIP + 1),
    "99999999999999999999",
]


def handles_listed(response) -> list[str]:
    return re.findall(r'<span class="handle">@(\w+)</span>', response.content.decode())


@pytest.mark.parametrize("skip", HOSTILE_SKIPS)
@pytest.mark.parametrize("page", PAGES)
def test_a_hostile_skip_is_the_first_page(page, skip, cast, login):
    response = login(cast.mod).get(page, {"skip": skip})
    assert response.status_code == 200
    assert 'rel="prev"' not in response.content.decode()


def test_skip_pages_through_the_users_and_junk_starts_over(cast, login, make_user):
    for i in range(55):
        make_user(f"user{i:02d}")
    mod = login(cast.mod)
    first = handles_listed(mod.get("/mod/users/"))
    second = handles_listed(mod.get("/mod/users/", {"skip": "50"}))
    assert len(first) == 50 and len(second) == 10  # 60 users in all
    assert not set(first) & set(second)
    for skip in ("²", "-50", "5" * 5000):
        assert handles_listed(mod.get("/mod/users/", {"skip": skip})) == first


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
