"""The visibility matrix (DESIGN.md §4) across every read path: feed, wall,
incoming, post page and photo URL, for each kind of viewer."""

import io

import pytest
from django.test import Client
from PIL import Image

from feeds import photos, services
from feeds.documents import ALL_CIRCLES, PUBLIC
from profiles import services as graph
from profiles.documents import User
from tests.conftest import login_client


def _photo():
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 80, 80)).save(buffer, "PNG")
    from django.core.files.uploadedfile import SimpleUploadedFile

    return photos.process_upload(SimpleUploadedFile("p.png", buffer.getvalue(), "image/png"))


@pytest.fixture(params=["cache", "read"])
def world(request, settings, make_user):
    """ada posts; fan follows ada (not circled); pal is in ada's "friends"
    (and follows ada); colleague is only in "work"; stranger has no relation;
    hater blocked ada."""
    settings.FEED_MODEL = request.param
    ada = make_user("ada")
    users = {h: make_user(h) for h in ["fan", "pal", "colleague", "stranger", "hater"]}
    graph.circle_create(owner=ada, name="friends")
    graph.circle_create(owner=ada, name="work")
    graph.follow_create(follower=ada, followee="pal", circles=["friends"])
    graph.follow_create(follower=ada, followee="colleague", circles=["work"])
    for h in ["fan", "pal", "hater"]:
        graph.follow_create(follower=users[h], followee="ada")
    graph.block_create(blocker=User.objects.get(handle="hater"), blocked="ada")
    ada = User.objects.get(handle="ada")

    def post(circles, kind="status"):
        detail = {"text": f"{kind} to {circles[0]}"}
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
        "friends": post(["friends"]),
        "public-photo": post([PUBLIC], "photo"),
        "friends-photo": post(["friends"], "photo"),
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
