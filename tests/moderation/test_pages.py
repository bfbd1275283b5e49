"""The dashboard's figures, the users search and a user's moderation page."""

import re
from datetime import timedelta

from comments.stores import get_store
from feeds.documents import Post
from moderation import services
from moderation.targets import resolve_target
from profiles.documents import User
from socialsite.clock import now
from tests.moderation.conftest import new_comment, new_post

DUMMY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


def stats(html: str) -> dict:
    return dict(re.findall(r'data-stat="([\w-]+)"[^>]*>([^<]*)<', html))


def test_the_dashboard_counts(cast, make_user, login, settings):
    t = now()
    make_user("old1", created=t - timedelta(days=3))
    make_user("old2", created=t - timedelta(days=10))
    p1 = new_post(cast.ada, "today")
    new_post(cast.ada, "three days ago", ts=t - timedelta(days=3))
    new_post(cast.ada, "ten days ago", ts=t - timedelta(days=10))
    new_comment(cast.bob, p1.id, "now")
    new_comment(cast.cyd, p1.id, "now too")
    get_store().post(
        p1.id, author={"id": "bob", "name": "Bob"}, text="old", posted=t - timedelta(days=2)
    )
    get_store().post(
        p1.id, author={"id": "bob", "name": "Bob"}, text="older", posted=t - timedelta(days=9)
    )
    for key, reporter in (("user:cyd", cast.bob), (f"post:{p1.id}", cast.bob)):
        services.report_create(reporter=reporter, target=resolve_target(key), reason="spam")
    services.report_create(reporter=cast.ada, target=resolve_target("user:bob"), reason="other")
    services.report_dismiss(moderator=cast.mod, target=resolve_target("user:bob"))
    services.user_suspend(moderator=cast.mod, target=resolve_target("user:old1"), reason="x")
    # Two deliveries waiting for a worker, the older one queued two hours ago.
    settings.TASKS = DUMMY
    waiting = [new_post(cast.bob, f"waiting {i}") for i in range(2)]
    Post.objects(id=waiting[0].id).update_one(set__delivery__queued=t - timedelta(hours=2))
    settings.TASKS = IMMEDIATE

    html = login(cast.mod).get("/mod/").content.decode()
    s = stats(html)
    assert {k: s[k] for k in s if k != "oldest-pending"} == {
        "users-day": "5",
        "users-week": "6",
        "users-all": "7",
        "posts-day": "3",
        "posts-week": "4",
        "posts-all": "5",
        "comments-day": "2",
        "comments-week": "3",
        "open-reports": "2",
        "suspended": "1",
        "backlog": "2",
    }
    seconds = int(re.search(r'data-stat="oldest-pending" data-seconds="(\d+)"', html)[1])
    assert 7200 <= seconds < 7200 + 60
    assert "2\xa0hours ago" in s["oldest-pending"] or "2 hours ago" in s["oldest-pending"]
    # The latest actions, newest first.
    assert re.findall(r'data-action="([^"]+)"', html) == ["user.suspend", "report.dismiss"]


def test_an_empty_dashboard(cast, login):
    html = login(cast.mod).get("/mod/").content.decode()
    assert stats(html)["backlog"] == "0" and "nothing pending" in html
    assert "No moderator actions yet." in html


def test_the_users_search(cast, login, make_user):
    services.user_suspend(moderator=cast.mod, target=resolve_target("user:cyd"), reason="x")
    mod = login(cast.mod)

    def found(q):
        html = mod.get("/mod/users/", {"q": q}).content.decode()
        return re.findall(r'<span class="handle">@(\w+)</span>', html)

    assert found("cy") == ["cyd"]  # suspended users are listed too
    assert found("charisse") == ["cyd"]
    assert found("Kahn") == ["bob"]
    assert found("@bo") == ["bob", "boss"]
    assert found("zzz") == []
    assert "Nobody matches." in mod.get("/mod/users/", {"q": "zzz"}).content.decode()
    assert len(found("")) == 5
    for junk in ('{"$ne": 1}', ".*", "(", "x" * 500):
        assert mod.get("/mod/users/", {"q": junk}).status_code == 200
    assert mod.get("/mod/users/", {"skip": "-5"}).status_code == 200


def test_a_users_page(cast, login):
    post = new_post(cast.cyd, "cyd writes")
    comment = new_comment(cast.cyd, post.id, "cyd comments")
    poll = Post(
        by={"id": "cyd", "name": "Cyd"},
        circles=["*public*"],
        type="poll",
        detail={"question": "Tabs or spaces?", "options": ["tabs", "spaces"]},
    ).save()
    services.report_create(
        reporter=cast.bob,
        target=resolve_target(f"comment:{post.id}/{comment.slug}"),
        reason="harassment",
    )
    services.report_create(reporter=cast.ada, target=resolve_target("user:cyd"), reason="spam")
    services.user_suspend(moderator=cast.mod, target=resolve_target("user:cyd"), reason="trolling")
    mod = login(cast.mod)
    html = mod.get("/mod/users/cyd/").content.decode()
    assert "Cyd Charisse" in html and "data-user-status>suspended<" in html
    assert "trolling" in html
    assert f'href="/posts/{post.id}/">cyd writes</a>' in html
    assert f'href="/posts/{poll.id}/">Tabs or spaces?</a>' in html
    assert "cyd comments" in html
    assert "comment: cyd comments" in html and "user: Cyd Charisse" in html
    assert 'data-action="user.suspend"' in html
    assert "Unsuspend" in html and "Change role" not in html
    assert mod.get("/mod/users/nobody/").status_code == 404
    assert mod.get("/mod/users/NO$PE/").status_code == 404
    assert User.objects.get(handle="cyd").status == "suspended"
