"""What another server (an anonymous reader) may read of us as ActivityPub
(docs/federation.md#ids): a person, their public posts and comments, their
outbox; never a circles post, a removed post, a suspended author's posts or
comments, a deleted comment, nor anything of a person of another server."""

import pytest

from comments import services as comments
from feeds.services.posts import post_create
from moderation.services.content import post_remove
from moderation.services.users import user_suspend
from moderation.targets import Target

AP = {"Accept": 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'}


@pytest.fixture
def cast(make_user, settings):
    settings.SITE_URL = "http://testserver"
    alice, bob, mod = make_user("alice"), make_user("bob"), make_user("mod", role="moderator")
    alice.circles = ["close"]
    public = post_create(author=alice, type="status", detail={"text": "hello #mongo"}, circles=[])
    secret = post_create(author=alice, type="status", detail={"text": "s"}, circles=["close"])
    comment = comments.comment_create(post=public.to_mongo().to_dict(), author=bob, text="hi!")
    return alice, bob, mod, public, secret, comment


def test_discovery_and_documents(client, cast, monkeypatch):
    from federation import views

    monkeypatch.setattr(views, "_usage", {})  # NodeInfo's counts, kept ten minutes per process
    _alice, _, _, public, _, comment = cast
    finger = client.get("/.well-known/webfinger", {"resource": "acct:alice@testserver"}).json()
    assert finger["links"][0]["href"] == "http://testserver/u/alice/"
    assert (
        client.get("/.well-known/webfinger", {"resource": "acct:alice@else.example"}).status_code
        == 404
    )
    person = client.get("/u/alice/", headers=AP)
    assert person["Content-Type"] == "application/activity+json" and person["Vary"] == "Accept"
    assert person.json()["publicKey"]["owner"] == "http://testserver/u/alice/"
    assert "Accept" in client.get("/u/alice/")["Vary"]  # the page says it varies too
    note = client.get(f"/posts/{public.id}/", headers=AP).json()
    assert note["type"] == "Note" and note["tag"][0]["name"] == "#mongo"
    reply = client.get(f"/posts/{public.id}/c/{comment.slug}/", headers=AP).json()
    assert reply["inReplyTo"] == f"http://testserver/posts/{public.id}/"
    outbox = client.get("/u/alice/outbox", {"page": "1"}).json()
    assert [item["object"]["id"] for item in outbox["orderedItems"]] == [note["id"]]
    assert client.get("/nodeinfo/2.0").json()["usage"]["users"]["total"] == 3


def test_what_is_never_served(client, cast):
    _alice, _bob, mod, public, secret, comment = cast
    assert client.get(f"/posts/{secret.id}/", headers=AP).status_code == 404  # circles
    user_suspend(moderator=mod, target=Target(type="user", id="bob"), reason="spam")
    assert client.get(f"/posts/{public.id}/c/{comment.slug}/", headers=AP).status_code == 404
    post_remove(moderator=mod, target=Target(type="post", id=str(public.id)))
    assert client.get(f"/posts/{public.id}/", headers=AP).status_code == 404  # removed
    assert client.get("/u/alice/outbox", {"page": "1"}).json()["orderedItems"] == []
    user_suspend(moderator=mod, target=Target(type="user", id="alice"), reason="spam")
    assert client.get("/u/alice/", headers=AP).status_code == 404
    assert client.get("/u/nobody/", headers=AP).status_code == 404
    assert client.get("/posts/zz/", headers=AP).status_code == 404
