"""The cast of the moderation tests: Ada posts, Bob and Cyd follow her and
comment, Mo moderates, Boss is an admin."""

from types import SimpleNamespace

import pytest

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from moderation.documents import AuditEntry
from profiles import services as graph


def new_post(author, text="hello world", **kwargs):
    return feeds.post_create(
        author=author, type="status", detail={"text": text}, circles=[PUBLIC], **kwargs
    )


def new_comment(author, post_id, text="a comment", parent_slug=None):
    post = Post._get_collection().find_one({"_id": post_id})
    return comments.comment_create(post=post, author=author, text=text, parent_slug=parent_slug)


def audit_rows() -> list[dict]:
    return list(AuditEntry._get_collection().find({}).sort("_id", 1))


@pytest.fixture
def cast(make_user):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    cyd = make_user("cyd", "Cyd Charisse")
    mod = make_user("mod", "Mo Derator", role="moderator")
    boss = make_user("boss", "Boss Admin", role="admin")
    for reader in (bob, cyd, mod):
        graph.follow_create(follower=reader, followee="ada")
    graph.follow_create(follower=bob, followee="cyd")
    return SimpleNamespace(ada=ada, bob=bob, cyd=cyd, mod=mod, boss=boss)
