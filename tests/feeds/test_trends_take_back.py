"""Trends take back what is gone (docs/discovery.md#trends): a post removed
by a moderator, deleted by its author, or edited to drop a tag stops
counting on `/explore/` at once; a restore counts it again. Uses stay one
per (tag, hour, author): one author's second post in the hour is not a
second use, and the use lasts while one of the posts does."""

import re
from datetime import timedelta

from django.test import Client

from explore.documents import TagUse
from explore.services import tag_uses_take_back
from feeds.services import posts
from profiles.services import erasure, erasure_walk
from socialsite.clock import now
from tests.conftest import user

TREND = re.compile(r'<li class="trend" data-tag="([^"]+)" data-authors="(\d+)"')


def post(handle: str, text: str, **kwargs):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=[], **kwargs
    )


def explore() -> dict[str, int]:
    """The trends a visitor sees: {tag: today's authors}."""
    page = Client().get("/explore/").content.decode()
    return {tag: int(authors) for tag, authors in TREND.findall(page)}


def test_a_removed_post_stops_counting_and_a_restore_counts_it_again(make_user, login):
    make_user("ada")
    make_user("bob")
    mod = login(make_user("mod", role="moderator"))
    removed = post("ada", "Look #hot")
    post("bob", "Me too #hot")
    assert explore()["hot"] == 2
    act = {"key": f"post:{removed.id}", "action": "remove"}
    assert mod.post("/mod/act/", act).status_code == 302
    assert explore()["hot"] == 1
    assert TagUse.objects(tag="hot", author="ada").count() == 0
    assert mod.post("/mod/act/", {**act, "action": "restore"}).status_code == 302
    assert explore()["hot"] == 2
    use = TagUse.objects.get(tag="hot", author="ada")
    assert use.posts == [removed.id] and use.hour == removed.ts.replace(
        minute=0, second=0, microsecond=0
    )


def test_a_post_deleted_by_its_author_stops_counting(make_user, login):
    make_user("ada")
    gone = post("ada", "Briefly #oops")
    assert explore() == {"oops": 1}
    assert login(user("ada")).post(f"/posts/{gone.id}/delete/").status_code == 302
    assert "oops" not in explore()
    assert TagUse.objects(tag="oops").count() == 0


def test_an_edit_dropping_a_tag_takes_it_back_and_one_adding_a_tag_counts_at_the_posts_hour(
    make_user, login
):
    make_user("ada")
    hours_ago = now() - timedelta(hours=3)
    edited = post("ada", "About #first and #kept", ts=hours_ago)
    assert explore() == {"first": 1, "kept": 1}
    ada = login(user("ada"))
    response = ada.post(f"/posts/{edited.id}/edit/", {"text": "About #kept and #later"})
    assert response.status_code == 302
    assert explore() == {"kept": 1, "later": 1}
    assert TagUse.objects(tag="first").count() == 0
    later = TagUse.objects.get(tag="later")
    assert later.hour == edited.ts.replace(minute=0, second=0, microsecond=0) and later.posts == [
        edited.id
    ]
    assert TagUse.objects.get(tag="kept").posts == [edited.id]


def test_two_posts_in_one_hour_are_one_use_until_both_are_gone(make_user, login):
    make_user("ada")
    make_user("bob")
    at = now()  # both in one hour, however the clock turns meanwhile
    first, second = post("ada", "One #twice", ts=at), post("ada", "Two #twice", ts=at)
    post("bob", "And #twice")
    assert explore()["twice"] == 2
    assert TagUse.objects.get(tag="twice", author="ada").posts == [first.id, second.id]
    ada = login(user("ada"))
    assert ada.post(f"/posts/{first.id}/delete/").status_code == 302
    assert explore()["twice"] == 2  # her other post still carries it
    assert TagUse.objects.get(tag="twice", author="ada").posts == [second.id]
    assert ada.post(f"/posts/{second.id}/delete/").status_code == 302
    assert explore()["twice"] == 1
    assert TagUse.objects(tag="twice", author="ada").count() == 0


def test_a_racing_record_of_another_post_survives_a_take_back(make_user, monkeypatch):
    """The delete's filter asks for an empty use: a post recorded between
    the pull and the delete keeps it."""
    make_user("ada")
    at = now()
    first = post("ada", "One #race", ts=at)
    collection = TagUse._get_collection()
    real_delete_many, recorded = collection.delete_many, []

    def record_first(query, *args, **kwargs):  # the other post lands in between
        if not recorded:
            recorded.append(post("ada", "Two #race", ts=at))
        return real_delete_many(query, *args, **kwargs)

    monkeypatch.setattr(collection, "delete_many", record_first)
    tag_uses_take_back(posts=[posts.Post._get_collection().find_one({"_id": first.id})])
    assert TagUse.objects.get(tag="race").posts == [recorded[0].id]
    assert explore() == {"race": 1}


def test_an_erasure_takes_back_the_posts_others_wrote_on_the_wall(make_user, settings):
    """The erased person's uses go whole; a post someone else wrote on their
    wall was that someone's use, and goes with the post."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    for handle in ("ann", "bob"):
        make_user(handle)
    zed = make_user("zed")
    post("ann", "For you #wall", to="zed")
    post("bob", "Elsewhere #wall")
    post("zed", "Mine #wall")
    assert explore() == {"wall": 3}
    erasure.erasure_begin(user=zed)
    assert erasure_walk.erasure_run("zed")
    assert explore() == {"wall": 1}
    assert [use.author for use in TagUse.objects(tag="wall")] == ["bob"]
