"""The unread count follows what the page lists: a recount racing a `notify`
keeps it, and a mute, an unmute or a moderator's removal recounts it."""

import pytest

from comments import services as comments
from feeds.documents import Post
from notifications import selectors
from notifications import services as notifications
from profiles import services as graph
from profiles.documents import User
from tests.notifications.helpers import header_count, listed, make_post, unread


@pytest.fixture
def ann(make_user):
    for handle in ("bob", "cat", "dan"):
        make_user(handle, handle.title())
    return make_user("ann", "Ann")


def header(client) -> int:
    response = client.get("/feed/")
    assert response.status_code == 200
    return header_count(response.content.decode())


def test_a_notify_landing_inside_a_recount_is_not_lost(ann, monkeypatch):
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    counted = selectors.unread_visible
    calls = []

    def then_a_notify(viewer, **kwargs):
        # The recount has read the user and the buckets; dan's follow lands
        # (item and `$inc`) before the recount writes what it counted.
        result = counted(viewer, **kwargs)
        calls.append(result)
        if len(calls) == 1:
            notifications.notify(recipient="ann", kind="follow", actor="dan")
        return result

    monkeypatch.setattr(selectors, "unread_visible", then_a_notify)
    notifications.notifications_recount(owner="ann")
    assert calls == [2, 3]  # the stale write was refused, the retry counted dan
    assert unread("ann") == 3


def test_a_recount_never_overwrites_a_read_that_landed_meanwhile(ann, monkeypatch):
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    counted = selectors.unread_visible
    marked = []

    def then_the_page_opens(viewer, **kwargs):
        result = counted(viewer, **kwargs)
        if not marked:
            marked.append(True)
            user = User.objects.get(handle="ann")
            page = selectors.notification_page(user, None)
            notifications.notifications_mark_read(user=user, newest=page.newest)
        return result

    monkeypatch.setattr(selectors, "unread_visible", then_the_page_opens)
    notifications.notifications_recount(owner="ann")
    assert unread("ann") == 0


def test_muting_and_unmuting_recount(ann):
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    assert unread("ann") == 2
    graph.mute_create(user=ann, handle="bob")
    assert unread("ann") == 1
    graph.mute_delete(user=ann, handle="bob")
    assert unread("ann") == 2


def test_the_header_drops_after_a_mute(ann, login):
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    client = login(ann)
    assert header(client) == 2
    assert client.post("/u/bob/mute/").status_code == 302
    assert header(client) == 1
    assert [n["actor"] for n in listed(client.get("/notifications/").content.decode())] == ["cat"]


def test_the_header_drops_after_a_moderator_removes_a_post_or_a_comment(ann, login, make_user):
    mod = login(make_user("mod", "Mo", role="moderator"))
    bob = User.objects.get(handle="bob")
    liked = make_post(ann, "liked")
    commented = make_post(ann, "commented")
    notifications.notify(recipient="ann", kind="like", actor="cat", post_id=liked)
    stored_post = Post._get_collection().find_one({"_id": commented})
    comment = comments.comment_create(post=stored_post, author=bob, text="rude words")
    notifications.notify(recipient="ann", kind="follow", actor="dan")
    client = login(ann)
    assert header(client) == 3

    key = f"comment:{commented}/{comment.slug}"
    assert mod.post("/mod/act/", {"key": key, "action": "remove"}).status_code == 302
    assert header(client) == 2
    assert mod.post("/mod/act/", {"key": f"post:{liked}", "action": "remove"}).status_code == 302
    # The like of the removed post leaves the count; ann's notice of the removal joins it.
    assert header(client) == 2
    # A restore shows the like again, and counts it again.
    assert mod.post("/mod/act/", {"key": f"post:{liked}", "action": "restore"}).status_code == 302
    assert header(client) == 3
    shown = listed(client.get("/notifications/").content.decode())
    assert sorted((n["kind"], n["actor"]) for n in shown) == [
        ("follow", "dan"),
        ("like", "cat"),
        ("removed", ""),
    ]
