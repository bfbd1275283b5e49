"""Pinned posts (docs/discovery.md#pins): up to three of one's own public
posts first on the wall's first page, `data-pinned="true"`, each once on
that page, decided again when the wall is read."""

import re

import pytest
from bson import ObjectId
from django.test import Client

from feeds.documents import PUBLIC, Post
from feeds.services import likes, posts
from feeds.services import pins as feed_pins
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import User
from profiles.selectors import export
from profiles.services import pins
from tests.conftest import user

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"[^>]*>')


def post(handle: str, text: str, circles=(PUBLIC,)):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=list(circles)
    )


def pinned_of(handle: str) -> list[ObjectId]:
    return list(User._get_collection().find_one({"_id": handle}).get("pinned") or [])


def articles(html: str) -> list[tuple[str, bool]]:
    """(post id, shown as a pin) of each card, in page order."""
    return [
        (match.group(1), 'data-pinned="true"' in match.group(0))
        for match in ARTICLE.finditer(html)
    ]


def followed(client, response) -> str:
    """The page a redirect goes back to, with the request's messages."""
    assert response.status_code == 302, response.status_code
    return client.get(response["Location"]).content.decode()


@pytest.fixture
def ada(make_user, login):
    make_user("ada", name="Ada")
    return login(user("ada"))


# --- pinning and unpinning


def test_the_author_pins_and_unpins_from_the_post_page(ada):
    mine = post("ada", "pin me")
    page = ada.get(f"/posts/{mine.id}/").content.decode()
    assert f'action="/posts/{mine.id}/pin/"' in page and "Pin to your wall" in page

    response = ada.post(f"/posts/{mine.id}/pin/", {"next": f"/posts/{mine.id}/"})
    assert response["Location"] == f"/posts/{mine.id}/"
    assert "Pinned to your wall." in followed(ada, response)
    assert pinned_of("ada") == [mine.id]
    page = ada.get(f"/posts/{mine.id}/").content.decode()
    assert f'action="/posts/{mine.id}/unpin/"' in page and "Unpin from your wall" in page

    # Twice: nothing changes, and the author is told.
    assert "pinned already" in followed(ada, ada.post(f"/posts/{mine.id}/pin/"))
    assert pinned_of("ada") == [mine.id]

    assert "Unpinned from your wall." in followed(ada, ada.post(f"/posts/{mine.id}/unpin/"))
    assert pinned_of("ada") == []
    assert "was not pinned" in followed(ada, ada.post(f"/posts/{mine.id}/unpin/"))
    assert pinned_of("ada") == []


def test_at_most_three_pins_newest_first_and_a_fourth_changes_nothing(ada):
    made = [post("ada", f"post {n}") for n in range(4)]
    for p in made[:3]:
        ada.post(f"/posts/{p.id}/pin/")
    assert pinned_of("ada") == [made[2].id, made[1].id, made[0].id]

    page = followed(ada, ada.post(f"/posts/{made[3].id}/pin/"))
    assert "You can pin at most 3 posts. Unpin one first." in page
    assert pinned_of("ada") == [made[2].id, made[1].id, made[0].id]

    # The limit is in the update itself, whatever the caller read before.
    with pytest.raises(pins.PinsFull):
        pins.pin_add(handle="ada", post_id=made[3].id)
    assert pins.pin_add(handle="ada", post_id=made[0].id) is False  # pinned already
    assert pinned_of("ada") == [made[2].id, made[1].id, made[0].id]


def test_only_ones_own_public_posts_can_be_pinned(ada, make_user, login):
    make_user("bob")
    graph.circle_create(owner=user("ada"), name="close")
    graph.follow_create(follower=user("ada"), followee="bob", circles=["close"])
    public = post("ada", "for everyone")
    circle = post("ada", "for close friends", circles=["close"])
    bob = login(user("bob"))

    # Someone else's post, visible or not, is a 404, as an edit is.
    assert bob.post(f"/posts/{public.id}/pin/").status_code == 404
    assert bob.post(f"/posts/{circle.id}/pin/").status_code == 404
    assert bob.post(f"/posts/{public.id}/unpin/").status_code == 404
    assert pinned_of("bob") == []
    # Unknown and malformed ids.
    for bad in ("0123456789abcdef01234567", "nope"):
        assert ada.post(f"/posts/{bad}/pin/").status_code == 404
        assert ada.post(f"/posts/{bad}/unpin/").status_code == 404

    # One's own circle post: refused with the reason, nothing changes.
    page = followed(ada, ada.post(f"/posts/{circle.id}/pin/"))
    assert "Only your public posts can be pinned" in page
    assert pinned_of("ada") == []
    assert "Pin to your wall" not in ada.get(f"/posts/{circle.id}/").content.decode()
    # Nobody else is offered the button.
    assert "Pin to your wall" not in bob.get(f"/posts/{public.id}/").content.decode()

    # Signed out: the login page; a GET: the post's page, nothing pinned.
    assert Client().post(f"/posts/{public.id}/pin/")["Location"].startswith("/accounts/login/")
    assert ada.get(f"/posts/{public.id}/pin/")["Location"] == f"/posts/{public.id}/"
    assert pinned_of("ada") == []


def test_pins_and_unpins_are_rate_limited(ada, settings):
    settings.RATELIMIT_PIN = "1/300"
    first, second = post("ada", "one"), post("ada", "two")
    ada.post(f"/posts/{first.id}/pin/")
    page = followed(ada, ada.post(f"/posts/{second.id}/pin/"))
    assert pinned_of("ada") == [first.id]
    assert "Too many attempts." in page
    # Unpinning counts too, and is refused the same way.
    assert "Too many attempts." in followed(ada, ada.post(f"/posts/{first.id}/unpin/"))
    assert pinned_of("ada") == [first.id]


# --- the wall


@pytest.mark.parametrize("model", ["cache", "month", "size", "read"])
def test_the_first_page_shows_the_pins_first_each_once(model, ada, settings):
    settings.FEED_MODEL = model
    settings.FEED_PAGE_SIZE = 3
    made = [post("ada", f"post {n}") for n in range(6)]
    for p in (made[1], made[4]):
        ada.post(f"/posts/{p.id}/pin/")

    html = ada.get("/u/ada/").content.decode()
    ids = [str(p.id) for p in made]
    assert articles(html) == [
        (ids[4], True),
        (ids[1], True),
        (ids[5], False),
        (ids[3], False),
        (ids[2], False),
    ]
    assert html.count("</svg> Pinned") == 2
    # The owner's cards offer to unpin the pins and pin the others.
    assert html.count("Unpin from your wall") == 2 and html.count("Pin to your wall") == 3

    # The next page goes on in order, pinned posts in their own place.
    older = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert articles(ada.get(older).content.decode()) == [(ids[1], False), (ids[0], False)]


def test_an_anonymous_visitor_sees_the_pins_of_a_public_wall(ada):
    made = [post("ada", f"post {n}") for n in range(3)]
    ada.post(f"/posts/{made[0].id}/pin/")
    html = Client().get("/u/ada/").content.decode()
    assert articles(html)[0] == (str(made[0].id), True)
    assert len(articles(html)) == 3
    assert "Pin to your wall" not in html and "Unpin" not in html


@pytest.mark.parametrize("model", ["cache", "read"])
def test_a_pin_deleted_removed_or_made_private_stops_showing(model, ada, make_user, settings):
    settings.FEED_MODEL = model
    make_user("mod", role="moderator")
    deleted, removed, private, kept = (post("ada", name) for name in ("d", "r", "p", "k"))
    for p in (deleted, removed, private):
        ada.post(f"/posts/{p.id}/pin/")

    posts.post_delete(post_id=deleted.id, actor=user("ada"))
    moderation.post_remove(moderator=user("mod"), target=resolve_target(f"post:{removed.id}"))
    # No form makes a public post private; a stored change must not make a
    # circle post stand at the top of a public wall.
    Post._get_collection().update_one({"_id": private.id}, {"$set": {"circles": ["*circles*"]}})

    for client in (ada, Client()):
        shown = articles(client.get("/u/ada/").content.decode())
        assert not any(pinned for _, pinned in shown)
        assert str(deleted.id) not in dict(shown) and str(removed.id) not in dict(shown)
    # The author still sees her own circle post, in its place.
    assert str(private.id) in dict(articles(ada.get("/u/ada/").content.decode()))
    # The delete took it out of her pins; the other two still hold places.
    assert pinned_of("ada") == [private.id, removed.id]

    # Pinning again drops the pins that can no longer show, so they do not
    # hold places forever.
    ada.post(f"/posts/{kept.id}/pin/")
    newer = [post("ada", f"new {n}") for n in range(2)]
    for p in newer:
        ada.post(f"/posts/{p.id}/pin/")
    assert pinned_of("ada") == [newer[1].id, newer[0].id, kept.id]


def test_blocks_keep_the_pins_from_the_other_side(ada, make_user, login):
    make_user("bob"), make_user("cyd")
    pinned, other = post("ada", "pinned"), post("ada", "other")
    ada.post(f"/posts/{pinned.id}/pin/")

    # bob blocked ada: her wall is hidden from him, pins and all.
    graph.block_create(blocker=user("bob"), blocked="ada")
    assert articles(login(user("bob")).get("/u/ada/").content.decode()) == []

    # ada blocked cyd: her public posts stay open to cyd, as to anyone signed
    # out (docs/privacy.md#blocks), but she holds no pin up to cyd: the post
    # is in its own place in the list.
    graph.block_create(blocker=user("ada"), blocked="cyd")
    shown = articles(login(user("cyd")).get("/u/ada/").content.decode())
    assert shown == [(str(other.id), False), (str(pinned.id), False)]


def test_the_export_lists_the_pins(ada):
    mine = post("ada", "keep")
    ada.post(f"/posts/{mine.id}/pin/")
    [profile] = export.profile_export("ada")
    assert profile["pinned"] == [str(mine.id)]


def test_the_service_refuses_what_the_view_would_not_show(make_user):
    make_user("ada"), make_user("bob")
    theirs = Post._get_collection().find_one({"_id": post("bob", "bob's").id})
    with pytest.raises(feed_pins.NotYours):
        feed_pins.post_pin(user=user("ada"), post=theirs)
    circle = {**theirs, "by": {"id": "ada", "name": "Ada"}, "circles": ["*circles*"]}
    with pytest.raises(feed_pins.PinError):
        feed_pins.post_pin(user=user("ada"), post=circle)
    assert pinned_of("ada") == []


# --- round trips


@pytest.fixture
def store_model() -> str:
    """The timeline model the wall is written and read under."""
    return "cache"


@pytest.fixture
def wall_budget(store_model, settings, make_user, login):
    """ada's wall with a full page of posts, a liked post and a poll both of
    them voted on."""
    settings.FEED_MODEL, settings.FEED_EMBED = store_model, False
    settings.FEED_PAGE_SIZE = 10
    settings.LAST_SEEN_RESOLUTION = 24 * 3600  # no `last_seen` write mid-count
    make_user("ada"), make_user("bob")
    made = [post("ada", f"post {n}") for n in range(14)]
    poll = posts.post_create(
        author=user("ada"),
        type="poll",
        detail={"question": "tea?", "options": ["yes", "no"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    for voter in ("ada", "bob"):
        posts.poll_vote(post_id=poll.id, voter=user(voter), option=0)
        likes.like_create(post_id=made[0].id, user=user(voter))
    return made, poll


def _count(client, path: str, round_trips) -> tuple[int, str]:
    with round_trips() as counter:
        response = client.get(path)
    assert response.status_code == 200
    return counter.total, response.content.decode()


def test_a_wall_with_pins_stays_within_its_round_trips(wall_budget, login, round_trips):
    made, poll = wall_budget
    ada, bob, visitor = login(user("ada")), login(user("bob")), Client()
    before = {
        name: _count(client, "/u/ada/", round_trips)[0]
        for name, client in (("ada", ada), ("bob", bob), ("visitor", visitor))
    }
    for p in (made[0].id, made[5].id, poll.id):
        feed_pins.post_pin(user=user("ada"), post=Post._get_collection().find_one({"_id": p}))

    for name, client in (("ada", ada), ("bob", bob), ("visitor", visitor)):
        total, html = _count(client, "/u/ada/", round_trips)
        shown = articles(html)
        assert [pinned for _, pinned in shown[:3]] == [True, True, True]
        assert len(shown) == 13 and not any(pinned for _, pinned in shown[3:])
        # The same read as without pins: the session, then the timeline's
        # one aggregate with the pins looked up in it.
        assert total == before[name] <= 2, (name, total, before[name])
        if name != "visitor":
            # The reader's like and vote came with the page's lookups.
            assert 'aria-pressed="true"' in html, name
    assert before["ada"] == 2 and before["bob"] == 2


@pytest.mark.parametrize("store_model", ["month", "size", "read"])
def test_a_store_without_lookups_reads_the_pins_in_one_query(wall_budget, login, round_trips):
    made, _ = wall_budget
    bob = login(user("bob"))
    without, _ = _count(bob, "/u/ada/", round_trips)
    for p in (made[3].id, made[4].id):
        feed_pins.post_pin(user=user("ada"), post=Post._get_collection().find_one({"_id": p}))
    with_pins, html = _count(bob, "/u/ada/", round_trips)
    assert [pinned for _, pinned in articles(html)[:3]] == [True, True, False]
    assert with_pins == without + 1
