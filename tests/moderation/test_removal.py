"""Moderator removal of posts and comments: soft, reaching every timeline
under every feed model (linking or embedding), and undone by restoring."""

import re

import pytest

from feeds.services import posts as feeds
from moderation.documents import AuditEntry
from profiles import services as graph
from profiles.auth import AnonymousVisitor
from profiles.documents import User
from tests.conftest import user
from tests.moderation.conftest import new_comment, new_post
from timelines.selectors import pages as selectors
from timelines.stores import get_store

MODELS = [(m, embed) for m in ("read", "cache", "month", "size") for embed in (False, True)]
PLACEHOLDER = "[removed by a moderator]"


@pytest.fixture(params=MODELS, ids=[f"{m}-{'embed' if e else 'link'}" for m, e in MODELS])
def feed_model(request, settings):
    """Set before the cast exists, so every timeline is stored under this model."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    return request.param


def news(handle) -> set:
    return {p["_id"] for p in selectors.news_page(user(handle)).posts}


def wall(owner, viewer=None) -> set:
    viewer = user(viewer) if viewer else AnonymousVisitor()
    return {p["_id"] for p in selectors.wall_page(user(owner), viewer).posts}


def incoming(owner) -> set:
    return {p["_id"] for p in selectors.incoming_page(user(owner)).posts}


def stored(kind, owner) -> set:
    """Post ids in the timeline documents themselves (not through the read fallback)."""
    store = get_store()
    if not store.stores_entries:
        return set()
    return {e["id"] for e in store.entries(kind, owner, None, 1000).entries}


def timelines() -> dict:
    return {
        "news": {h: news(h) for h in ("ada", "bob", "cyd", "mod")},
        "walls": {
            (owner, viewer): wall(owner, viewer)
            for owner in ("ada", "bob")
            for viewer in ("ada", "bob", "cyd", None)
        },
        "incoming": incoming("ada"),
        "stored": {(k, h): stored(k, h) for k in ("news", "wall") for h in ("ada", "bob", "cyd")},
    }


def contains(snapshot: dict, post_id) -> set:
    """The timelines (by name) whose snapshot holds `post_id`."""
    found = set()
    for group, value in snapshot.items():
        if isinstance(value, dict):
            found |= {(group, key) for key, ids in value.items() if post_id in ids}
        elif post_id in value:
            found.add((group,))
    return found


def test_a_removed_post_leaves_every_timeline(feed_model, cast, login):
    graph.follow_create(follower=cast.ada, followee="bob")  # Bob's posts show on her wall
    removed = new_post(cast.ada, "a post to remove")
    kept = new_post(cast.ada, "a post that stays")
    on_wall = feeds.post_create(
        author=cast.bob,
        type="status",
        detail={"text": "on ada's wall"},
        circles=["*public*"],
        to="ada",
    )
    top = new_comment(cast.cyd, removed.id, "cyd's comment")
    reply = new_comment(cast.bob, removed.id, "bob's reply", parent_slug=top.slug)

    before = timelines()
    where = contains(before, removed.id)
    assert {("news", h) for h in ("ada", "bob", "cyd", "mod")} <= where
    assert {("walls", ("ada", v)) for v in ("ada", "bob", "cyd", None)} <= where
    if get_store().stores_entries:
        assert ("stored", ("news", "bob")) in where and ("stored", ("wall", "ada")) in where
    wall_post_places = contains(before, on_wall.id)
    assert ("incoming",) in wall_post_places and ("walls", ("ada", "ada")) in wall_post_places

    mod = login(cast.mod)
    act = {"key": f"post:{removed.id}", "action": "remove", "reason": "spam"}
    assert mod.post("/mod/act/", act).status_code == 302
    bulk = {"keys": [f"post:{on_wall.id}"], "action": "remove", "reason": "spam"}
    assert mod.post("/mod/bulk/", bulk).status_code == 302

    after = timelines()
    assert contains(after, removed.id) == set()
    assert contains(after, on_wall.id) == set()
    assert contains(after, kept.id) == contains(before, kept.id) != set()
    bob = login(cast.bob)
    assert f'data-post-id="{removed.id}"' not in bob.get("/feed/").content.decode()
    assert f'data-post-id="{removed.id}"' not in bob.get("/u/ada/").content.decode()
    assert f'data-post-id="{kept.id}"' in bob.get("/u/ada/").content.decode()

    # A removed post, its thread and its permalinks are 404 to all but moderators.
    assert bob.get(f"/posts/{removed.id}/").status_code == 404
    assert bob.get(f"/posts/{removed.id}/c/{top.slug}/").status_code == 404
    page = mod.get(f"/posts/{removed.id}/").content.decode()
    assert PLACEHOLDER in page
    assert "cyd&#x27;s comment" in page and "bob&#x27;s reply" in page
    assert mod.get(f"/posts/{removed.id}/c/{reply.slug}/").status_code == 200
    assert "Restore post" in page

    # Restoring brings it back everywhere it was.
    mod.post("/mod/act/", {"key": f"post:{removed.id}", "action": "restore"})
    restored = timelines()
    assert contains(restored, removed.id) == contains(before, removed.id)
    page = bob.get(f"/posts/{removed.id}/").content.decode()
    assert "a post to remove" in page and PLACEHOLDER not in page
    assert "cyd&#x27;s comment" in page
    assert [e.action for e in AuditEntry.objects.order_by("ts")] == [
        "post.remove",
        "post.remove",
        "post.restore",
    ]


def test_removing_twice_or_restoring_a_live_post_is_refused(cast, login):
    post = new_post(cast.ada)
    mod = login(cast.mod)
    key = f"post:{post.id}"
    response = mod.post("/mod/act/", {"key": key, "action": "restore"})
    assert "Only a removed post" in mod.get(response["Location"]).content.decode()
    mod.post("/mod/act/", {"key": key, "action": "remove"})
    response = mod.post("/mod/act/", {"key": key, "action": "remove"})
    assert "removed already" in mod.get(response["Location"]).content.decode()
    assert AuditEntry.objects.count() == 1


def test_a_post_removed_before_delivery_leaves_no_backlog(cast, login, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    post = new_post(cast.ada, "queued")
    assert feeds.Post.objects.get(id=post.id).delivery.state == "pending"
    login(cast.mod).post("/mod/act/", {"key": f"post:{post.id}", "action": "remove"})
    assert feeds.Post.objects.get(id=post.id).delivery.state == "done"
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    login(cast.mod).post("/mod/act/", {"key": f"post:{post.id}", "action": "restore"})
    assert feeds.Post.objects.get(id=post.id).delivery.state == "done"
    assert post.id in news("bob")


@pytest.mark.parametrize("store_name", ["documents", "embedded", "buckets"])
def test_a_removed_comment_keeps_its_replies_and_can_be_restored(
    store_name, settings, cast, login
):
    settings.COMMENTS_STORE = store_name
    post = new_post(cast.ada)
    top = new_comment(cast.cyd, post.id, "rude words")
    reply = new_comment(cast.bob, post.id, "a calm reply", parent_slug=top.slug)
    mod = login(cast.mod)
    key = f"comment:{post.id}/{top.slug}"
    mod.post("/mod/act/", {"key": key, "action": "remove", "reason": "rude"})

    page = login(cast.bob).get(f"/posts/{post.id}/").content.decode()
    texts = re.findall(r'<p class="comment__text[^"]*">([^<]*)</p>', page)
    assert PLACEHOLDER in texts and "a calm reply" in texts
    assert "rude words" not in page
    assert f'data-slug="{reply.slug}"' in page
    # The audit entry keeps the text; restoring puts it back.
    [entry] = AuditEntry.objects(action="comment.remove")
    assert entry.details["text"] == "rude words" and entry.target_id == f"{post.id}/{top.slug}"
    response = mod.post("/mod/act/", {"key": key, "action": "remove"})
    assert "already gone" in mod.get(response["Location"]).content.decode()
    mod.post("/mod/act/", {"key": key, "action": "restore"})
    assert "rude words" in login(cast.bob).get(f"/posts/{post.id}/").content.decode()
    response = mod.post("/mod/act/", {"key": key, "action": "restore"})
    assert "Only a comment a moderator removed" in mod.get(response["Location"]).content.decode()
    assert [e.action for e in AuditEntry.objects.order_by("ts")] == [
        "comment.remove",
        "comment.restore",
    ]


def test_a_comment_its_author_deleted_cannot_be_restored_by_a_moderator(cast, login):
    from comments import services as comments

    post = new_post(cast.ada)
    top = new_comment(cast.cyd, post.id, "regret")
    comments.comment_delete(post_id=post.id, slug=top.slug, actor=cast.cyd)
    mod = login(cast.mod)
    response = mod.post("/mod/act/", {"key": f"comment:{post.id}/{top.slug}", "action": "restore"})
    assert response.status_code == 302
    assert "[deleted]" in mod.get(f"/posts/{post.id}/").content.decode()
    assert AuditEntry.objects.count() == 0


def test_a_restore_is_a_new_delivery_with_its_own_attempts(cast, settings):
    """A post that used up its delivery attempts before the removal is
    delivered again after the restore, not given up after one more try."""
    from feeds.documents import Post
    from moderation import services as moderation
    from moderation.targets import Target

    post = new_post(cast.ada, "delivered late")
    posts = Post._get_collection()
    attempts = settings.FEED_DELIVERY_MAX_ATTEMPTS
    posts.update_one({"_id": post.id}, {"$set": {"delivery.attempts": attempts}})
    target = Target("post", str(post.id))
    moderation.post_remove(moderator=cast.mod, target=target, reason="spam?")
    moderation.post_restore(moderator=cast.mod, target=target)

    delivery = posts.find_one({"_id": post.id})["delivery"]
    assert delivery["state"] == "done"
    assert delivery["attempts"] == 1
    assert post.id in news("bob")


def test_the_author_is_told_what_was_removed_and_why_never_by_whom(cast, login):
    post = new_post(cast.ada, "Buy cheap followers at example.com")
    comment = new_comment(cast.ada, post.id, "and here too")
    before = User.objects.get(handle="ada").notifications_unread  # the cast's follows
    mod = login(cast.mod)
    key = f"comment:{post.id}/{comment.slug}"
    mod.post("/mod/act/", {"key": key, "action": "remove", "reason": "Spam links"})
    mod.post("/mod/act/", {"key": f"post:{post.id}", "action": "remove"})
    assert User.objects.get(handle="ada").notifications_unread == before + 2
    page = login(cast.ada).get("/notifications/").content.decode()
    assert page.count('data-kind="removed"') == 2
    assert "The moderators removed a comment of yours." in page
    assert "Reason: Spam links" in page
    assert "The moderators removed a post of yours." in page
    assert "No reason was given." in page
    removed = re.findall(r'data-kind="removed" data-actor="([^"]*)"', page)
    assert removed == ["", ""]  # no moderator named


def test_a_bulk_removal_needs_a_reason(cast, login):
    post = new_post(cast.ada, "spam spam")
    mod = login(cast.mod)
    refused = mod.post("/mod/bulk/", {"keys": [f"post:{post.id}"], "action": "remove"})
    page = mod.get(refused["Location"]).content.decode()
    assert "Give a reason for removing them" in page
    assert "post.remove" not in [row.action for row in AuditEntry.objects]
    # The card's own removal asks for one too (a required field, the author is told).
    card = mod.get(f"/posts/{post.id}/").content.decode()
    assert 'name="reason" maxlength="500" required' in card
