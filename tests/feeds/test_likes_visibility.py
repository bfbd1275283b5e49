"""Who may like what (docs/privacy.md), in the visibility matrix's style: only
people who may see a post can like it (404 otherwise, as the post page), the
author's blocks apply, a removed post is frozen, a signed-out visitor is sent
to log in, and a former circle member loses the button at once."""

import pytest
from django.test import Client

from feeds.documents import ALL_CIRCLES, PUBLIC, Post, PostLike
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from tests.conftest import login_client, user
from timelines import tasks as feeds_tasks

SECRET = "secret plans"


@pytest.fixture
def world(make_user):
    """ada posts; fan follows ada; pal is in ada's circle SECRET; stranger has
    no relation; hater blocked ada; shunned was blocked by ada."""
    ada = make_user("ada")
    for handle in ("fan", "pal", "stranger", "hater", "shunned"):
        make_user(handle)
    graph.circle_create(owner=ada, name=SECRET)
    graph.follow_create(follower=user("ada"), followee="pal", circles=[SECRET])
    for handle in ("fan", "pal"):
        graph.follow_create(follower=user(handle), followee="ada")
    graph.block_create(blocker=user("hater"), blocked="ada")
    graph.block_create(blocker=user("ada"), blocked="shunned")

    def post(circles):
        return services.post_create(
            author=user("ada"), type="status", detail={"text": "hello"}, circles=circles
        )

    posts = {"public": post([PUBLIC]), "circles": post([ALL_CIRCLES]), "friends": post([SECRET])}
    handles = ("ada", "fan", "pal", "stranger", "hater", "shunned")
    clients = {h: login_client(user(h)) for h in handles}
    clients["anonymous"] = Client()
    return posts, clients


# viewer: {post: (status of POST /like/, whether it is counted)}
LIKE = {
    "ada": {"public": (302, True), "circles": (302, True), "friends": (302, True)},
    "fan": {"public": (302, True), "circles": (404, False), "friends": (404, False)},
    "pal": {"public": (302, True), "circles": (302, True), "friends": (302, True)},
    "stranger": {"public": (302, True), "circles": (404, False), "friends": (404, False)},
    # hater blocked ada: none of her posts, as on her wall.
    "hater": {"public": (404, False), "circles": (404, False), "friends": (404, False)},
    # ada blocked shunned: her public posts are open to anyone, but her
    # blocks apply, so shunned may not like them (refused with a message).
    "shunned": {"public": (302, False), "circles": (404, False), "friends": (404, False)},
    # Signed out: to the login page for what anyone may see, else 404.
    "anonymous": {"public": (302, False), "circles": (404, False), "friends": (404, False)},
}


def likers(post) -> set[str]:
    return {like.by for like in PostLike.objects(post=post.id)}


def likes_count(post) -> int:
    return Post._get_collection().find_one({"_id": post.id}).get("likes_count", 0)


@pytest.mark.parametrize("viewer", list(LIKE))
def test_only_those_who_may_see_a_post_like_it(world, viewer):
    posts, clients = world
    client = clients[viewer]
    for name, post in posts.items():
        status, counted = LIKE[viewer][name]
        response = client.post(f"/posts/{post.id}/like/", {"next": "/feed/"})
        assert response.status_code == status, (viewer, name)
        assert (viewer in likers(post)) is counted, (viewer, name)
        assert likes_count(post) == len(likers(post))
        if viewer == "anonymous" and status == 302:
            assert response["Location"].startswith("/accounts/login/?next=")
        # Unlike follows the same rule.
        assert client.post(f"/posts/{post.id}/unlike/").status_code == status, (viewer, name)
        assert viewer not in likers(post) and likes_count(post) == 0


def test_the_author_blocking_a_liker_refuses_their_next_like(world):
    posts, clients = world
    public = posts["public"]
    assert clients["fan"].post(f"/posts/{public.id}/like/").status_code == 302
    graph.block_create(blocker=user("ada"), blocked="fan")
    response = clients["fan"].post(f"/posts/{public.id}/unlike/")
    assert response.status_code == 302 and likes_count(public) == 0
    response = clients["fan"].post(
        f"/posts/{public.id}/like/", headers={"Accept": "application/json"}
    )
    assert response.status_code == 403
    assert response.json() == {"error": "You can't like @ada's posts."}
    assert likers(public) == set() and likes_count(public) == 0


@pytest.fixture
def slow_worker(world, monkeypatch):
    """Graph changes no longer resync timelines (a busy worker): sight must
    change at once anyway, since it is decided when the like is asked for."""

    class Queued:
        def enqueue(self, *args, **kwargs):
            return None

    monkeypatch.setattr(feeds_tasks, "resync", Queued())
    return world


@pytest.mark.parametrize(
    "change",
    [
        lambda: graph.follow_delete(follower="ada", followee="pal"),
        lambda: graph.circle_remove_member(owner=user("ada"), name=SECRET, member="pal"),
        lambda: graph.circle_delete(owner=user("ada"), name=SECRET),
    ],
    ids=["unfollowed", "taken_out_of_the_circle", "circle_deleted"],
)
def test_a_former_circle_member_can_no_longer_like_circle_posts(slow_worker, change):
    posts, clients = slow_worker
    pal = clients["pal"]
    change()
    assert pal.post(f"/posts/{posts['public'].id}/like/").status_code == 302
    for name in ("circles", "friends"):
        assert pal.post(f"/posts/{posts[name].id}/like/").status_code == 404, name
        assert likers(posts[name]) == set()
    feed = pal.get("/feed/").content.decode()
    for name in ("circles", "friends"):
        assert f"/posts/{posts[name].id}/like/" not in feed


def test_a_removed_post_is_404_to_all_but_moderators_who_cannot_like_it(world, make_user):
    posts, clients = world
    moderator = make_user("mod", role="moderator")
    clients["mod"] = login_client(moderator)
    public = posts["public"]
    assert clients["fan"].post(f"/posts/{public.id}/like/").status_code == 302
    moderation.post_remove(moderator=moderator, target=Target("post", str(public.id)))
    for viewer, client in clients.items():
        expected = 302 if viewer == "mod" else 404
        for action in ("like", "unlike"):
            assert client.post(f"/posts/{public.id}/{action}/").status_code == expected, viewer
    assert likers(public) == {"fan"} and likes_count(public) == 1
    page = clients["mod"].get(f"/posts/{public.id}/").content.decode()
    assert f"/posts/{public.id}/like/" not in page  # frozen: no button
    moderation.post_restore(moderator=moderator, target=Target("post", str(public.id)))
    assert clients["fan"].post(f"/posts/{public.id}/unlike/").status_code == 302
    assert likers(public) == set() and likes_count(public) == 0
