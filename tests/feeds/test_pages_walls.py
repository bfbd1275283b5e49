"""Walls and the composer as a person uses them (issue 9, "Pages a person
can use"): where a wall post went, blocked profiles, composer errors kept on
the page they happened on, and the demo's poll counts under FEED_EMBED."""

import html
import re

import pytest

from feeds import demo
from feeds.documents import PUBLIC, Post
from feeds.selectors import pages as post_pages
from feeds.services import posts as services
from profiles import services as graph
from socialsite.clock import aware, now
from tests.conftest import user
from timelines import demo as timelines_demo
from timelines.selectors import pages as selectors

MODELS = ["cache", "month", "size", "read"]


@pytest.fixture
def ada(make_user):
    return make_user("ada", name="Ada")


@pytest.fixture
def bob(make_user):
    return make_user("bob", name="Bob")


@pytest.fixture
def client(ada, login):
    return login(ada)


def post_ids(response) -> list:
    return [p["_id"] for p in response.context["page"].posts]


def text_of(response) -> str:
    return html.unescape(response.content.decode())


# --- a post on the wall of someone who doesn't follow you -------------------------


@pytest.mark.parametrize("model", MODELS)
def test_a_wall_post_to_a_stranger_says_where_it_went_and_stays_on_the_authors_wall(
    settings, client, bob, login, model
):
    settings.FEED_MODEL = model
    response = client.post(
        "/posts/", {"type": "status", "text": "Hi Bob", "to": "bob", "next": "/u/bob/"}
    )
    assert response.status_code == 302 and response["Location"] == "/u/bob/"
    [post] = Post.objects
    page = text_of(client.get("/u/bob/"))
    assert "Posted to @bob. They don't follow you, so it is on their incoming page" in page
    assert "It is on your own wall too." in page

    # Seed 000's wall filter: Bob's wall lists only people Bob follows...
    assert post.id not in post_ids(client.get("/u/bob/"))
    bob_client = login(bob)
    assert post.id not in post_ids(bob_client.get("/u/bob/"))
    # ...his incoming page lists it, and so do the author's wall and feed.
    assert post.id in post_ids(bob_client.get("/incoming/"))
    own_wall = client.get("/u/ada/")
    assert post.id in post_ids(own_wall)
    assert (
        '<span class="post__to">▸ <a href="/u/bob/">@bob</a></span>' in own_wall.content.decode()
    )
    assert post.id in post_ids(client.get("/feed/"))


@pytest.mark.parametrize("model", MODELS)
def test_a_wall_post_to_a_follower_is_on_their_wall_and_just_posted(
    settings, client, ada, bob, login, model
):
    settings.FEED_MODEL = model
    graph.follow_create(follower=user("bob"), followee="ada")
    response = client.post(
        "/posts/",
        {"type": "status", "text": "Hi Bob", "to": "bob", "next": "/u/bob/"},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == ["Posted."]
    [post] = Post.objects
    assert post.id in post_ids(response)  # back on Bob's wall, and there it is
    assert post.id in post_ids(login(bob).get("/u/bob/"))
    assert post.id in post_ids(client.get("/u/ada/"))


def test_wall_shows_is_the_wall_rule(ada, bob):
    assert post_pages.wall_shows("bob", "bob")
    assert not post_pages.wall_shows("bob", "ada")
    graph.follow_create(follower=user("bob"), followee="ada")
    assert post_pages.wall_shows("bob", "ada")
    assert not post_pages.wall_shows("ada", "bob")


# --- blocked profiles ----------------------------------------------------------------


def test_a_profile_the_viewer_blocked_shows_no_wall_composer_or_posts_count(client, ada, bob):
    services.post_create(author=bob, type="status", detail={"text": "bob's"}, circles=[PUBLIC])
    graph.block_create(blocker=user("ada"), blocked="bob")
    response = client.get("/u/bob/")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'class="card composer"' not in page and "feeds:create" not in page
    assert 'data-count="posts"' not in page and "1 post" not in page
    assert "No posts yet" not in page and "bob&#x27;s" not in page
    assert "You blocked @bob, so their wall is hidden from you." in page
    assert "Unblock" in page


def test_a_profile_whose_owner_blocked_the_viewer_shows_no_composer_or_count(client, bob):
    services.post_create(author=bob, type="status", detail={"text": "bob's"}, circles=[PUBLIC])
    graph.block_create(blocker=user("bob"), blocked="ada")
    page = client.get("/u/bob/").content.decode()
    assert 'class="card composer"' not in page
    assert 'data-count="posts"' not in page


def test_an_unblocked_profile_still_has_both(client, bob):
    services.post_create(author=bob, type="status", detail={"text": "bob's"}, circles=[PUBLIC])
    page = client.get("/u/bob/").content.decode()
    assert 'class="card composer"' in page
    assert '<strong data-count="posts">1</strong> post</li>' in page


def test_the_owner_sees_their_own_composer_and_count(client, ada):
    services.post_create(author=ada, type="status", detail={"text": "mine"}, circles=[PUBLIC])
    page = client.get("/u/ada/").content.decode()
    assert 'class="card composer"' in page and 'data-count="posts">1<' in page


def test_a_bad_cursor_on_a_blocked_profile_is_still_404(client, bob):
    graph.block_create(blocker=user("ada"), blocked="bob")
    assert client.get("/u/bob/", {"before": "²_5f0c5e5e5e5e5e5e5e5e5e5e"}).status_code == 404


# --- a composer error stays on its page ----------------------------------------------


def composer_next(page: str) -> str:
    form = re.search(r'<form class="card composer".*?</form>', page, re.S).group(0)
    return re.search(r'name="next" value="([^"]*)"', form).group(1)


def test_a_composer_error_on_the_feed_rerenders_the_feed(client, ada):
    services.post_create(author=ada, type="status", detail={"text": "older"}, circles=[PUBLIC])
    response = client.post(
        "/posts/",
        {"type": "link", "url": "javascript:alert(1)", "text": "my words", "next": "/feed/"},
    )
    assert response.status_code == 400
    assert response.templates[0].name == "timelines/feed.html"
    page = response.content.decode()
    assert "errorlist" in page and "Only http:// and https:// links" in page
    assert ">my words</textarea>" in page
    assert 'value="link" checked' in page
    assert "older" in page  # the rest of the feed is there too
    assert composer_next(page) == "/feed/"  # the next try goes back there again
    assert 'href="/feed/" aria-current="page"' in page
    assert Post.objects.count() == 1


def test_a_composer_error_on_a_wall_rerenders_that_wall(client, bob):
    services.post_create(
        author=bob, type="status", detail={"text": "bob was here"}, circles=[PUBLIC]
    )
    graph.follow_create(follower=user("bob"), followee="ada")
    response = client.post(
        "/posts/", {"type": "status", "text": "", "to": "bob", "next": "/u/bob/"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert response.templates[0].name == "profiles/profile.html"
    assert "Write something to post." in page
    assert "Writing on @bob's wall" in page and 'name="to" value="bob"' in page
    assert "bob was here" in page
    assert composer_next(page) == "/u/bob/"


def test_a_service_refusal_is_shown_on_the_wall_it_came_from(client, bob):
    graph.block_create(blocker=user("bob"), blocked="ada")
    response = client.post(
        "/posts/", {"type": "status", "text": "hello?", "to": "bob", "next": "/u/bob/"}
    )
    assert response.status_code == 400
    page = text_of(response)
    assert "You can't post on @bob's wall." in page and ">hello?</textarea>" in page


def test_a_rate_limited_post_rerenders_its_page_with_429(client, settings):
    settings.RATELIMIT_POST = "1/300"
    assert client.post("/posts/", {"text": "one", "next": "/feed/"}).status_code == 302
    response = client.post("/posts/", {"text": "two", "next": "/feed/"})
    assert response.status_code == 429
    assert response.templates[0].name == "timelines/feed.html"
    assert ">two</textarea>" in response.content.decode()


@pytest.mark.parametrize(
    "origin",
    [
        "",
        "https://evil.example/feed/",
        "//evil.example/feed/",
        "/posts/",
        "/incoming/",
        "/u/nobody/",
    ],
)
def test_a_composer_error_from_elsewhere_gets_the_compose_page(client, origin):
    response = client.post("/posts/", {"type": "status", "text": "", "next": origin})
    assert response.status_code == 400
    assert response.templates[0].name == "feeds/compose.html"
    assert "Write something to post." in response.content.decode()


# --- the demo under FEED_EMBED ---------------------------------------------------------


@pytest.mark.parametrize("model", ["cache", "size"])
def test_demo_poll_counts_are_right_in_embedded_copies(settings, make_user, model):
    settings.FEED_MODEL, settings.FEED_EMBED = model, True
    handles = [f"demo{i:02d}" for i in range(16)]
    for handle in handles:
        make_user(handle)
    for handle in handles[1:]:
        graph.follow_create(follower=user(handle), followee=handles[0])
    demo.seed_more(handles=handles, seed=3, posts_per_user=4)
    timelines_demo.deliver_pending()
    polls = {p["_id"]: p["detail"] for p in Post._get_collection().find({"type": "poll"})}
    assert polls and all(sum(detail["votes"]) > 0 for detail in polls.values())
    # The demo shows polls that have ended and polls still open (docs/features.md#polls).
    ended = {aware(detail["expires"]) <= now() for detail in polls.values()}
    assert ended == {True, False}
    checked = 0
    for handle in handles:
        for post in selectors.news_page(user(handle)).posts:
            if post["_id"] in polls:  # the copy's votes and end, as the post's
                assert post["detail"] == polls[post["_id"]]
                checked += 1
    assert checked
