"""Counts of likes and reposts that never drift (issue 20; docs/performance.md,
real MongoDB semantics): a like and its unlike racing, parallel undos, a
process that dies between a mark and its count, and the embedded copies of
the counts refreshed out of order."""

import threading
from io import StringIO

import pytest
from bson import ObjectId
from django.core.management import call_command
from django.dispatch import Signal

from feeds.documents import COUNTING, PUBLIC, Post, PostLike, PostRepost
from feeds.services import counts, likes, reposts
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from tests.conftest import user
from timelines.delivery import upkeep
from timelines.stores import write_stores

DUMMY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
JSON = {"Accept": "application/json"}


def new_status(author: User, text: str = "count me") -> Post:
    return services.post_create(
        author=author, type="status", detail={"text": text}, circles=[PUBLIC]
    )


def stored(post, field: str) -> int:
    return Post._get_collection().find_one({"_id": post.id}).get(field) or 0


def tokens(post) -> list:
    return Post._get_collection().find_one({"_id": post.id}).get(COUNTING) or []


def in_parallel(n: int, work) -> list:
    """`work(i)` in n threads released at once; their answers (errors re-raised)."""
    start = threading.Barrier(n)
    answers: list = [None] * n
    failures: list = []

    def run(i: int) -> None:
        start.wait()
        try:
            answers[i] = work(i)
        except Exception as exc:  # surfaced below: a thread's exception is otherwise lost
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    return answers


# --- a like and its unlike racing ---


def test_an_unlike_landing_between_a_like_and_its_count_leaves_no_like_counted(
    make_user, monkeypatch
):
    """The interleaving the probes found: the like's mark lands, the unlike
    takes it away and counts down, then the like counts up. A floor on the
    count skipped the -1 and left a permanent +1; now the two cancel."""
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    real_count = likes.LIKES.count
    unliked = []

    def unlike_first(*args, **kwargs):
        if args[-1] > 0 and not unliked:
            unliked.append(likes.like_delete(post_id=post.id, user=bob))
        return real_count(*args, **kwargs)

    monkeypatch.setattr(likes.LIKES, "count", unlike_first)
    liked = likes.like_create(post_id=post.id, user=bob)

    assert unliked[0].changed and liked.changed
    assert PostLike.objects(post=post.id).count() == 0
    assert stored(post, "likes_count") == 0
    assert liked.likes >= 0 and unliked[0].likes >= 0  # never shown below 0
    assert tokens(post) == []


def test_twenty_parallel_likes_and_unlikes_by_one_person_count_what_is_left(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    for _ in range(3):
        in_parallel(
            20,
            lambda i: (likes.like_create if i % 2 else likes.like_delete)(
                post_id=post.id, user=bob
            ),
        )
        marks = PostLike.objects(post=post.id).count()
        assert stored(post, "likes_count") == marks <= 1
        assert tokens(post) == []
    likes.like_delete(post_id=post.id, user=bob)
    assert stored(post, "likes_count") == 0


def test_parallel_likes_and_unlikes_through_the_pages_answer_no_500(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    post = new_status(ada)
    client = login(bob)
    statuses = in_parallel(
        12,
        lambda i: (
            client.post(
                f"/posts/{post.id}/{'like' if i % 2 else 'unlike'}/", headers=JSON
            ).status_code
        ),
    )
    assert set(statuses) == {200}
    assert stored(post, "likes_count") == PostLike.objects(post=post.id).count()


# --- parallel undos of one repost ---


@pytest.fixture
def reposted(make_user):
    """ann's post, reposted by rex and ray: 2 reposts."""
    ann = make_user("ann")
    for handle in ("rex", "ray"):
        make_user(handle)
    post = new_status(ann)
    for handle in ("rex", "ray"):
        reposts.repost_create(post_id=post.id, user=user(handle))
    assert stored(post, "reposts_count") == 2
    return post


def test_an_undo_racing_the_winning_undo_answers_the_true_count(reposted, monkeypatch):
    """The second undo asks while the first has deleted the record but not
    yet counted down: it used to answer the stale 2 (or 0); 1 is true."""
    real_count = reposts.REPOSTS.count
    late = []

    def second_undo_first(*args, **kwargs):
        if args[-1] < 0 and not late:
            late.append(reposts.repost_delete(post_id=reposted.id, user=user("rex")))
        return real_count(*args, **kwargs)

    monkeypatch.setattr(reposts.REPOSTS, "count", second_undo_first)
    first = reposts.repost_delete(post_id=reposted.id, user=user("rex"))
    assert (first.changed, first.reposts) == (True, 1)
    assert (late[0].changed, late[0].reposts) == (False, 1)
    assert stored(reposted, "reposts_count") == 1 == PostRepost.objects(post=reposted.id).count()


def test_parallel_undos_all_answer_one_when_one_repost_is_left(reposted):
    answers = in_parallel(
        10, lambda i: reposts.repost_delete(post_id=reposted.id, user=user("rex"))
    )
    assert sum(a.changed for a in answers) == 1
    assert {a.reposts for a in answers} == {1}
    assert stored(reposted, "reposts_count") == 1
    assert tokens(reposted) == []


# --- a crash between a mark and its count: the sweeper ---


class Crash(Exception):
    """The process dies here (its write never happens)."""


def crash(*args, **kwargs):
    raise Crash


def test_the_sweeper_recounts_what_a_crash_left_behind(settings, make_user, monkeypatch):
    settings.TASKS = DUMMY  # the repost's delivery waits for its own sweeper
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    post = new_status(ann)
    likes.like_create(post_id=post.id, user=cyd)

    with monkeypatch.context() as m:
        m.setattr(likes.LIKES, "count", crash)
        m.setattr(reposts.REPOSTS, "count", crash)
        with pytest.raises(Crash):
            likes.like_create(post_id=post.id, user=bob)
        with pytest.raises(Crash):
            likes.like_delete(post_id=post.id, user=cyd)
        with pytest.raises(Crash):
            reposts.repost_create(post_id=post.id, user=bob)

    # Marks: bob's like, bob's repost; the counts still say 1 like, 0 reposts.
    assert (stored(post, "likes_count"), stored(post, "reposts_count")) == (1, 0)
    assert len(tokens(post)) == 3
    # Young tokens belong to requests that may still be running: left alone.
    assert counts.counts_sweep() == 0
    assert stored(post, "reposts_count") == 0

    assert counts.counts_sweep(older_than_seconds=0) == 1
    assert (stored(post, "likes_count"), stored(post, "reposts_count")) == (1, 1)
    assert tokens(post) == []
    assert counts.counts_sweep(older_than_seconds=0) == 0


def test_the_cron_sweeper_runs_the_recount(make_user, monkeypatch):
    ann, bob = make_user("ann"), make_user("bob")
    post = new_status(ann)
    monkeypatch.setattr(likes.LIKES, "count", crash)
    with pytest.raises(Crash):
        likes.like_create(post_id=post.id, user=bob)
    monkeypatch.undo()
    out = StringIO()
    call_command("redeliver_pending", "--older-than", "0", stdout=out)
    assert "1 post(s) recounted" in out.getvalue()
    assert stored(post, "likes_count") == 1


def test_a_recount_never_overwrites_a_count_that_moved_meanwhile(make_user, monkeypatch):
    """The sweeper counts the marks, then a like lands before its write: its
    write misses, and the next sweep settles the post."""
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    post = new_status(ann)
    with monkeypatch.context() as m:
        m.setattr(likes.LIKES, "count", crash)
        with pytest.raises(Crash):
            likes.like_create(post_id=post.id, user=bob)
    real_tally = likes.LIKES.tally

    def tally_then_like(post_id):
        found = real_tally(post_id)
        monkeypatch.setattr(likes.LIKES, "tally", real_tally)
        likes.like_create(post_id=post.id, user=cyd)
        return found

    monkeypatch.setattr(likes.LIKES, "tally", tally_then_like)
    assert counts.counts_sweep(older_than_seconds=0) == 0
    assert counts.counts_sweep(older_than_seconds=0) == 1
    assert stored(post, "likes_count") == 2 == PostLike.objects(post=post.id).count()


# --- E11000 on the re-insert after a removal race ---


def test_a_duplicate_on_the_re_insert_after_a_removal_is_no_500(make_user, login, monkeypatch):
    """The unlike's count misses (a moderator removed the post meanwhile) and
    the like goes back; the same person's like put it back first: E11000,
    answered as the refusal, and the sweeper settles the count."""
    ann, bob = make_user("ann"), make_user("bob")
    moderator = make_user("mod", role="moderator")
    post = new_status(ann)
    client = login(bob)
    client.post(f"/posts/{post.id}/like/")
    real_count = likes.LIKES.count

    def removed_and_liked_again(*args, **kwargs):
        moderation.post_remove(moderator=moderator, target=Target("post", str(post.id)))
        PostLike._get_collection().insert_one({"post": post.id, "by": "bob"})
        return real_count(*args, **kwargs)

    monkeypatch.setattr(likes.LIKES, "count", removed_and_liked_again)
    response = client.post(f"/posts/{post.id}/unlike/", headers=JSON)
    assert response.status_code in (403, 404)  # a moderator's removal: hidden or refused
    assert PostLike.objects(post=post.id).count() == 1
    monkeypatch.undo()
    counts.counts_sweep(older_than_seconds=0)
    assert stored(post, "likes_count") == 1


# --- the embedded copies of the counts ---


@pytest.fixture
def embedded(settings, make_user):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", True
    ann, bob = make_user("ann"), make_user("bob")
    graph.follow_create(follower=bob, followee="ann")
    return new_status(ann)


def copies(post) -> list[tuple]:
    """(likes_count, counts_v) of every embedded copy of the post, every store."""
    found = []
    for store in write_stores():
        for doc in store.collection().find({"entries.id": post.id}, {"entries": 1}):
            for entry in doc["entries"]:
                if entry["id"] == post.id and "post" in entry:
                    found.append((entry["post"].get("likes_count"), entry["post"].get("counts_v")))
    return found


def test_a_late_refresh_never_writes_an_older_count_over_a_newer_one(
    embedded, make_user, monkeypatch
):
    """Refresh A reads the counts after the first like; before its writes
    land, a second like and its refresh B run to the end. A's writes then
    leave B's newer count in place."""
    first, second = make_user("fan1"), make_user("fan2")
    real_stores = upkeep.write_stores
    raced = []

    def second_like_first():
        if not raced:
            raced.append(True)
            likes.like_create(post_id=embedded.id, user=second)  # refresh B inside
        return real_stores()

    monkeypatch.setattr(upkeep, "write_stores", second_like_first)
    likes.like_create(post_id=embedded.id, user=first)  # refresh A

    found = copies(embedded)
    assert found and {likes for likes, _ in found} == {2}
    assert stored(embedded, "counts_copied") == stored(embedded, "counts_v")


def test_a_burst_of_refreshes_writes_the_copies_once(settings, embedded, make_user, round_trips):
    settings.TASKS = DUMMY
    for n in range(3):
        likes.like_create(post_id=embedded.id, user=make_user(f"fan{n}"))
    assert {likes for likes, _ in copies(embedded)} == {0}
    upkeep.refresh_counts(embedded.id)
    assert {likes for likes, _ in copies(embedded)} == {3}
    # The other two queued runs find the counts copied already: one read each.
    with round_trips() as c:
        upkeep.refresh_counts(embedded.id)
        upkeep.refresh_counts(embedded.id)
    assert c.total == 2


def refresh_runs(backend) -> list:
    """The copy refreshes queued on the dummy backend so far."""
    return [r for r in backend.results if r.task.name == "refresh_post_copies"]


def run_queued(result) -> None:
    result.task.call(*result.args, **result.kwargs)


def test_fifty_likes_in_a_burst_refresh_the_copies_once(
    settings, embedded, round_trips, monkeypatch
):
    """docs/performance.md#copies-follow-in-one-refresh: the first like of
    the burst marks one refresh, due FEED_COPIES_REFRESH_SECONDS later; the
    other 49 join its mark, in the one round trip each would have spent
    queueing one. A like that comes while the refresh runs starts the next."""
    from django.tasks import task_backends

    from socialsite.documents import TaskMark
    from tests.feeds.test_fanout import insert_active_users

    settings.TASKS, settings.FEED_COPIES_REFRESH_SECONDS = DUMMY, 3
    backend = task_backends["default"]
    handles = [f"fan{i:02d}" for i in range(51)]
    insert_active_users(handles)
    fans = {fan.handle: fan for fan in User.objects(handle__in=handles)}
    for handle in handles[:50]:
        likes.like_create(post_id=embedded.id, user=fans[handle])

    [first] = refresh_runs(backend)
    assert first.task.run_after is not None  # deferred: the burst joins it
    [mark] = TaskMark._get_collection().find({"kind": first.task.module_path})
    assert mark["key"] == f"copies:{embedded.id}"
    assert sorted(mark["items"]) == ["likes_count", "reposts_count"]
    assert {likes for likes, _ in copies(embedded)} == {0}  # nothing copied yet

    real_stores, late = upkeep.write_stores, []

    def one_more_like_meanwhile():
        if not late:  # after the run took its mark's items and read the counts
            late.append(likes.like_create(post_id=embedded.id, user=fans[handles[50]]))
        return real_stores()

    monkeypatch.setattr(upkeep, "write_stores", one_more_like_meanwhile)
    run_queued(first)
    monkeypatch.setattr(upkeep, "write_stores", real_stores)
    assert {likes for likes, _ in copies(embedded)} == {50}

    # The late like found no waiting mark and marked the next refresh, which
    # copies the final count. Whatever the burst, a run costs the same: its
    # mark's key released, the counts read, one write per store, the copied
    # version noted, the mark deleted.
    _, second = refresh_runs(backend)
    with round_trips() as trips:
        run_queued(second)
    assert trips.total == 4 + len(write_stores()), trips.commands
    assert {likes for likes, _ in copies(embedded)} == {51}
    assert not TaskMark._get_collection().count_documents({"kind": first.task.module_path})


# --- the post page's repost button ---


def test_the_post_page_offers_undo_to_someone_who_reposted(make_user, login):
    ann, rex = make_user("ann"), make_user("rex")
    make_user("gus")
    post = new_status(ann)
    reposts.repost_create(post_id=post.id, user=rex)
    html = login(rex).get(f"/posts/{post.id}/").content.decode()
    assert "Undo repost" in html and f'action="/posts/{post.id}/unrepost/"' in html
    # Someone else still gets "Repost".
    other = login(user("gus")).get(f"/posts/{post.id}/").content.decode()
    assert "Undo repost" not in other and f'action="/posts/{post.id}/repost/"' in other


def test_unknown_ids_are_still_404_for_every_mark(make_user, login):
    ann = make_user("ann")
    client = login(ann)
    for action in ("like", "unlike", "repost", "unrepost"):
        assert client.post(f"/posts/{ObjectId()}/{action}/").status_code == 404


# --- what a mark costs ---


def test_a_like_or_an_unlike_costs_three_round_trips_on_the_post_and_its_marks(
    settings, make_user, round_trips, monkeypatch
):
    """The token rides on the read of the post and comes off with the `$inc`:
    the post with the token, the mark, the count (docs/performance.md). The
    listeners (notifications) are not the mark's cost."""
    settings.TASKS = DUMMY
    monkeypatch.setattr(likes.LIKES, "announce", lambda **kwargs: None)
    monkeypatch.setattr(likes.events, "post_unliked", Signal())
    ann, bob = make_user("ann"), make_user("bob")
    post = new_status(ann)
    for action in (likes.like_create, likes.like_delete):
        with round_trips() as c:
            action(post_id=post.id, user=bob)
        own = [trip.name for trip in c.trips if trip.collection in ("post", "post_like")]
        assert len(own) == 3, own
    assert tokens(post) == []
