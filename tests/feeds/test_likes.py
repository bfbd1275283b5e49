"""Likes (docs/features.md#interactions): one per person, counted atomically on the post, a
button that works with and without JavaScript, `data-likes` everywhere the
post appears, and the rate limit."""

import re
import threading

import pytest
from bson import ObjectId

from feeds.documents import PUBLIC, Post, PostLike
from feeds.selectors import marks
from feeds.services import likes
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from tests.conftest import user

JSON = {"Accept": "application/json"}


def new_status(author: User, text="like me", circles=(PUBLIC,)) -> Post:
    return services.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles)
    )


def count(post) -> int:
    return Post._get_collection().find_one({"_id": post.id}).get("likes_count", 0)


def likers(post) -> set[str]:
    return {like.by for like in PostLike.objects(post=post.id)}


def data_likes(html: str, post) -> str | None:
    match = re.search(rf'data-post-id="{post.id}" data-likes="(\d+)"', html)
    return match.group(1) if match else None


# --- the service


def test_liking_twice_counts_one(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    first = likes.like_create(post_id=post.id, user=bob)
    second = likes.like_create(post_id=post.id, user=bob)
    assert (first.changed, first.likes, first.liked) == (True, 1, True)
    assert (second.changed, second.likes, second.liked) == (False, 1, True)
    assert count(post) == 1 and likers(post) == {"bob"}


def test_unlike_takes_the_like_back_once(make_user):
    ada, bob, cyd = make_user("ada"), make_user("bob"), make_user("cyd")
    post = new_status(ada)
    likes.like_create(post_id=post.id, user=bob)
    likes.like_create(post_id=post.id, user=cyd)
    gone = likes.like_delete(post_id=post.id, user=bob)
    again = likes.like_delete(post_id=post.id, user=bob)
    assert (gone.changed, gone.likes, gone.liked) == (True, 1, False)
    assert (again.changed, again.likes) == (False, 1)
    assert count(post) == 1 and likers(post) == {"cyd"}
    likes.like_delete(post_id=post.id, user=cyd)
    likes.like_delete(post_id=post.id, user=cyd)
    assert count(post) == 0 and likers(post) == set()


def test_an_author_may_like_their_own_post(make_user):
    ada = make_user("ada")
    post = new_status(ada)
    assert likes.like_create(post_id=post.id, user=ada).likes == 1


def test_fifty_threads_liking_at_once_count_each_liker_once(make_user):
    """50 threads, 30 people: 20 of them like twice at the same moment. The
    unique index lets one insert of each pair land; only that one counts."""
    ada = make_user("ada")
    people = [make_user(f"liker{i:02d}") for i in range(30)]
    post = new_status(ada)
    turns = people + people[:20]
    start = threading.Barrier(len(turns))
    failures = []

    def worker(person):
        start.wait()
        try:
            likes.like_create(post_id=post.id, user=person)
        except Exception as exc:  # surfaced below: a thread's exception is otherwise lost
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(p,)) for p in turns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert likers(post) == {p.handle for p in people}
    assert count(post) == 30 == PostLike.objects(post=post.id).count()


def test_racing_likes_and_unlikes_leave_the_count_equal_to_the_likes(make_user):
    ada = make_user("ada")
    people = [make_user(f"liker{i:02d}") for i in range(10)]
    post = new_status(ada)
    start = threading.Barrier(20)
    failures = []

    def worker(n):
        start.wait()
        try:
            for round_ in range(10):
                person = people[(n + round_) % len(people)]
                action = likes.like_create if (n + round_) % 3 else likes.like_delete
                action(post_id=post.id, user=person)
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert count(post) == len(likers(post)) >= 0


def test_unknown_removed_and_blocked_are_refused(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    make_user("cyd")
    moderator = make_user("mod", role="moderator")
    post = new_status(ada)
    with pytest.raises(likes.NoSuchPost):
        likes.like_create(post_id=ObjectId(), user=bob)
    graph.block_create(blocker=user("ada"), blocked="bob")
    with pytest.raises(likes.LikeError, match="can't like @ada's posts"):
        likes.like_create(post_id=post.id, user=user("bob"))
    graph.block_create(blocker=user("cyd"), blocked="ada")
    with pytest.raises(likes.LikeError, match="You blocked @ada"):
        likes.like_create(post_id=post.id, user=user("cyd"))
    assert count(post) == 0 and likers(post) == set()

    likes.like_create(post_id=post.id, user=moderator)
    moderation.post_remove(moderator=moderator, target=Target("post", str(post.id)))
    with pytest.raises(likes.LikeError, match="removed"):
        likes.like_delete(post_id=post.id, user=moderator)
    with pytest.raises(likes.LikeError, match="removed"):
        likes.like_create(post_id=post.id, user=user("ada"))
    assert count(post) == 1 and likers(post) == {"mod"}


def test_a_removal_racing_a_like_leaves_no_like_behind(make_user, monkeypatch):
    """The removal lands between the like's insert and its `$inc`: the `$inc`
    carries `removed: None`, misses, and the like is taken back."""
    ada, bob = make_user("ada"), make_user("bob")
    moderator = make_user("mod", role="moderator")
    post = new_status(ada)
    real_count = likes.LIKES.count

    def remove_then_count(turn, delta):
        moderation.post_remove(moderator=moderator, target=Target("post", str(turn.post_id)))
        return real_count(turn, delta)

    monkeypatch.setattr(likes.LIKES, "count", remove_then_count)
    with pytest.raises(likes.LikeError, match="removed"):
        likes.like_create(post_id=post.id, user=bob)
    assert count(post) == 0 and likers(post) == set()


def test_deleting_a_post_deletes_its_likes(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    post, other = new_status(ada), new_status(ada, "another")
    likes.like_create(post_id=post.id, user=bob)
    likes.like_create(post_id=other.id, user=bob)
    services.post_delete(post_id=post.id, actor=user("ada"))
    assert PostLike.objects(post=post.id).count() == 0
    assert likers(other) == {"bob"}


def test_recount_repairs_a_count_left_short(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    likes.like_create(post_id=post.id, user=bob)
    Post._get_collection().update_one({"_id": post.id}, {"$set": {"likes_count": 0}})
    assert likes.likes_recount(post.id) == 1 and count(post) == 1


def test_liked_by_answers_a_page_in_one_query(make_user, round_trips):
    ada, bob = make_user("ada"), make_user("bob")
    posts = [new_status(ada, f"post {n}") for n in range(12)]
    for post in posts[::3]:
        likes.like_create(post_id=post.id, user=bob)
    viewer = user("bob")
    with round_trips() as c:
        liked = marks.liked_by(viewer, [p.id for p in posts])
    assert c.total == 1
    assert liked == {str(p.id) for p in posts[::3]}
    with round_trips() as c:
        assert marks.liked_by(viewer, []) == set()
    assert c.total == 0


# --- the pages


def test_the_button_works_without_javascript(model, make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    post = new_status(ada)
    client = login(bob)
    feed = client.get("/feed/").content.decode()
    assert data_likes(feed, post) == "0"
    assert f'action="/posts/{post.id}/like/"' in feed and 'aria-pressed="false"' in feed

    response = client.post(f"/posts/{post.id}/like/", {"next": "/feed/"})
    assert response.status_code == 302 and response["Location"] == "/feed/"
    client.post(f"/posts/{post.id}/like/", {"next": "/feed/"})
    for page in ("/feed/", "/u/ada/", f"/posts/{post.id}/"):
        html = client.get(page).content.decode()
        assert data_likes(html, post) == "1", page
        assert f'action="/posts/{post.id}/unlike/"' in html and 'aria-pressed="true"' in html
    # Others see the count and their own button state.
    html = login(ada).get("/u/ada/").content.decode()
    assert data_likes(html, post) == "1" and 'aria-pressed="false"' in html

    response = client.post(f"/posts/{post.id}/unlike/", {"next": "https://evil.example/"})
    assert response.status_code == 302 and response["Location"] == f"/posts/{post.id}/"
    assert data_likes(client.get("/feed/").content.decode(), post) == "0"


def test_the_script_gets_json(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    client = login(bob)
    response = client.post(f"/posts/{post.id}/like/", headers=JSON)
    assert response.status_code == 200
    assert response.json() == {"liked": True, "likes": 1}
    assert client.post(f"/posts/{post.id}/like/", headers=JSON).json() == {
        "liked": True,
        "likes": 1,
    }
    assert client.post(f"/posts/{post.id}/unlike/", headers=JSON).json() == {
        "liked": False,
        "likes": 0,
    }
    # A browser's own form post prefers HTML: the redirect.
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    assert client.post(f"/posts/{post.id}/like/", headers=browser).status_code == 302


def test_action_routes_answer_405_to_get_and_404_to_unknown_ids(make_user, login):
    ada = make_user("ada")
    post = new_status(ada)
    client = login(ada)
    for action in ("like", "unlike"):
        assert client.get(f"/posts/{post.id}/{action}/")["Location"] == f"/posts/{post.id}/"
        for bad in (str(ObjectId()), "nope", "0" * 24, "%24ne"):
            assert client.post(f"/posts/{bad}/{action}/").status_code == 404, bad


def test_a_signed_out_visitor_is_sent_to_log_in(make_user, client):
    ada = make_user("ada")
    post = new_status(ada)
    response = client.post(f"/posts/{post.id}/like/", {"next": "/u/ada/"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fu%2Fada%2F"
    assert count(post) == 0
    html = client.get("/u/ada/").content.decode()
    assert data_likes(html, post) == "0" and "/like/" not in html


def test_likes_are_rate_limited_per_user(settings, make_user, login):
    settings.RATELIMIT_LIKE = "2/60"
    ada, bob, cyd = make_user("ada"), make_user("bob"), make_user("cyd")
    post = new_status(ada)
    client = login(bob)
    assert client.post(f"/posts/{post.id}/like/").status_code == 302
    assert client.post(f"/posts/{post.id}/unlike/").status_code == 302
    response = client.post(f"/posts/{post.id}/like/")
    assert response.status_code == 429 and "Too many attempts" in response.content.decode()
    response = client.post(f"/posts/{post.id}/like/", headers=JSON)
    assert response.status_code == 429 and "Too many attempts" in response.json()["error"]
    assert response["Retry-After"]
    assert count(post) == 0
    assert login(cyd).post(f"/posts/{post.id}/like/").status_code == 302
    assert count(post) == 1


def test_the_like_state_costs_no_query_of_its_own(make_user, login, round_trips):
    ada, bob = make_user("ada"), make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    posts = [new_status(ada, f"post {n}") for n in range(5)]
    client = login(bob)
    client.get("/feed/")
    with round_trips() as plain:
        client.get("/feed/")
    for n, post in enumerate(posts):
        likes.like_create(post_id=post.id, user=make_user(f"fan{n}"))
    with round_trips() as liked:
        html = client.get("/feed/").content.decode()
    assert all(data_likes(html, p) == "1" for p in posts)
    # The viewer's likes come with the timeline's read (`cache`): no query.
    assert liked.total == plain.total, (plain.commands, liked.commands)
