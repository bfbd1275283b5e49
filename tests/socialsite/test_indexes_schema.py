"""Indexes are part of the schema (docs/operations.md#indexes).

The embedded database creates every declared index as it starts, so a fresh
`runserver` database keeps one like per person; against any database,
`manage.py check` and `/healthz` report a declared index that is missing or
differs, and `manage.py ensure_indexes` creates or rebuilds it and says so.
"""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from bson import ObjectId
from django.core import checks as django_checks
from django.core.management import call_command
from pymongo.errors import OperationFailure

from feeds.documents import PostLike
from socialsite import checks, indexes, mongo

ROOT = Path(__file__).resolve().parents[2]

# What `manage.py runserver` runs first: the app's start-up, on a new in-memory
# database, with no `ensure_indexes`. Then one person likes one post twice, and
# reposts it twice and takes the repost back, under the eyes of a follower.
LIKE_TWICE = """
import json
from feeds.documents import Post, PostLike
from timelines.selectors import pages
from feeds.services import likes, posts, reposts
from profiles import services as people
from profiles.documents import User
ann = people.user_create(handle="ann", name="Ann", password="correct horse battery")
bob = people.user_create(handle="bob", name="Bob", password="correct horse battery")
cid = people.user_create(handle="cid", name="Cid", password="correct horse battery")
people.follow_create(follower=cid, followee="bob")
post = posts.post_create(author=ann, type="status", detail={"text": "hi"}, circles=[])
first = likes.like_create(post_id=post.id, user=bob)
second = likes.like_create(post_id=post.id, user=bob)
reposts.repost_create(post_id=post.id, user=bob)
reposts.repost_create(post_id=post.id, user=bob)
reposts.repost_delete(post_id=post.id, user=bob)
cid_news = [str(p["_id"]) for p in pages.news_page(User.objects.get(handle="cid")).posts]
print(json.dumps({
    "likes_count": Post.objects.get(id=post.id).likes_count,
    "likes": PostLike.objects(post=post.id).count(),
    "second_changed": second.changed,
    "reposts_count": Post.objects.get(id=post.id).reposts_count,
    "in_followers_news": str(post.id) in cid_news,
}))
"""


@pytest.mark.no_test_db(reason="the subprocess runs on its own in-memory database")
def test_a_fresh_embedded_database_counts_one_like_and_one_repost_per_person():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MONGODB_")}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", LIKE_TWICE],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT), "DEBUG": "true", "MONGODB_URI": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    [line] = [x for x in result.stdout.splitlines() if x.startswith("{")]
    assert json.loads(line) == {
        "likes_count": 1,
        "likes": 1,
        "second_changed": False,
        "reposts_count": 0,
        "in_followers_news": False,
    }


def _index_messages():
    return [m for m in django_checks.run_checks(tags=["mongodb"]) if m.id.startswith("socialsite")]


@pytest.fixture
def likes_index():
    """PostLike's unique `post_by` index; put back as declared afterwards."""
    collection = PostLike._get_collection()
    indexes.forget_health()
    yield collection
    indexes.ensure_all()


def _ensure_indexes() -> str:
    out = StringIO()
    call_command("ensure_indexes", stdout=out)
    return out.getvalue()


def test_a_dropped_unique_index_is_reported_then_recreated(likes_index, client):
    assert _index_messages() == []
    assert client.get("/healthz").json()["indexes"] == "ok"
    likes_index.drop_index("post_by")
    indexes.forget_health()  # /healthz compares at most once a minute

    [message] = _index_messages()
    assert message.id == checks.INDEX_MISSING
    assert isinstance(message, django_checks.Warning)
    assert message.obj == "post_like.post_by"
    assert "Index post_by of collection post_like is missing" in message.msg
    assert "ensure_indexes" in message.hint
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("status", "db", "indexes")} == {
        "status": "ok",
        "db": "ok",
        "indexes": "missing: post_like.post_by",
    }

    out = _ensure_indexes()
    assert "created post_like.post_by\n" in out
    assert "1 index(es) created, 0 rebuilt" in out
    assert likes_index.index_information()["post_by"]["unique"] is True
    assert _index_messages() == []
    assert client.get("/healthz").json()["indexes"] == "ok"
    assert _ensure_indexes().startswith("0 index(es) created, 0 rebuilt")


def test_an_index_with_other_options_is_reported_as_differing_and_rebuilt(likes_index, client):
    likes_index.drop_index("post_by")
    likes_index.create_index([("post", 1), ("by", 1)], name="post_by")  # not unique
    indexes.forget_health()

    [message] = _index_messages()
    assert message.id == checks.INDEX_DIFFERS
    assert message.obj == "post_like.post_by"
    assert "not as declared: unique False, declared True" in message.msg
    assert client.get("/healthz").json()["indexes"] == "differs: post_like.post_by"

    out = _ensure_indexes()
    assert "rebuilt post_like.post_by (unique False, declared True)\n" in out
    assert "0 index(es) created, 1 rebuilt" in out
    assert likes_index.index_information()["post_by"]["unique"] is True
    assert _index_messages() == []


def test_an_index_under_another_name_is_missing_and_renamed(likes_index):
    likes_index.drop_index("post_by")
    likes_index.create_index([("post", 1), ("by", 1)], name="by_hand", unique=True)

    [message] = _index_messages()
    assert message.id == checks.INDEX_MISSING
    assert "an index of the same keys is named by_hand" in message.msg
    out = _ensure_indexes()
    assert "rebuilt post_like.post_by (was named by_hand)\n" in out
    assert "by_hand" not in likes_index.index_information()
    assert _index_messages() == []


@pytest.mark.filterwarnings("ignore:the \\(type, exc, tb\\) signature:DeprecationWarning")
def test_an_index_that_cannot_be_built_is_a_clear_failure(likes_index):
    """Duplicates already in: the unique index cannot be built, the command
    says why and fails, and the rest is still ensured."""
    likes_index.drop_index("post_by")
    post_id = ObjectId()
    likes_index.insert_many([{"post": post_id, "by": "bob"}, {"post": post_id, "by": "bob"}])
    out = StringIO()
    with pytest.raises(Exception, match="could not be built"):
        call_command("ensure_indexes", stdout=out)
    assert "failed post_like.post_by" in out.getvalue()
    [message] = _index_messages()
    assert message.id == checks.INDEX_MISSING
    likes_index.delete_many({})


def test_the_check_says_when_the_database_cannot_be_compared(monkeypatch):
    monkeypatch.setattr(mongo, "ping_error", lambda db=None: "ServerSelectionTimeoutError: down")
    [message] = _index_messages()
    assert message.id == checks.INDEXES_UNCHECKED
    assert "ServerSelectionTimeoutError: down" in message.msg


def test_healthz_answers_when_the_indexes_cannot_be_listed(client, monkeypatch):
    def refused():
        raise OperationFailure("not authorized on socialsite to execute listIndexes")

    monkeypatch.setattr(indexes, "drift", refused)
    indexes.forget_health()
    response = client.get("/healthz")
    indexes.forget_health()
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("status", "db", "indexes")} == {
        "status": "ok",
        "db": "ok",
        "indexes": "unknown: OperationFailure",
    }
