"""`notify` and the events that call it: what is created, for whom, and what is not."""

import pytest
from bson import ObjectId

from comments import services as comments
from feeds.documents import ALL_CIRCLES
from feeds.services import posts as feeds
from notifications import services as notifications
from notifications.documents import NotificationBucket
from profiles import services as graph
from profiles.documents import User
from tests.notifications.helpers import kinds, make_post, stored, unread


@pytest.fixture
def ann_bob(make_user):
    return make_user("ann", "Ann"), make_user("bob", "Bob")


def test_a_follow_notifies_the_person_followed(ann_bob):
    _ann, bob = ann_bob
    graph.follow_create(follower=bob, followee="ann")
    assert kinds("ann") == [("follow", "bob")]
    assert unread("ann") == 1
    # Unfollow and follow again: the open bucket holds it already, not news twice.
    graph.follow_delete(follower="bob", followee="ann")
    graph.follow_create(follower=bob, followee="ann")
    assert kinds("ann") == [("follow", "bob")]
    assert unread("ann") == 1


def test_every_kind_is_stored_with_its_post_and_comment(ann_bob, make_user):
    ann, _bob = ann_bob
    post = make_post(ann, "mine")
    for kind in ("like", "repost", "comment", "reply", "mention", "wall"):
        notifications.notify(
            recipient="ann", kind=kind, actor="bob", post_id=str(post), comment_slug="ab12"
        )
    items = stored("ann")
    assert sorted(i["kind"] for i in items) == sorted(
        ["like", "repost", "comment", "reply", "mention", "wall"]
    )
    assert {i["post"] for i in items} == {post}
    assert unread("ann") == 6


def test_own_actions_unknown_kinds_and_bad_ids_create_nothing(ann_bob):
    ann, _ = ann_bob
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="ann", post_id=post)
    notifications.notify(recipient="ann", kind="poke", actor="bob")
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id="not-an-id")
    notifications.notify(recipient="ann", kind="like", actor="bob")  # no post
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=ObjectId())
    notifications.notify(recipient="nobody", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="nobody")
    assert stored("ann") == [] and unread("ann") == 0


def test_notify_never_raises_into_the_action(ann_bob, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("database gone")

    monkeypatch.setattr(notifications.buckets, "push_item", broken)
    notifications.notify(recipient="ann", kind="follow", actor="bob")  # no exception
    assert "notification_failed" in caplog.text


def test_blocks_either_way_and_mutes_create_nothing(ann_bob, make_user):
    ann, _bob = ann_bob
    cat = make_user("cat", "Cat")
    post = make_post(ann)
    graph.block_create(blocker=ann, blocked="bob")  # ann blocked bob
    graph.block_create(blocker=cat, blocked="ann")  # cat blocked ann
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    User._get_collection().update_one({"_id": "ann"}, {"$set": {"muted": ["dan"]}})
    make_user("dan", "Dan")
    notifications.notify(recipient="ann", kind="follow", actor="dan")
    assert stored("ann") == [] and unread("ann") == 0


def test_a_blocked_person_cannot_reach_me_through_any_action(ann_bob):
    ann, bob = ann_bob
    graph.block_create(blocker=ann, blocked="bob")
    ann.reload()
    with pytest.raises(graph.GraphError):
        graph.follow_create(follower=bob, followee="ann")
    post = make_post(bob, "hi @ann")  # a mention by someone I blocked
    assert post and stored("ann") == []


def test_likes_on_one_post_are_one_group(ann_bob, make_user):
    ann, _bob = ann_bob
    post = make_post(ann)
    others = [make_user(h) for h in ("cat", "dan", "eve")]
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    for person in others:
        notifications.notify(recipient="ann", kind="like", actor=person.handle, post_id=post)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)  # again
    (group,) = stored("ann")
    assert group["kind"] == "like" and group["actor_count"] == 4
    assert group["actors"] == ["bob", "cat", "dan", "eve"]
    assert unread("ann") == 1  # one item, however many likers


def test_a_like_on_a_read_group_makes_it_unread_again(ann_bob, make_user):
    ann, _bob = ann_bob
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    ann.reload()
    notifications.notifications_mark_read(user=ann, newest=stored("ann")[0]["ts"])
    assert unread("ann") == 0
    make_user("cat")
    notifications.notify(recipient="ann", kind="like", actor="cat", post_id=post)
    assert unread("ann") == 1
    assert len(stored("ann")) == 1


def test_a_mention_in_a_post_notifies_only_people_who_may_see_it(ann_bob, make_user):
    ann, _bob = ann_bob
    make_user("cat", "Cat")
    graph.circle_create(owner=ann, name="close")
    ann.reload()
    graph.follow_create(follower=ann, followee="bob", circles=["close"])
    ann.reload()
    make_post(ann, "hello @bob and @cat and @nobody", circles=["close"])
    assert kinds("bob") == [("mention", "ann"), ("follow", "ann")]
    assert stored("cat") == [] and unread("cat") == 0  # not in the circle: nothing
    make_post(ann, "public, @cat")
    assert kinds("cat") == [("mention", "ann")]


def test_a_post_on_my_wall_and_mentions_in_it(ann_bob, make_user):
    _ann, bob = ann_bob
    make_user("cat")
    post = make_post(bob, "for you @ann, and @cat", to="ann")
    assert [(i["kind"], i["actor"], i["post"]) for i in stored("ann")] == [("wall", "bob", post)]
    assert kinds("cat") == [("mention", "bob")]


def test_comments_replies_and_mentions_in_comments(ann_bob, make_user):
    ann, bob = ann_bob
    make_user("cat")
    post_id = make_post(ann, "mine")
    post = feeds_post(post_id)
    top = comments.comment_create(post=post, author=bob, text="nice, @cat")
    assert [(i["kind"], i["comment"]) for i in stored("ann")] == [("comment", top.slug)]
    assert [(i["kind"], i["comment"]) for i in stored("cat")] == [("mention", top.slug)]
    cat = User.objects.get(handle="cat")
    reply = comments.comment_create(
        post=post, author=cat, text="thanks @bob @ann", parent_slug=top.slug
    )
    # bob hears "reply" (not also "mention"); ann hears "comment" (not also "mention").
    assert [(i["kind"], i["comment"]) for i in stored("bob")] == [("reply", reply.slug)]
    assert [i["kind"] for i in stored("ann")] == ["comment", "comment"]
    # Answering myself on my own post: nothing to me.
    comments.comment_create(post=post, author=ann, text="me", parent_slug=top.slug)
    assert len(stored("ann")) == 2


def feeds_post(post_id):
    from feeds.documents import Post

    return Post._get_collection().find_one({"_id": post_id})


def test_deleting_a_post_forgets_its_notifications_and_their_count(ann_bob):
    ann, _bob = ann_bob
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    assert unread("ann") == 2
    feeds.post_delete(post_id=post, actor=ann)
    assert kinds("ann") == [("follow", "bob")]
    assert unread("ann") == 1


def test_blocking_recounts_what_the_page_would_list(ann_bob, make_user):
    ann, _bob = ann_bob
    make_user("cat")
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    assert unread("ann") == 2
    graph.block_create(blocker=ann, blocked="bob")
    assert unread("ann") == 1


def test_buckets_roll_over_at_their_size(ann_bob, settings, make_user):
    settings.NOTIFICATIONS_BUCKET_SIZE = 5
    ann, _ = ann_bob
    post = make_post(ann)
    for i in range(12):
        make_user(f"fan{i:02d}")
        notifications.notify(recipient="ann", kind="repost", actor=f"fan{i:02d}", post_id=post)
    rows = list(NotificationBucket._get_collection().find({"owner": "ann"}))
    assert sorted(len(r["items"]) for r in rows) == [2, 5, 5]
    assert [r["slot"] for r in rows].count("open") == 1
    assert unread("ann") == 12


def test_a_like_after_a_rollover_starts_a_new_group(ann_bob, settings, make_user):
    settings.NOTIFICATIONS_BUCKET_SIZE = 2
    ann, _bob = ann_bob
    post = make_post(ann)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    make_user("cat")
    notifications.notify(recipient="ann", kind="follow", actor="cat")
    make_user("dan")
    notifications.notify(recipient="ann", kind="follow", actor="dan")  # closes the first bucket
    notifications.notify(recipient="ann", kind="like", actor="cat", post_id=post)
    likes = [i for i in stored("ann") if i["kind"] == "like"]
    assert [i["actors"] for i in likes] == [["cat"], ["bob"]]


def test_circle_post_mention_needs_sight_at_create_time(ann_bob, make_user):
    """`*circles*`: only people the author placed in a circle hear of it."""
    ann, _bob = ann_bob
    make_user("cat")
    graph.circle_create(owner=ann, name="close")
    ann.reload()
    graph.follow_create(follower=ann, followee="cat", circles=["close"])
    ann.reload()
    make_post(ann, "@bob @cat", circles=[ALL_CIRCLES])
    assert stored("bob") == []
    assert kinds("cat") == [("mention", "ann"), ("follow", "ann")]


def test_a_notification_arriving_while_the_page_marks_read_stays_unread(ann_bob, make_user):
    ann, _bob = ann_bob
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    ann.reload()  # the page loaded ann (count 1) and read the buckets...
    newest = stored("ann")[0]["ts"]
    make_user("cat")
    notifications.notify(recipient="ann", kind="follow", actor="cat")  # ...then this arrived
    notifications.notifications_mark_read(user=ann, newest=newest)
    assert unread("ann") == 1


def test_marking_read_with_nothing_unread_writes_nothing(ann_bob, round_trips):
    ann, _bob = ann_bob
    notifications.notify(recipient="ann", kind="follow", actor="bob")
    ann.reload()
    newest = stored("ann")[0]["ts"]
    notifications.notifications_mark_read(user=ann, newest=newest)
    ann.reload()
    with round_trips() as counted:
        notifications.notifications_mark_read(user=ann, newest=newest)
    assert counted.total == 0 and unread("ann") == 0


def test_a_mention_in_a_comment_on_a_post_i_cannot_see_creates_nothing(ann_bob, make_user):
    ann, bob = ann_bob
    make_user("cat")
    graph.circle_create(owner=ann, name="close")
    ann.reload()
    graph.follow_create(follower=ann, followee="bob", circles=["close"])
    ann.reload()
    post_id = make_post(ann, "circle only", circles=["close"])
    comments.comment_create(post=feeds_post(post_id), author=bob, text="@cat look")
    assert stored("cat") == [] and unread("cat") == 0
    assert [i["kind"] for i in stored("ann")] == ["comment"]
