"""Writes never wait for fan-out (docs/performance.md#writes-never-wait-for-fan-out): a send,
a follow, a repost and a like cost at most 6 round trips inside their
request, whatever the audience, plus one insert per durable task they queue
(its mark, docs/operations.md#durable-background-work); delivery, backfill,
copy refreshes and notifications run as tasks. Here on the "thread" backend the demo uses, so
the request's own round trips are counted apart from the worker's (the
counter counts per thread), and each test then waits for the worker and
checks that the work was done."""

import pytest
from django.tasks import task_backends

from feeds.documents import PUBLIC, Post
from profiles.documents import FollowerEdge, FollowingEdge, User
from tests.conftest import sized
from tests.feeds.test_fanout import insert_active_users
from timelines.selectors import pages as selectors

THREAD = {"default": {"BACKEND": "socialsite.thread_backend.ThreadBackend"}}
BUDGET = 6


def marks(n: int) -> int:
    """The inserts of the marks of `n` durable tasks queued by the request."""
    return n


@pytest.fixture
def worker(settings):
    """The thread backend, whose `drain()` waits for its tasks; every test
    leaves it idle. Looked up at each call: a settings change makes a new one."""
    settings.TASKS = THREAD

    class Worker:
        @staticmethod
        def drain() -> bool:
            return task_backends["default"].wait_idle(60)

    yield Worker
    assert Worker.drain(), "the task worker did not finish"


def followers(star: str, n: int) -> list[str]:
    handles = [f"fan{i:04d}" for i in range(n)]
    insert_active_users(handles)
    FollowerEdge._get_collection().insert_many([{"_f": star, "_t": h} for h in handles])
    FollowingEdge._get_collection().insert_many(
        [{"_f": h, "_t": star, "_g": [], "state": "active"} for h in handles]
    )
    return handles


def in_request(round_trips, send):
    with round_trips() as counter:
        response = send()
    assert response.status_code in (200, 302), response.content[:300]
    return counter


def unread_count(handle: str) -> int:
    return User._get_collection().find_one({"_id": handle}).get("notifications_unread", 0)


def news_of(handle: str) -> list:
    return [p["_id"] for p in selectors.news_page(User.objects.get(handle=handle)).posts]


def test_a_send_to_a_thousand_followers(worker, make_user, login, round_trips):
    star, _ = make_user("star"), make_user("ann")
    fans = followers("star", 1000)
    client = login(star)
    counter = in_request(
        round_trips,
        lambda: client.post(
            "/posts/", {"type": "status", "text": "Hello @ann", "circles": PUBLIC, "next": "/"}
        ),
    )
    assert counter.total <= BUDGET + marks(1), counter.commands  # the mention
    assert worker.drain()
    post = Post.objects.get(**{"by__id": "star"})
    assert post.delivery.state == "done" and post.delivery.readers == 1001
    assert post.id in news_of(fans[-1])
    assert unread_count("ann") == 1  # the mention, told by a task


def test_a_follow_of_an_author_with_500_posts(worker, make_user, login, round_trips):
    from feeds.services import posts

    author, reader = make_user("author"), make_user("reader")
    # 500 on mongomock; through a driver fewer, still past the backfill's page.
    count = sized(500, 120)
    with_settings_inline(lambda: [_post(posts, author, i) for i in range(count)])
    client = login(reader)
    counter = in_request(round_trips, lambda: client.post("/u/author/follow/"))
    assert counter.total <= BUDGET + marks(2), counter.commands  # the backfill, the notification
    assert worker.drain()
    assert len(news_of("reader")) > 0  # the backfill ran in the task
    assert unread_count("author") == 1


def test_a_repost_and_a_like_by_someone_with_a_thousand_followers(
    worker, make_user, login, round_trips
):
    from feeds.services import posts

    author, star = make_user("author"), make_user("star")
    fans = followers("star", 1000)
    original = with_settings_inline(lambda: _post(posts, author, 0))
    client = login(star)
    like = in_request(round_trips, lambda: client.post(f"/posts/{original.id}/like/"))
    repost = in_request(round_trips, lambda: client.post(f"/posts/{original.id}/repost/"))
    assert like.total <= BUDGET + marks(1), like.commands  # the notification
    assert repost.total <= BUDGET + marks(1), repost.commands
    assert worker.drain()
    assert original.id in news_of(fans[0])
    assert unread_count("author") == 2  # told of the like and of the repost


def test_a_like_of_a_circle_post_checks_sight_inside_the_budget(
    worker, make_user, login, round_trips
):
    from feeds.services import posts
    from profiles import services as graph

    author = make_user("author", circles=["friends"])
    friend, stranger = make_user("friend"), make_user("stranger")
    graph.follow_create(follower=author, followee="friend", circles=["friends"])
    circle_post = with_settings_inline(
        lambda: posts.post_create(
            author=author, type="status", detail={"text": "friends only"}, circles=["friends"]
        )
    )
    client = login(friend)
    counter = in_request(round_trips, lambda: client.post(f"/posts/{circle_post.id}/like/"))
    assert counter.total <= BUDGET + marks(1), counter.commands  # the notification
    # Sight is still decided from the edge the session read along: a stranger gets a 404.
    assert login(stranger).post(f"/posts/{circle_post.id}/like/").status_code == 404
    assert Post.objects.get(id=circle_post.id).likes_count == 1


def _post(posts, author, i):
    return posts.post_create(
        author=author, type="status", detail={"text": f"post {i}"}, circles=[PUBLIC]
    )


def with_settings_inline(make):
    """Set-up runs its tasks at once, so a test measures only its own request."""
    from django.test.utils import override_settings

    with override_settings(
        TASKS={"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    ):
        return make()


def test_an_edge_being_taken_down_hides_a_circle_post_read_with_the_session(make_user, login):
    """The edge the session's read brings along is checked as the graph query
    checks it: an unfollow in progress (`removing`) already counts."""
    from feeds.services import posts
    from profiles import services as graph

    author = make_user("author", circles=["friends"])
    friend = make_user("friend")
    graph.follow_create(follower=author, followee="friend", circles=["friends"])
    circle_post = posts.post_create(
        author=author, type="status", detail={"text": "friends only"}, circles=["friends"]
    )
    client = login(friend)
    assert client.get(f"/posts/{circle_post.id}/").status_code == 200
    FollowingEdge._get_collection().update_one(
        {"_f": "author", "_t": "friend"}, {"$set": {"state": "removing"}}
    )
    assert client.get(f"/posts/{circle_post.id}/").status_code == 404
    assert client.post(f"/posts/{circle_post.id}/like/").status_code == 404
    assert Post.objects.get(id=circle_post.id).likes_count == 0
