"""Site-wide behaviour: health, settings profiles, indexes, demo data, boundaries."""

import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from comments.documents import CommentDocument
from feeds.demo_texts import base_sentence
from feeds.documents import ALL_CIRCLES, PUBLIC, Post, PostLike, PostRepost
from messaging.documents import Conversation
from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.selectors import graph_all
from socialsite import indexes, mongo
from socialsite.documents import SessionRecord

ROOT = Path(__file__).resolve().parent.parent


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("status", "db", "indexes")} == {
        "status": "ok",
        "db": "ok",
        "indexes": "ok",
    }
    # Every sweeper is listed, none run yet under the suite (its loop is off).
    assert set(body["sweeps"]) >= {"feeds.pending", "profiles.accounts"}


def test_healthz_reports_database_failure(client, monkeypatch):
    def broken():
        raise RuntimeError("down")

    monkeypatch.setattr(mongo, "database", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "db": "unreachable"}


def test_demo_banner_on_every_page(client):
    assert mongo.is_demo() == (not os.environ.get("MONGODB_TEST_URI"))
    if mongo.is_demo():
        for path in ["/", "/accounts/login/", "/search/?q=a"]:
            assert b"Demo mode" in client.get(path).content


def test_security_headers(client):
    response = client.get("/accounts/login/")
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_unknown_page_is_a_friendly_404(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"There is nothing here" in response.content


def test_ensure_indexes_is_idempotent_and_reports():
    for document in indexes.all_documents():
        document._get_collection().drop()
    first, second = StringIO(), StringIO()
    call_command("ensure_indexes", stdout=first)
    call_command("ensure_indexes", stdout=second)
    assert "created following._f_1__t_1" in first.getvalue()
    assert "created session.expire_ttl" in first.getvalue()
    assert second.getvalue().startswith("0 index(es) created")
    info = FollowingEdge._get_collection().index_information()
    assert info["_f_1__t_1"]["unique"] is True
    session_ttl = SessionRecord._get_collection().index_information()["expire_ttl"]
    assert session_ttl["expireAfterSeconds"] == 0


@pytest.mark.mongomock_only(
    reason="the graph's shape, not the driver: seeding runs through the driver in the "
    "erasure and export tests' demo worlds"
)
def test_seed_demo_builds_a_zipf_graph():
    out = StringIO()
    people = 120
    call_command("seed_demo", users=people, maxfollows=20, stdout=out)
    # The demo users, plus the moderator and admin accounts of moderation/demo.py
    # and the three advertisers of ads/demo.py.
    assert User.objects(role="user").count() == people
    assert User.objects(role="advertiser").count() == 3
    assert User.objects.count() == people + 5
    assert User.objects(handle="alice").count() == 1
    # Counters match the edges, both directions agree.
    for user in User.objects.only("handle", "followers_count", "following_count"):
        assert user.followers_count == FollowerEdge.objects(followee=user.handle).count()
        assert user.following_count == FollowingEdge.objects(follower=user.handle).count()
    # Early users are the popular ones.
    handles = [u.handle for u in User.objects.order_by("created").only("handle")]
    counts = {u.handle: u.followers_count for u in User.objects.only("handle", "followers_count")}
    early = sum(counts[h] for h in handles[:12]) / 12
    late = sum(counts[h] for h in handles[-people // 2 :]) / (people // 2)
    assert early > 4 * late
    assert max(u.following_count for u in User.objects) <= 20 + 6
    assert "Demo ready" in out.getvalue()
    demo_reads_like_people()


def demo_reads_like_people():
    """The seeded demo as a visitor reads it (docs/features.md#the-demo)."""
    posts = list(Post._get_collection().find({}))
    # Nobody posts a text twice, and no two people post the same one.
    texts = [p["detail"].get("text") or p["detail"].get("question") for p in posts]
    assert len(texts) == len(set(texts))
    # Nor a status's own sentence (before any afterthought, mention or
    # hashtag): never twice by one person, at most twice in all.
    statuses = [p for p in posts if p["type"] == "status"]
    by_person = Counter((p["by"]["id"], base_sentence(p["detail"]["text"])) for p in statuses)
    assert max(by_person.values()) == 1
    overall = Counter(base_sentence(p["detail"]["text"]) for p in statuses)
    assert max(overall.values()) <= 2
    # Every poll has votes, at least 3 unless fewer people may see it (a
    # circle of one or two); only they voted, never the author.
    placed = graph_all()[1]
    for poll in (p for p in posts if p["type"] == "poll"):
        author, circles = poll["by"]["id"], set(poll["circles"])
        if PUBLIC in circles:
            audience = len(posts)  # anyone
        else:
            audience = sum(
                bool(named) and (ALL_CIRCLES in circles or bool(named & circles))
                for _, named in placed.get(author, [])
            )
        assert sum(poll["detail"]["votes"]) >= min(3, audience), poll["detail"]
    # Hashtags several people use: trends and tag pages have content.
    users_of: dict = {}
    for p in posts:
        for tag in p.get("tags") or ():
            users_of.setdefault(tag, set()).add(p["by"]["id"])
    assert sum(len(people) >= 3 for people in users_of.values()) >= 3
    # Nobody mentions themselves, in a post or a comment.
    assert not [p for p in posts if p["by"]["id"] in (p.get("mentions") or ())]
    for c in CommentDocument._get_collection().find({}, {"author": 1, "text": 1}):
        assert f"@{c['author']['id']}" not in (c.get("text") or "")
    # Likes and reposts: counts equal the marks; a few popular posts, a long tail.
    for document, counter in ((PostLike, "likes_count"), (PostRepost, "reposts_count")):
        marks = Counter(row["post"] for row in document._get_collection().find({}, {"post": 1}))
        assert {p["_id"]: p.get(counter) or 0 for p in posts} == {
            p["_id"]: marks[p["_id"]] for p in posts
        }, counter
    likes = sorted(p.get("likes_count") or 0 for p in posts)
    assert sum(n > 0 for n in likes) > 0.7 * len(likes)
    assert likes[-1] >= 4 * max(1, statistics.median(likes))
    assert PostRepost.objects.count() and not PostRepost.objects(delivery__state="pending").count()
    # Pins: one's own posts, each once.
    for user in User._get_collection().find({"pinned.0": {"$exists": True}}):
        pinned = user["pinned"]
        assert len(pinned) == len(set(pinned))
        assert {p["by"]["id"] for p in posts if p["_id"] in pinned} == {user["_id"]}
    # alice's inbox as a client shows it: unread only if someone else wrote
    # after she last read; her header count agrees.
    unread = 0
    for c in Conversation._get_collection().find({"everyone": "alice"}):
        read = next(m["read"] for m in c["members"] if m["h"] == "alice")
        behind = c["last"]["by"] != "alice" and read < c["last"]["ts"]
        assert ("alice" in c["unread"]) == behind
        unread += behind
    assert unread and User.objects.get(handle="alice").messages_unread == unread


def test_no_app_module_imports_mongomock():
    offenders = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {".venv", "tests", "embedded_mongo"}:
            continue
        if rel.parts[0] in {"build"}:
            continue
        if re.search(r"^\s*(import|from)\s+mongomock", path.read_text(), re.M):
            offenders.append(str(rel))
    assert offenders == []


SUBPROCESS_ONLY = "manage.py check runs in a subprocess that never opens the test database"


@pytest.mark.no_test_db(reason=SUBPROCESS_ONLY)
def test_production_settings_pass_check_deploy(tmp_path):
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "k" * 20 + "-production-secret-0123456789-abcdefghijklmnop",
        "ALLOWED_HOSTS": "social.example.org",
        "PYTHONPATH": str(ROOT),
        "STATIC_ROOT": str(tmp_path),
    }

    def manage(*args):
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    # The production sequence of the README: the check wants the static files.
    before = manage("check", "--deploy", "--fail-level", "WARNING")
    assert before.returncode != 0
    assert "(socialsite.E001) DEBUG is off and the static files" in before.stderr
    collected = manage("collectstatic", "--noinput")
    assert collected.returncode == 0, collected.stdout + collected.stderr
    result = manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_a_checkout_makes_its_own_secret_key_and_an_installed_site_refuses_none(
    tmp_path, monkeypatch
):
    """docs/operations.md#the-secret-key: with nothing set, a checkout keeps a
    random key of its own (0600, the same on every start); an installed
    package (no manage.py beside it) with DEBUG off refuses to start."""
    from socialsite import settings as site_settings

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "manage.py").write_text("")
    monkeypatch.setattr(site_settings, "BASE_DIR", checkout)
    monkeypatch.setattr(site_settings, "LOCAL_SECRET_KEY_FILE", checkout / ".secret_key")
    first = site_settings._local_secret_key()
    assert len(first) > 50 and site_settings._local_secret_key() == first
    assert (checkout / ".secret_key").stat().st_mode & 0o777 == 0o600
    installed = tmp_path / "site-packages"
    installed.mkdir()
    monkeypatch.setattr(site_settings, "BASE_DIR", installed)
    monkeypatch.setattr(site_settings, "LOCAL_SECRET_KEY_FILE", installed / ".secret_key")
    assert site_settings._local_secret_key() == ""
    assert ".secret_key" in (ROOT / ".gitignore").read_text()
