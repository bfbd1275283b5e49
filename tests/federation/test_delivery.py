"""Deliveries as durable work (docs/federation.md#delivery): written before
they are queued, retried with backoff while a server is down, failed and
listed after the last attempt, and a down server never holds up another's."""

from datetime import timedelta

import pytest

from federation import delivery, fetch, sending
from federation.documents import Delivery
from feeds.documents import Post
from feeds.services.posts import post_create
from profiles.services.graph import follow_create
from profiles.services.remote import remote_user_upsert
from socialsite import clock


def remote_person(name: str, domain: str):
    actor = f"https://{domain}/users/{name}"
    person, _ = remote_user_upsert(
        handle=f"{name}@{domain}",
        domain=domain,
        name=name,
        bio="",
        actor={"id": actor, "inbox": actor + "/inbox", "key_id": actor + "#k", "public_key": "-"},
    )
    return person


@pytest.fixture
def star(make_user, remote):
    star = make_user("star")
    for name, domain in (("ada", "remote.example"), ("bob", "down.example")):
        follow_create(follower=remote_person(name, domain), followee="star")
    star.reload()
    return star


def pending() -> list[dict]:
    return list(Delivery._get_collection().find({}))


def test_a_public_post_goes_to_each_remote_follower_once(star, remote):
    post_create(author=star, type="status", detail={"text": "hi"}, circles=[])
    assert len(remote.sent("Create")) == 1  # remote.example's follower
    inboxes = {url for url, _ in remote.posted}
    assert inboxes == {"https://remote.example/users/ada/inbox"}
    # down.example refused the connection: its delivery waits, with an error.
    (waiting,) = pending()
    assert waiting["domain"] == "down.example" and waiting["attempts"] == 1
    assert waiting["due"] > clock.now() and "down.example" in waiting["error"]


def test_a_circles_post_never_leaves(star, remote):
    star.circles = ["close"]
    post_create(author=star, type="status", detail={"text": "secret"}, circles=["close"])
    assert remote.posted == [] and pending() == []


def test_a_down_server_is_tried_again_and_gets_it_when_back(star, remote, monkeypatch):
    post_create(author=star, type="status", detail={"text": "hi"}, circles=[])
    (_waiting,) = pending()
    # Not due yet: the sweeper leaves it.
    delivery.deliveries_sweep()
    assert pending()[0]["attempts"] == 1
    later = clock.now() + timedelta(hours=1)
    monkeypatch.setattr(clock, "now", lambda: later)
    monkeypatch.setattr(sending, "now", lambda: later)
    monkeypatch.setattr(delivery, "now", lambda: later)
    remote.down.clear()  # the server is back
    delivery.deliveries_sweep()
    assert pending() == []
    assert {url for url, _ in remote.posted} == {
        "https://remote.example/users/ada/inbox",
        "https://down.example/users/bob/inbox",
    }


def test_after_the_last_attempt_it_is_failed_and_listed(star, remote, settings, monkeypatch):
    settings.FEDERATION_DELIVERY_ATTEMPTS = 2
    post_create(author=star, type="status", detail={"text": "hi"}, circles=[])
    later = clock.now() + timedelta(days=1)
    monkeypatch.setattr(sending, "now", lambda: later)
    monkeypatch.setattr(delivery, "now", lambda: later)
    delivery.deliveries_sweep()
    (failed,) = pending()
    assert failed["state"] == "failed" and failed["attempts"] == 2
    assert delivery.backlog()["down.example"] == {"pending": 0, "failed": 1}
    delivery.deliveries_sweep()  # never again on its own
    assert pending()[0]["attempts"] == 2
    assert delivery.retry_failed(domain="down.example") == 1


def test_a_refusal_drops_it_and_a_5xx_keeps_it(star, remote, monkeypatch):
    statuses = {"remote.example": 403, "down.example": 503, "other.example": 202}
    monkeypatch.setattr(
        fetch, "post_json", lambda url, body, sign=None: statuses[url.split("/")[2]]
    )
    remote_person("cy", "other.example")
    follow_create(follower=type(star).objects.get(handle="cy@other.example"), followee="star")
    Delivery._get_collection().delete_many({})
    post_create(author=star, type="status", detail={"text": "hi"}, circles=[])
    (left,) = pending()
    assert left["domain"] == "down.example" and left["error"] == "HTTP 503"


def test_a_queued_delivery_lost_with_its_process_is_sent_by_the_sweeper(
    star,
    remote,
    settings,
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    post_create(
        author=star, type="status", detail={"text": "queued, then the process died"}, circles=[]
    )
    assert remote.posted == [] and len(pending()) == 2  # marked, never run
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    delivery.deliveries_sweep()
    assert len(remote.sent("Create")) == 1


def test_our_reply_to_a_remote_post_and_its_delete_reach_its_author(remote, make_user):
    """A comment of ours on a remote post goes to its author as a reply
    Note, and its author's own delete of it follows it there."""
    from comments import services as comments
    from tests.federation.test_inbox import note

    alice = make_user("alice")
    assert remote.deliver("ada", note(remote, "ada", 40)).status_code == 202
    post = Post.objects.get(by__id="ada@remote.example")
    comment = comments.comment_create(post=post.to_mongo().to_dict(), author=alice, text="Hi Ada")
    (created,) = remote.sent("Create")
    assert created["object"]["inReplyTo"] == remote.actor_id("ada") + "/statuses/40"
    assert "Hi Ada" in created["object"]["content"]
    comments.comment_delete(post_id=post.id, slug=comment.slug, actor=alice)
    (deleted,) = remote.sent("Delete")
    assert deleted["object"]["id"] == created["object"]["id"]


def test_a_profile_edit_reaches_followers_elsewhere(star, remote):
    from profiles.services.users import profile_update

    profile_update(
        user=star, name="Star Bright", bio="New bio", location="", interests=[], website=""
    )
    (update,) = remote.sent("Update")
    assert update["object"]["type"] == "Person" and update["object"]["name"] == "Star Bright"
    assert update["object"]["publicKey"]["publicKeyPem"].startswith("-----BEGIN PUBLIC KEY")


def test_an_inbox_on_a_private_address_is_dropped_not_retried(star, remote):
    person = remote_person("eve", "sneaky.example")
    type(person).objects(handle=person.handle).update_one(
        set__actor__inbox="http://10.0.0.5/inbox", set__actor__shared_inbox=None
    )
    follow_create(follower=type(person).objects.get(handle=person.handle), followee="star")
    star.reload()
    Delivery._get_collection().delete_many({})
    post_create(author=star, type="status", detail={"text": "hi"}, circles=[])
    assert {d["domain"] for d in pending()} == {"down.example"}  # 10.0.0.5's went
