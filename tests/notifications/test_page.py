"""The notifications page: what it shows, what it hides, reading marks them read."""

import re
from datetime import timedelta

import pytest
from bson import ObjectId

from comments import services as comments
from feeds.documents import Post
from notifications import services as notifications
from notifications.documents import NotificationBucket
from profiles import services as graph
from profiles.documents import User
from socialsite import fragments
from socialsite.clock import now
from tests.notifications.helpers import header_count, listed, make_post, unread


def page(client, path="/notifications/"):
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.fixture
def world(make_user):
    ann = make_user("ann", "Ann")
    others = {h: make_user(h, h.title()) for h in ("bob", "cat", "dan", "eve")}
    return ann, others


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get("/notifications/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=%2Fnotifications%2F")


@pytest.mark.parametrize("before", ["x", "1_nothex", "99999999999999999_" + "a" * 24, ""])
def test_a_bad_cursor_is_404(world, login, before):
    ann, _ = world
    assert login(ann).get("/notifications/", {"before": before}).status_code == 404


def test_each_kind_is_shown_then_marked_read(world, login):
    ann, people = world
    bob = people["bob"]
    post = make_post(ann, "my first post")
    graph.follow_create(follower=bob, followee="ann")
    stored_post = Post._get_collection().find_one({"_id": post})
    top = comments.comment_create(post=stored_post, author=ann, text="my comment")
    comments.comment_create(post=stored_post, author=bob, text="a reply", parent_slug=top.slug)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="repost", actor="bob", post_id=post)
    bobs = make_post(bob, "hi @ann")
    make_post(bob, "on your wall", to="ann")
    comments.comment_create(post=stored_post, author=bob, text="a comment on ann's post")
    # Bob answering on his own post tells ann nothing.
    comments.comment_create(
        post=Post._get_collection().find_one({"_id": bobs}), author=bob, text="a comment"
    )
    client = login(ann)
    html = page(client, "/feed/")
    assert header_count(html) == unread("ann") == 7
    html = page(client)
    shown = listed(html)
    assert sorted(n["kind"] for n in shown) == sorted(
        ["follow", "reply", "like", "repost", "mention", "wall", "comment"]
    )
    assert all(n["actor"] == "bob" for n in shown)
    follow = next(n for n in shown if n["kind"] == "follow")
    assert follow["post"] is None and "followed you" in follow["text"]
    assert 'action="/u/bob/follow/"' in follow["body"] and "Follow back" in follow["body"]
    like = next(n for n in shown if n["kind"] == "like")
    assert like["post"] == str(post) and f'href="/posts/{post}/"' in like["body"]
    reply = next(n for n in shown if n["kind"] == "reply")
    assert "/c/" in reply["body"]  # the comment permalink
    assert html.count("notification--unread") == len(shown)
    # Opened: everything is read, on this page's header and the next page's.
    assert header_count(html) == 0 and unread("ann") == 0
    graph.follow_create(follower=ann, followee="bob")
    again = page(client)
    assert "notification--unread" not in again
    assert "Follow back" not in again  # followed now
    assert [n["kind"] for n in listed(again)] == [n["kind"] for n in shown]


def test_the_header_equals_what_the_page_lists(world, login):
    ann, _people = world
    post = make_post(ann)
    for handle in ("bob", "cat", "dan"):
        notifications.notify(recipient="ann", kind="like", actor=handle, post_id=post)
    notifications.notify(recipient="ann", kind="follow", actor="eve")
    client = login(ann)
    count = header_count(page(client, "/feed/"))
    shown = listed(page(client))
    assert count == len(shown) == 2
    like = next(n for n in shown if n["kind"] == "like")
    assert like["actor"] == "dan" and "Dan and 2 others liked your post" in like["text"]


def test_blocked_and_muted_people_and_invisible_posts_are_hidden(world, login, make_user):
    ann, people = world
    bob = people["bob"]
    post = make_post(ann)
    for handle in ("bob", "cat"):
        notifications.notify(recipient="ann", kind="like", actor=handle, post_id=post)
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="dan")
    notifications.notify(recipient="ann", kind="follow", actor="eve")
    # A mention in a circle post ann was in, then taken out of.
    graph.circle_create(owner=bob, name="close")
    bob.reload()
    graph.follow_create(follower=bob, followee="ann", circles=["close"])
    cats = make_post(people["cat"], "about @ann")
    circle_post = make_post(bob.reload() or bob, "psst @ann", circles=["close"])
    assert circle_post
    # And a post someone removed (deleted posts take their items with them).
    Post._get_collection().update_one({"_id": cats}, {"$set": {"removed": {"by": "mod"}}})
    graph.follow_delete(follower="bob", followee="ann")
    User._get_collection().update_one({"_id": "ann"}, {"$set": {"muted": ["eve"]}})
    ann.reload()
    graph.block_create(blocker=ann, blocked="dan")
    shown = listed(page(login(ann)))
    kinds = [(n["kind"], n["actor"]) for n in shown]
    assert ("follow", "dan") not in kinds and ("follow", "eve") not in kinds
    assert ("mention", "cat") not in kinds  # removed post
    assert ("mention", "bob") not in kinds  # no longer in the circle
    assert ("follow", "bob") in kinds and ("like", "cat") in kinds
    # Blocking bob: his follow goes, and the like group shows cat alone.
    graph.block_create(blocker=User.objects.get(handle="ann"), blocked="bob")
    shown = listed(page(login(ann)))
    assert [(n["kind"], n["actor"]) for n in shown] == [("like", "cat")]
    assert "other" not in shown[0]["text"]


def test_keyset_pages_newest_first_without_repeats(world, login, settings, make_user):
    settings.NOTIFICATIONS_PAGE_SIZE = 4
    settings.NOTIFICATIONS_BUCKET_SIZE = 3
    ann, _ = world
    handles = [f"fan{i:02d}" for i in range(11)]
    for h in handles:
        make_user(h)
        notifications.notify(recipient="ann", kind="follow", actor=h)
    client = login(ann)
    seen, path = [], "/notifications/"
    while path:
        html = page(client, path)
        seen += [n["actor"] for n in listed(html)]
        match = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html)
        path = match.group(1).replace("&amp;", "&") if match else None
        assert len(seen) <= 11
    assert seen == list(reversed(handles))


def test_the_page_stays_within_three_round_trips_at_1000_notifications(
    world, login, round_trips, settings
):
    ann, people = world
    post = make_post(ann)
    theirs = make_post(people["bob"], "a public post")
    items = []
    start = now() - timedelta(days=1)
    kinds = ["follow", "comment", "repost", "mention", "wall", "like"]
    for i in range(1000):
        kind = kinds[i % len(kinds)]
        item = {
            "id": ObjectId(),
            "kind": kind,
            "actor": "bob",
            "actor_name": "Bob",
            "ts": start + timedelta(seconds=i),
        }
        if kind != "follow":
            item["post"] = theirs if kind == "mention" else post
        if kind == "like":
            item.update(actors=["bob", "cat"], actor_count=2)
        items.append(item)
    size = settings.NOTIFICATIONS_BUCKET_SIZE
    chunks = [items[i : i + size] for i in range(0, 1000, size)]
    NotificationBucket._get_collection().insert_many(
        [
            {
                "owner": "ann",
                "slot": "open" if n == len(chunks) - 1 else ObjectId(),
                "size": len(chunk),
                "min_ts": chunk[0]["ts"],
                "max_ts": chunk[-1]["ts"],
                "items": chunk,
            }
            for n, chunk in enumerate(chunks)
        ]
    )
    User._get_collection().update_one({"_id": "ann"}, {"$set": {"notifications_unread": 1000}})
    client = login(ann)
    page(client, "/feed/")  # warm the session
    with round_trips() as session:
        # A bad cursor is refused before any read: what is left is the session.
        assert client.get("/notifications/?before=bad").status_code == 404
    with round_trips() as first:
        html = page(client)
    assert len(listed(html)) == settings.NOTIFICATIONS_PAGE_SIZE
    next_path = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html).group(1)
    with round_trips() as again:
        page(client)
    with round_trips() as deeper:
        page(client, next_path.replace("&amp;", "&"))
    # Besides the session: the buckets, the posts and (with follows on the
    # page, for "Follow back") whom the viewer follows, at any depth; opening
    # the page with unread items also marks them read, with one write.
    assert again.total - session.total <= 3, again.commands
    assert deeper.total - session.total <= 3, deeper.commands
    assert first.total - session.total <= 3 + 1, first.commands
    assert first.commands[-1] in ("update_one", "update")  # demo database, wire
    assert unread("ann") == 0


def test_items_come_from_the_fragment_cache_and_follow_what_changed(world, login, monkeypatch):
    """Each item is cached on every field the page shows of it
    (docs/performance.md#the-fragment-cache): read or unread, "Follow back"
    or not are new fragments; an unchanged page renders none; the CSRF token
    and the page's path in a follow-back form are this page's own."""
    ann, _people = world
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    fragments.cache.clear()
    rendered: list[str] = []
    real = fragments.cache.set
    monkeypatch.setattr(
        fragments.cache,
        "set",
        # The items' fragments only: the site's bar is a fragment of its own.
        lambda k, h: (k.startswith("topbar:") or rendered.append(k), real(k, h)),
    )
    client = login(ann)

    first = page(client)
    assert len(rendered) == 2 and first.count("notification--unread") == 2
    again = page(client)  # read now: both items change
    assert len(rendered) == 4 and "notification--unread" not in again
    rendered.clear()
    third = page(client, "/notifications/?x=1")
    assert rendered == [] and "notification--unread" not in third
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', third).group(1)
    follow = next(n for n in listed(third) if n["kind"] == "follow")["body"]
    assert f'name="csrfmiddlewaretoken" value="{token}"' in follow
    assert 'name="next" value="/notifications/?x=1"' in follow
    assert "<!--slot" not in third
    # Ann follows cat back: that item changes, the like does not.
    graph.follow_create(follower=User.objects.get(handle="ann"), followee="cat")
    assert "Follow back" not in page(client)
    assert len(rendered) == 1
