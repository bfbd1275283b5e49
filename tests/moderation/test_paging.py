"""The queue and the audit log page by keyset cursors (issue 10): forward to
the end and back again, with no row lost or shown twice, even among rows that
tie on every sort key but `_id`."""

import html
import re
from datetime import timedelta

import pytest

from moderation import selectors
from moderation.documents import AuditEntry, ReportedItem
from socialsite.clock import now


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(selectors, "PAGE", 3)


def link(page: str, rel: str) -> str | None:
    match = re.search(rf'<a rel="{rel}"[^>]*href="([^"]+)"', page)
    return html.unescape(match.group(1)) if match else None


def flat(pages: list[list[str]]) -> list[str]:
    return [row for page in pages for row in page]


def walk(client, url: str, row_pattern: str) -> tuple[list[list[str]], list[list[str]]]:
    """The pages following rel="next" to the end, then rel="prev" back to the start."""
    forward, backward = [], []
    page = client.get(url).content.decode()
    forward.append(re.findall(row_pattern, page))
    while (following := link(page, "next")) is not None:
        page = client.get(url.split("?")[0] + following).content.decode()
        forward.append(re.findall(row_pattern, page))
        assert len(forward) < 50, "the pages never end"
    while (previous := link(page, "prev")) is not None:
        page = client.get(url.split("?")[0] + previous).content.decode()
        backward.append(re.findall(row_pattern, page))
        assert len(backward) < 50, "the pages never end"
    return forward, backward


def test_the_audit_log_pages_to_the_end_and_back(cast, login, small_pages):
    t = now()
    # Eleven entries; four share one millisecond, so only `_id` orders them.
    for n in range(11):
        AuditEntry(
            ts=t - timedelta(seconds=min(n, 4)),
            moderator="mod",
            action="user_suspend",
            target_type="user",
            target_id=f"user{n:02d}",
        ).save()
    expected = [
        e.target_id for e in sorted(AuditEntry.objects, key=lambda e: (e.ts, e.id), reverse=True)
    ]
    mod = login(cast.mod)
    forward, backward = walk(mod, "/mod/log/", r">user:(user\d\d)<")
    assert [len(p) for p in forward] == [3, 3, 3, 2]
    assert flat(forward) == expected
    assert backward == forward[-2::-1]  # each earlier page again, newest last
    # A filter pages through its own index the same way.
    filtered, _ = walk(mod, "/mod/log/?moderator=mod&action=user_suspend", r">user:(user\d\d)<")
    assert flat(filtered) == expected


def test_the_queue_pages_to_the_end_and_back(cast, login, small_pages):
    t = now()
    for n in range(8):
        ReportedItem(
            key=f"user:user{n:02d}",
            target_type="user",
            target_id=f"user{n:02d}",
            reporters=1 + n % 3,
            last_reported=t - timedelta(minutes=n % 2),  # many ties: `_id` decides
            reasons=["spam"],
            author="ada",
        ).save()
    expected = [
        i.key.removeprefix("user:")
        for i in sorted(
            ReportedItem.objects,
            key=lambda i: (i.reporters, i.last_reported, i.key),
            reverse=True,
        )
    ]
    mod = login(cast.mod)
    row = r'name="keys" value="user:(user\d\d)"'
    forward, backward = walk(mod, "/mod/reports/", row)
    assert flat(forward) == expected
    assert [len(p) for p in forward] == [3, 3, 2]
    assert backward == forward[-2::-1]
    by_reason, _ = walk(mod, "/mod/reports/?reason=spam&type=user", row)
    assert flat(by_reason) == expected


def test_a_cursor_never_reaches_the_query_as_an_operator(cast, login):
    mod = login(cast.mod)
    for cursor in ('{"$gt": ""}', "1_2_{'$ne': 1}", "[1]"):
        for page in ("/mod/log/", "/mod/reports/"):
            assert mod.get(page, {"before": cursor}).status_code == 200
            assert mod.get(page, {"after": cursor}).status_code == 200
