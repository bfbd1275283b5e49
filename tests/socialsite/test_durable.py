"""Durable background work (docs/operations.md#durable-background-work): for
every durable task kind, its mark is written before the task is queued, a
task the queue lost is finished by the sweeper, and a second run changes
nothing. Then the marks' attempts, `failed`, and what /healthz shows."""

from datetime import timedelta

import pytest
from bson import ObjectId
from django.core import mail as outbox
from django.test import Client
from django.utils.module_loading import import_string

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from notifications.documents import NotificationBucket
from profiles import services as graph
from profiles import tasks as profile_tasks
from profiles.documents import User
from profiles.services import circles, users
from socialsite import durable, mail, periodic
from socialsite.clock import now
from socialsite.documents import TaskMark
from timelines.selectors import pages as selectors
from timelines.stores import get_store

DUMMY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
LEFT_ALONE = {"task_mark", "ratelimit", "session", "periodic_job"}


def post(author: User, text: str, circle: str = PUBLIC) -> Post:
    return feeds.post_create(author=author, type="status", detail={"text": text}, circles=[circle])


def news_texts(handle: str) -> list[str]:
    page = selectors.news_page(User.objects.get(handle=handle))
    return [row["detail"].get("text") for row in page.posts]


def notification_kinds(handle: str) -> list[str]:
    rows = NotificationBucket._get_collection().find({"owner": handle})
    return sorted(item["kind"] for row in rows for item in row["items"])


def stored_copies(owner: str) -> list[dict]:
    return get_store().entries("news", owner, None, 100).entries


# Each kind: `act` does what a person does (the task is queued, not run);
# `done` says whether its effect is there.


def act_unfollow(people):
    graph.follow_delete(follower="bob", followee="ada")


def done_unfollow(people):
    # The public post leaves; the circle's stays (Bob is still in it).
    return news_texts("bob") == ["for pals"]


def act_rebuild(people):
    User.objects(handle="bob").update_one(set__last_seen=now() - timedelta(days=400))
    users.user_touch(user=User.objects.get(handle="bob"))


def done_rebuild(people):
    return User.objects.get(handle="bob").feed_rebuild is None


def act_edit(people):
    row = Post._get_collection().find_one({"by.id": "ada", "circles": PUBLIC}, {"_id": 1})
    feeds.post_edit(post_id=row["_id"], actor=people["ada"], changes={"text": "edited words"})


def done_edit(people):
    texts = sorted(entry["post"]["detail"]["text"] for entry in stored_copies("bob"))
    return texts == ["edited words", "for pals"]


def act_rename(people):
    circles.circle_rename(owner=User.objects.get(handle="ada"), old="pals", new="friends")


def done_rename(people):
    circles_named = sorted(entry["post"]["circles"] for entry in stored_copies("bob"))
    return circles_named == [[PUBLIC], ["friends"]]


def act_comment(people):
    row = Post._get_collection().find_one({"by.id": "ada", "circles": PUBLIC})
    comments.comment_create(post=row, author=people["bob"], text="first!")


def done_summary(people):
    row = Post._get_collection().find_one({"by.id": "ada", "circles": PUBLIC})
    return row.get("comments_count") == 1


def done_comment_notice(people):
    return notification_kinds("ada") == ["comment"]


def act_follow(people):
    graph.follow_create(follower=people["cyd"], followee="ada")


def done_follow_notice(people):
    return notification_kinds("ada") == ["follow"]


def act_mention(people):
    post(people["bob"], "hello @ada")


def done_mention_notice(people):
    return notification_kinds("ada") == ["mention"]


def act_mail(people):
    mail.send(
        "ada@example.com", "verify_email", {"name": "Ada", "link": "https://example.com/v/1"}
    )


def done_mail(people):
    return [message.to for message in outbox.outbox] == [["ada@example.com"]]


def act_reset(people):
    # What the reset page queues (profiles/views/recovery.py).
    profile_tasks.password_reset_send.enqueue("ada@example.com", "https://example.com")


KINDS = {
    "timelines.tasks.resync": (act_unfollow, done_unfollow),
    "timelines.tasks.rebuild": (act_rebuild, done_rebuild),
    "timelines.tasks.refresh_post_copies": (act_edit, done_edit),
    "timelines.tasks.refresh_circle_copies": (act_rename, done_rename),
    "comments.tasks.refresh_summary": (act_comment, done_summary),
    "notifications.tasks.tell_comment_created": (act_comment, done_comment_notice),
    "notifications.tasks.tell": (act_follow, done_follow_notice),
    "notifications.tasks.tell_post_created": (act_mention, done_mention_notice),
    "socialsite.mail.deliver": (act_mail, done_mail),
    "profiles.tasks.password_reset_send": (act_reset, done_mail),
}


@pytest.fixture
def people(make_user, settings):
    settings.FEED_MODEL = "cache"
    settings.FEED_EMBED = True  # entries carry copies, which tasks refresh
    ada = make_user("ada", "Ada", email="ada@example.com", email_verified=True)
    bob = make_user("bob", "Bob")
    cyd = make_user("cyd", "Cyd")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=ada, followee="bob")  # a circle holds people one follows
    circles.circle_create(owner=ada, name="pals")
    circles.circle_add_member(owner=User.objects.get(handle="ada"), name="pals", member="bob")
    post(ada, "for pals", circle="pals")
    post(ada, "hello")
    NotificationBucket._get_collection().delete_many({})
    outbox.outbox.clear()
    return {"ada": ada, "bob": bob, "cyd": cyd}


def snapshot() -> dict[str, list]:
    from socialsite.mongo import database

    db = database()
    return {
        name: sorted(map(repr, db[name].find({})))
        for name in db.list_collection_names()
        if name not in LEFT_ALONE
    }


def lease_over() -> None:
    """Every mark's lease ends now (as TASKS_LEASE_SECONDS later)."""
    TaskMark._get_collection().update_many(
        {}, {"$set": {"queued": now() - timedelta(seconds=301)}}
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_lost_task_is_finished_by_the_sweeper_and_a_second_run_changes_nothing(
    kind, people, settings
):
    act, done = KINDS[kind]
    settings.TASKS = DUMMY  # queued, never run: the process died
    act(people)
    marks = list(TaskMark._get_collection().find({"kind": kind}))
    assert len(marks) == 1 and marks[0]["state"] == "pending"  # marked before it was queued
    assert not done(people)

    settings.TASKS = IMMEDIATE
    assert durable.marks_sweep() == (0, 0)  # within its lease: left alone
    lease_over()
    durable.marks_sweep()
    assert done(people)
    assert TaskMark._get_collection().count_documents({"state": "pending"}) == 0

    before, sent = snapshot(), len(outbox.outbox)
    mark = marks[0]
    # The same mark's run again (a process died before deleting the mark).
    import_string(kind).call(*mark["args"], _mark=str(mark["_id"]), **mark["kwargs"])
    assert snapshot() == before
    # Mail is sent at least once (socialsite/mail.py): the same message again.
    if kind not in ("socialsite.mail.deliver", "profiles.tasks.password_reset_send"):
        assert len(outbox.outbox) == sent


def test_a_failing_task_is_retried_then_failed_and_shown(people, settings, monkeypatch, caplog):
    settings.TASKS_MAX_ATTEMPTS = 3
    calls = []

    def broken(*args, **kwargs):
        calls.append(args)
        raise RuntimeError("the disk is full")

    monkeypatch.setattr("socialsite.mail.EmailMultiAlternatives.send", broken)
    settings.TASKS = DUMMY
    mail.send("ada@example.com", "verify_email", {"name": "Ada", "link": "x"})  # run 1 lost
    settings.TASKS = IMMEDIATE
    lease_over()
    durable.marks_sweep()  # run 2 fails
    [mark] = TaskMark._get_collection().find({})
    assert mark["error"] == "RuntimeError: the disk is full" and mark["state"] == "pending"
    for _ in range(2):
        lease_over()
        durable.marks_sweep()  # run 3 fails; then the third attempt is spent
    assert len(calls) == 2  # then no more
    [mark] = TaskMark._get_collection().find({})
    assert mark["state"] == "failed"
    assert "task_failed" in caplog.text
    lease_over()
    assert durable.marks_sweep() == (0, 0)  # never retried for ever

    health = Client().get("/healthz").json()["tasks"]
    assert health["socialsite.mail.deliver"]["failed"] == 1
    [shown] = durable.failed()
    assert shown["kind"] == "socialsite.mail.deliver" and "disk is full" in shown["error"]


def test_healthz_shows_the_backlog_per_kind_and_the_oldest_mark(people, settings):
    settings.TASKS = DUMMY
    act_follow(people)
    act_mention(people)
    TaskMark._get_collection().update_many({}, {"$set": {"created": now() - timedelta(minutes=7)}})
    tasks = Client().get("/healthz").json()["tasks"]
    assert tasks["notifications.tasks.tell"]["pending"] == 1
    assert 419 <= tasks["notifications.tasks.tell"]["oldest"] <= 425
    assert tasks["notifications.tasks.tell_post_created"]["failed"] == 0


def test_the_sweeper_runs_by_itself_as_a_periodic_job(people, settings):
    settings.TASKS = DUMMY
    act_follow(people)
    settings.TASKS = IMMEDIATE
    lease_over()
    assert "socialsite.task_marks" in periodic.run_due(owner="web")
    assert done_follow_notice(people)


def test_an_erasure_takes_the_marks_that_name_the_person(people, settings):
    settings.TASKS = DUMMY
    act_follow(people)
    TaskMark._get_collection().insert_one(
        {"_id": ObjectId(), "kind": "x", "args": ["zed"], "created": now(), "queued": now()}
    )
    assert durable.marks_erase("cyd", 100) == 2  # the follow's resync and notification
    assert [row["args"] for row in TaskMark._get_collection().find({})] == [["zed"]]


def test_the_moderation_dashboard_lists_the_backlog_and_failed_tasks(people, make_user, login):
    TaskMark._get_collection().insert_many(
        [
            {
                "kind": "timelines.tasks.resync",
                "args": ["bob", "ada"],
                "created": now(),
                "queued": now(),
                "attempts": 0,
                "state": "pending",
                "error": "",
            },
            {
                "kind": "socialsite.mail.deliver",
                "args": ["a@b.c"],
                "created": now(),
                "queued": now(),
                "attempts": 5,
                "state": "failed",
                "error": "SMTP refused",
            },
        ]
    )
    page = login(make_user("mod", role="moderator")).get("/mod/").content.decode()
    assert 'data-task-kind="timelines.tasks.resync"' in page
    [failed] = TaskMark._get_collection().find({"state": "failed"})
    assert f'data-failed-task="{failed["_id"]}"' in page and "SMTP refused" in page
