"""Bookmarks (docs/discovery.md#bookmarks): private, one per post, newest
first with keyset paging, visibility decided when the list is read."""

import re

from django.test import Client

from feeds.documents import Bookmark
from feeds.services import bookmarks, posts
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from tests.conftest import user

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"')


def post(handle, text, circles=()):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=list(circles)
    )


def test_bookmarks_are_kept_once_listed_newest_first_and_only_for_their_owner(
    make_user, login, settings
):
    settings.FEED_PAGE_SIZE = 2
    make_user("ada"), make_user("bob")
    made = [post("ada", f"post {n}") for n in range(5)]
    bob = login(user("bob"))
    page = bob.get(f"/posts/{made[0].id}/").content.decode()
    assert 'data-bookmarked="false"' in page
    for p in made:
        assert bob.post(f"/posts/{p.id}/bookmark/").status_code == 302
    bob.post(f"/posts/{made[0].id}/bookmark/")  # again: still one
    assert Bookmark.objects(owner="bob").count() == 5
    assert 'data-bookmarked="true"' in bob.get(f"/posts/{made[0].id}/").content.decode()
    seen, url = [], "/bookmarks/"
    while url:
        html = bob.get(url).content.decode()
        seen += ARTICLE.findall(html)
        found = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html)
        url = found.group(1).replace("&amp;", "&") if found else None
    assert seen == [str(p.id) for p in reversed(made)]
    assert ARTICLE.findall(login(user("ada")).get("/bookmarks/").content.decode()) == []
    assert Client().get("/bookmarks/").status_code == 302
    assert bob.post(f"/posts/{made[1].id}/unbookmark/").status_code == 302
    assert str(made[1].id) not in bob.get("/bookmarks/?").content.decode()
    # The cards of a feed and a wall carry the button, in its state: the
    # timeline's read looked it up (docs/performance.md#one-read-for-a-page).
    graph.follow_create(follower=user("bob"), followee="ada")
    bob.post(f"/posts/{made[4].id}/unbookmark/")
    for path in ("/feed/", "/u/ada/"):
        states = dict(
            re.findall(
                r'action="/posts/([0-9a-f]{24})/(?:un)?bookmark/".*?data-bookmarked="(\w+)"',
                bob.get(path).content.decode(),
                re.S,
            )
        )
        assert states[str(made[4].id)] == "false" and states[str(made[3].id)] == "true", path
    assert "/bookmark/" not in Client().get("/u/ada/").content.decode()  # visitors: none
    # A store that takes no lookups (fan-out on read): one read, asked only
    # by someone with bookmarks (the count on their document says so).
    settings.FEED_MODEL = "read"
    html = bob.get("/feed/").content.decode()
    assert f'action="/posts/{made[3].id}/unbookmark/"' in html
    assert user("bob").bookmarks_count == 3 and user("ada").bookmarks_count == 0


def test_a_bookmark_shows_only_what_its_owner_may_still_see(make_user, login):
    for handle in ("ada", "bob", "cyd", "mod"):
        make_user(handle, role="moderator" if handle == "mod" else "user")
    graph.circle_create(owner=user("ada"), name="close")
    graph.follow_create(follower=user("ada"), followee="bob", circles=["close"])
    circle = post("ada", "for close friends", circles=["close"])
    removed = post("cyd", "to be removed")
    deleted = post("cyd", "to be deleted")
    blocker = post("cyd", "cyd's words")
    kept = post("ada", "public")
    for p in (circle, removed, deleted, blocker, kept):
        bookmarks.bookmark_create(owner="bob", post_id=p.id)
    bob = login(user("bob"))
    assert len(ARTICLE.findall(bob.get("/bookmarks/").content.decode())) == 5
    graph.circles_set_for(owner=user("ada"), member="bob", circles=[])  # bob leaves the circle
    moderation.post_remove(moderator=user("mod"), target=resolve_target(f"post:{removed.id}"))
    posts.post_delete(post_id=deleted.id, actor=user("cyd"))
    graph.block_create(blocker=user("cyd"), blocked="bob")
    assert ARTICLE.findall(bob.get("/bookmarks/").content.decode()) == [str(kept.id)]
    assert Bookmark.objects(post=deleted.id).count() == 0  # gone with the post
    # A post one cannot see cannot be bookmarked: 404, as its page.
    assert bob.post(f"/posts/{circle.id}/bookmark/").status_code == 404
    assert bob.post("/posts/0123456789abcdef01234567/bookmark/").status_code == 404
    assert bob.post("/posts/nope/unbookmark/").status_code == 404
