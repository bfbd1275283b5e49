"""The visibility matrix (docs/privacy.md) across every read path: feed, wall,
incoming, post page and photo URL, for each kind of viewer, under every
timeline model, with entries that link to posts or embed them. Through the
client API: timelines, lists, bookmarks and favourites in
tests/api/test_visibility.py; notifications and conversations in
tests/api/test_visibility_inbox.py; search, trends and reports in
tests/api/test_visibility_search.py."""

import io
import re

import pytest
from django.test import Client
from PIL import Image

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.services import photos
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from socialsite.cursors import EPOCH
from tests.conftest import login_client
from tests.feeds.conftest import MODEL_IDS, MODEL_VARIANTS
from timelines import tasks as feeds_tasks
from timelines.delivery import pulled as pulling


def _photo():
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 80, 80)).save(buffer, "PNG")
    from django.core.files.uploadedfile import SimpleUploadedFile

    return photos.process_upload(SimpleUploadedFile("p.png", buffer.getvalue(), "image/png"))


SECRET = "secret plans"  # the name of ada's circle that pal is in
WORK = "night shift"  # and the one colleague is in


@pytest.fixture(params=MODEL_VARIANTS, ids=MODEL_IDS)
def world(request, settings, make_user):
    """ada posts; fan follows ada (not circled); pal is in ada's circle
    "secret plans" (the "friends" posts go there; pal follows ada);
    colleague is only in WORK; stranger has no relation; hater blocked ada."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    return _world(make_user)


@pytest.fixture(params=MODEL_VARIANTS, ids=MODEL_IDS)
def pulled_world(request, settings, make_user):
    """The same world with ada pulled (docs/performance.md#celebrities-are-pulled):
    her public posts are in no follower's timeline, merged when read."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    return _world(make_user, pulled=True)


def _world(make_user, *, pulled: bool = False):
    ada = make_user("ada")
    if pulled:
        pulling.mark("ada", since=EPOCH)
    users = {h: make_user(h) for h in ["fan", "pal", "colleague", "stranger", "hater"]}
    graph.circle_create(owner=ada, name=SECRET)
    graph.circle_create(owner=ada, name=WORK)
    graph.follow_create(follower=ada, followee="pal", circles=[SECRET])
    graph.follow_create(follower=ada, followee="colleague", circles=[WORK])
    for h in ["fan", "pal", "hater"]:
        graph.follow_create(follower=users[h], followee="ada")
    graph.block_create(blocker=User.objects.get(handle="hater"), blocked="ada")
    ada = User.objects.get(handle="ada")

    def post(circles, kind="status"):
        detail = {"text": f"a {kind} from ada"}
        return services.post_create(
            author=ada,
            type=kind,
            detail=detail,
            circles=circles,
            photo=_photo() if kind == "photo" else None,
        )

    posts = {
        "public": post([PUBLIC]),
        "circles": post([ALL_CIRCLES]),
        "friends": post([SECRET]),
        "public-photo": post([PUBLIC], "photo"),
        "friends-photo": post([SECRET], "photo"),
    }
    clients = {h: login_client(User.objects.get(handle=h)) for h in [*users, "ada"]}
    clients["anonymous"] = Client()
    return posts, clients


SEES = {
    # viewer: posts they may see
    "ada": {"public", "circles", "friends", "public-photo", "friends-photo"},
    "fan": {"public", "public-photo"},
    "pal": {"public", "circles", "friends", "public-photo", "friends-photo"},
    "colleague": {"public", "circles", "public-photo"},
    "stranger": {"public", "public-photo"},
    "hater": set(),
    "anonymous": {"public", "public-photo"},
}
# Who gets which post in their news feed: followers get public posts, circle
# members get circle posts, blocks win.
NEWS = {
    "ada": set(SEES["ada"]),
    "fan": {"public", "public-photo"},
    "pal": {"public", "circles", "friends", "public-photo", "friends-photo"},
    "colleague": {"circles"},
    "stranger": set(),
    "hater": set(),
}


def shown(html: str, posts, names) -> set:
    return {name for name in names if f'data-post-id="{posts[name].id}"' in html}


@pytest.mark.parametrize("viewer", list(SEES))
def test_post_page_wall_and_photo(world, viewer):
    posts, clients = world
    client = clients[viewer]
    for name, post in posts.items():
        expected = 200 if name in SEES[viewer] else 404
        assert client.get(f"/posts/{post.id}/").status_code == expected, (viewer, name)
        if "photo" in name:
            for size in ("photo", "thumb"):
                response = client.get(f"/posts/{post.id}/{size}/")
                assert response.status_code == expected, (viewer, name, size)
                if expected == 200:
                    assert response["Content-Type"] == "image/png"
                    assert "private" in response["Cache-Control"]
                    assert response["ETag"]
    wall = client.get("/u/ada/").content.decode()
    assert shown(wall, posts, posts) == SEES[viewer], viewer


@pytest.mark.parametrize("viewer", list(NEWS))
def test_news_feed(world, viewer):
    posts, clients = world
    feed = clients[viewer].get("/feed/").content.decode()
    assert shown(feed, posts, posts) == NEWS[viewer], viewer


def test_news_feeds_when_the_author_is_pulled(pulled_world, make_user):
    """The merge applies the same rules: followers get public posts, circle
    members circle posts (still pushed), blocks win; a removed post leaves
    every feed, a member taken out of a circle loses its posts at once, and
    a signed-out visitor has no feed."""
    posts, clients = pulled_world
    for viewer, expected in NEWS.items():
        feed = clients[viewer].get("/feed/").content.decode()
        assert shown(feed, posts, posts) == expected, viewer
    moderator = make_user("mod", role="moderator")
    moderation.post_remove(moderator=moderator, target=Target("post", str(posts["public"].id)))
    graph.circle_remove_member(owner=User.objects.get(handle="ada"), name=SECRET, member="pal")
    for viewer, expected in NEWS.items():
        feed = clients[viewer].get("/feed/").content.decode()
        now_expected = expected - {"public"}
        if viewer == "pal":  # in no circle of ada's now
            now_expected -= {"friends", "friends-photo", "circles"}
        assert shown(feed, posts, posts) == now_expected, viewer
    response = clients["anonymous"].get("/feed/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_photo_etag_gives_not_modified(world):
    posts, clients = world
    url = f"/posts/{posts['public-photo'].id}/thumb/"
    etag = clients["fan"].get(url)["ETag"]
    assert clients["fan"].get(url, headers={"If-None-Match": etag}).status_code == 304


def test_wall_posts_incoming_and_blocks(settings, make_user):
    """A post on someone's wall: it is on their incoming page even from a
    stranger, on their wall only from people they follow, and a block hides it
    everywhere and stops new ones."""
    owner, stranger, friend = make_user("owner"), make_user("stranger"), make_user("friend")
    graph.follow_create(follower=owner, followee="friend")
    from_stranger = services.post_create(
        author=stranger, type="status", detail={"text": "hi"}, circles=[PUBLIC], to="owner"
    )
    from_friend = services.post_create(
        author=friend, type="status", detail={"text": "yo"}, circles=[PUBLIC], to="owner"
    )
    client = login_client(owner)
    incoming = client.get("/incoming/").content.decode()
    assert f'data-post-id="{from_stranger.id}"' in incoming
    assert f'data-post-id="{from_friend.id}"' in incoming
    wall = client.get("/u/owner/").content.decode()
    assert f'data-post-id="{from_friend.id}"' in wall
    assert f'data-post-id="{from_stranger.id}"' not in wall

    graph.block_create(blocker=User.objects.get(handle="owner"), blocked="stranger")
    assert f'data-post-id="{from_stranger.id}"' not in client.get("/incoming/").content.decode()
    assert client.get(f"/posts/{from_stranger.id}/").status_code == 404

    # Wall-to-blocked: the blocked user can't post on the blocker's wall.
    response = login_client(stranger).post(
        "/posts/", {"type": "status", "text": "let me in", "to": "owner"}
    )
    assert response.status_code == 400
    assert b"You can&#x27;t post on @owner&#x27;s wall." in response.content
    assert User.objects.get(handle="stranger").posts_count == 1


# --- read-time visibility: the graph changes, the timelines have not caught up


@pytest.fixture
def slow_worker(world, monkeypatch):
    """After the world is built, graph changes no longer resync timelines:
    their tasks stay queued, as behind a busy worker. Visibility must still
    change at once, because it is decided when a page is read."""

    class Queued:
        def enqueue(self, *args, **kwargs):
            return None

    monkeypatch.setattr(feeds_tasks, "resync", Queued())
    return world


def _unfollowed():
    graph.follow_delete(follower="ada", followee="pal")


def _taken_out_of_the_circle():
    graph.circle_remove_member(owner=User.objects.get(handle="ada"), name=SECRET, member="pal")


def _circle_deleted():
    graph.circle_delete(owner=User.objects.get(handle="ada"), name=SECRET)


def _blocked_by_the_author():
    graph.block_create(blocker=User.objects.get(handle="ada"), blocked="pal")


def _blocks_the_author():
    graph.block_create(blocker=User.objects.get(handle="pal"), blocked="ada")


CIRCLE_POSTS = {"circles", "friends", "friends-photo"}
PUBLIC_POSTS = {"public", "public-photo"}
# What pal, a former member of ada's circle, may still see after each change.
FORMER_MEMBER = {
    _unfollowed: PUBLIC_POSTS,
    _taken_out_of_the_circle: PUBLIC_POSTS,
    _circle_deleted: PUBLIC_POSTS,
    # ada's public posts stay public (anyone signed out sees them too), but
    # none of her circle posts.
    _blocked_by_the_author: PUBLIC_POSTS,
    _blocks_the_author: set(),
}


@pytest.mark.parametrize("change", list(FORMER_MEMBER), ids=lambda f: f.__name__.strip("_"))
def test_a_former_circle_member_loses_sight_at_once(slow_worker, change):
    posts, clients = slow_worker
    pal = clients["pal"]
    assert shown(pal.get("/feed/").content.decode(), posts, posts) == NEWS["pal"]

    change()

    sees = FORMER_MEMBER[change]
    news = shown(pal.get("/feed/").content.decode(), posts, posts)
    assert news & CIRCLE_POSTS == set()
    assert news <= sees
    wall = shown(pal.get("/u/ada/").content.decode(), posts, posts)
    assert wall == sees
    for name, post in posts.items():
        expected = 200 if name in sees else 404
        assert pal.get(f"/posts/{post.id}/").status_code == expected, name
        if "photo" in name:
            assert pal.get(f"/posts/{post.id}/thumb/").status_code == expected, name
            assert pal.get(f"/posts/{post.id}/photo/").status_code == expected, name


# --- circle names are private to their owner

BADGE = re.compile(r'data-post-id="([0-9a-f]{24})".*?class="vis[^"]*"[^>]*>([^<]*)<', re.S)


def badges(html: str) -> dict:
    """Post id -> the text of its audience badge."""
    return {post_id: text.strip() for post_id, text in BADGE.findall(html)}


@pytest.mark.parametrize("viewer", ["pal", "colleague"])
def test_recipients_see_a_neutral_badge_and_no_circle_names(world, viewer):
    posts, clients = world
    client = clients[viewer]
    circle_posts = {str(posts[n].id) for n in CIRCLE_POSTS if n in SEES[viewer]}
    pages = [client.get("/feed/"), client.get("/u/ada/")]
    pages += [client.get(f"/posts/{posts[n].id}/") for n in CIRCLE_POSTS if n in SEES[viewer]]
    seen = {}
    for response in pages:
        html = response.content.decode()
        assert SECRET not in html and WORK not in html
        seen |= badges(html)
    assert {seen[i] for i in circle_posts} == {"Circles"}
    assert seen[str(posts["public"].id)] == "Public"


def test_the_author_sees_the_names_of_her_circles(world):
    posts, clients = world
    ada = clients["ada"]
    for page in ("/feed/", "/u/ada/", f"/posts/{posts['friends'].id}/"):
        seen = badges(ada.get(page).content.decode())
        assert seen[str(posts["friends"].id)] == SECRET, page
    seen = badges(ada.get("/u/ada/").content.decode())
    assert seen[str(posts["circles"].id)] == "All circles"


# --- removed by a moderator: gone for everyone but moderators


def test_a_removed_post_and_its_photo_are_404_to_all_but_moderators(world, make_user):
    posts, clients = world
    moderator = make_user("mod", role="moderator")
    clients["mod"] = login_client(moderator)
    removed = ["public-photo", "friends-photo", "public"]
    for name in removed:
        moderation.post_remove(moderator=moderator, target=Target("post", str(posts[name].id)))

    for viewer, client in clients.items():
        for name in removed:
            post_id = posts[name].id
            urls = [f"/posts/{post_id}/"]
            if "photo" in name:
                urls += [f"/posts/{post_id}/photo/", f"/posts/{post_id}/thumb/"]
            for url in urls:
                expected = 200 if viewer == "mod" else 404
                assert client.get(url).status_code == expected, (viewer, url)
        if viewer not in ("mod", "anonymous"):
            feed = client.get("/feed/").content.decode()
            assert shown(feed, posts, removed) == set(), viewer
        wall = client.get("/u/ada/").content.decode()
        assert shown(wall, posts, removed) == set(), viewer

    page = clients["mod"].get(f"/posts/{posts['public'].id}/").content.decode()
    assert "[removed by a moderator]" in page and "a status from ada" not in page

    for name in removed:
        moderation.post_restore(moderator=moderator, target=Target("post", str(posts[name].id)))
    assert clients["fan"].get(f"/posts/{posts['public-photo'].id}/thumb/").status_code == 200
    assert clients["pal"].get(f"/posts/{posts['friends-photo'].id}/photo/").status_code == 200
    feed = clients["pal"].get("/feed/").content.decode()
    assert shown(feed, posts, removed) == set(removed)


# --- The client API's statuses (docs/api.md#statuses) ----------------------


@pytest.fixture
def api_world(settings, make_user):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", False
    return _world(make_user)


def test_the_api_sees_what_the_post_page_and_wall_see(api_world):
    """Each viewer's token reads each post (and acts on it) as the post
    page answers it, and ada's statuses as her wall shows them: what the
    page hides is a 404, exactly as an unknown id."""
    from tests.api.conftest import logged_in, raw

    posts, clients = api_world
    for viewer in ("ada", "fan", "pal", "colleague", "stranger", "hater"):
        api = logged_in(clients[viewer])
        for name, post in posts.items():
            expected = 200 if name in SEES[viewer] else 404
            for method, path in (("GET", ""), ("GET", "/context"), ("POST", "/bookmark")):
                answer = raw(api, method, f"/api/v1/statuses/{post.id}{path}")
                assert answer.status_code == expected, (viewer, name, path)
        wall = raw(api, "GET", "/api/v1/accounts/ada/statuses").json()
        ids = {status["id"] for status in wall}
        assert ids == {str(posts[name].id) for name in SEES[viewer]}, viewer
