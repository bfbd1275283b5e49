"""Activities from another server, shaped as Mastodon sends them, through
the signed inbox (docs/federation.md#signatures). A refused activity gets a
4xx and leaves nothing behind; a taken one goes through the apps' own
services, so what it makes is what a local person's act would make."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comments.stores import shadows
from federation.documents import ApObject
from feeds.documents import Post
from feeds.services.posts import post_create
from profiles.documents import FollowerEdge, User
from tests.conftest import user
from tests.federation.remote import DOMAIN, FakeRemote

AS = "https://www.w3.org/ns/activitystreams"
PUBLIC = AS + "#Public"
AS2_FAIL = Path(__file__).parent / "as2_fail"


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def public_post(alice):
    return post_create(author=alice, type="status", detail={"text": "hello fediverse"}, circles=[])


def note(remote: FakeRemote, person: str, number: int, **extra: object) -> dict:
    """A Create of a Note, every field as Mastodon 4 writes it."""
    name = person
    actor = remote.actor_id(name)
    note_id = f"{actor}/statuses/{number}"
    obj = {
        "id": note_id,
        "type": "Note",
        "summary": None,
        "inReplyTo": None,
        "published": "2026-11-27T10:00:00Z",
        "url": remote.url(f"/@{name}/{number}"),
        "attributedTo": actor,
        "to": [PUBLIC],
        "cc": [actor + "/followers"],
        "sensitive": False,
        "atomUri": note_id,
        "conversation": f"tag:{DOMAIN},2026-11-27:objectId={number}:objectType=Conversation",
        "content": '<p>Hi <span class="h-card"><a href="http://testserver/u/alice/" '
        'class="u-url mention">@<span>alice</span></a></span> '
        '<a href="https://remote.example/tags/mongo" class="mention hashtag" rel="tag">'
        "#<span>mongo</span></a> see "
        '<a href="https://example.com/a/long/path" rel="nofollow noopener" target="_blank">'
        '<span class="invisible">https://</span><span class="ellipsis">example.com/a/lo</span>'
        '<span class="invisible">ng/path</span></a></p><script>alert(1)</script>',
        "contentMap": {"en": "<p>Hi @alice</p>"},
        "attachment": [],
        "tag": [
            {"type": "Mention", "href": "http://testserver/u/alice/", "name": "@alice@testserver"},
            {"type": "Hashtag", "href": remote.url("/tags/mongo"), "name": "#mongo"},
        ],
        "replies": {"id": note_id + "/replies", "type": "Collection"},
        **extra,
    }
    return {
        "@context": [AS, "https://w3id.org/security/v1"],
        "id": note_id + "/activity",
        "type": "Create",
        "actor": actor,
        "published": obj["published"],
        "to": obj["to"],
        "cc": obj["cc"],
        "object": obj,
    }


def test_follow_is_accepted_and_the_edge_made(remote, alice):
    remote.person("ada")
    follow = {
        "@context": AS,
        "id": remote.url("/12c3f"),
        "type": "Follow",
        "actor": remote.actor_id("ada"),
        "object": "http://testserver/u/alice/",
    }
    assert remote.deliver("ada", follow).status_code == 202
    assert (
        FollowerEdge._get_collection().count_documents({"_f": "alice", "_t": f"ada@{DOMAIN}"}) == 1
    )
    (accept,) = remote.sent("Accept")
    assert (
        accept["object"]["id"] == follow["id"] and accept["actor"] == "http://testserver/u/alice/"
    )
    assert user(f"ada@{DOMAIN}").actor["inbox"] == remote.actor_id("ada") + "/inbox"
    # Sent twice (no answer seen): still one edge.
    assert remote.deliver("ada", follow).status_code == 202
    assert user("alice").followers_count == 1


def test_a_mastodon_note_with_mentions_becomes_a_post_that_notifies(remote, alice):
    response = remote.deliver("ada", note(remote, "ada", 1))
    assert response.status_code == 202, response.content
    post = Post.objects.get(by__id=f"ada@{DOMAIN}")
    text = post.detail["text"]
    assert text.startswith("Hi @alice #mongo see https://example.com/a/long/path")
    assert "alert" not in text and "<" not in text
    assert post.mentions == ["alice"] and post.tags == ["mongo"]
    assert post.url == remote.url("/@ada/1") and post.circles == ["*public*"]
    assert user("alice").notifications_unread == 1
    # The same Create again (a retry): still one post.
    assert remote.deliver("ada", note(remote, "ada", 1)).status_code == 202
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 1


def test_a_note_that_is_not_public_stays_out(remote, alice):
    activity = note(remote, "ada", 2, to=[remote.actor_id("ada") + "/followers"], cc=[])
    assert remote.deliver("ada", activity).status_code == 202
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 0


def test_reply_like_and_announce_land_on_our_post(remote, alice, public_post):
    ours = f"http://testserver/posts/{public_post.id}/"
    reply = note(remote, "ada", 3, inReplyTo=ours, content="<p>Welcome!</p>", tag=[])
    assert remote.deliver("ada", reply).status_code == 202
    like = {
        "@context": AS,
        "id": remote.url("/l1"),
        "type": "Like",
        "actor": remote.actor_id("ada"),
        "object": ours,
    }
    assert remote.deliver("ada", like).status_code == 202
    announce = {
        "@context": AS,
        "id": remote.actor_id("ada") + "/statuses/9/activity",
        "type": "Announce",
        "actor": remote.actor_id("ada"),
        "published": "2026-11-27T10:00:00Z",
        "to": [PUBLIC],
        "cc": ["http://testserver/u/alice/"],
        "object": ours,
    }
    assert remote.deliver("ada", announce).status_code == 202
    post = Post.objects.get(id=public_post.id)
    assert (post.likes_count, post.reposts_count) == (1, 1)
    (comment,) = shadows.primary().last(public_post.id, 5)
    assert comment.text == "Welcome!" and comment.author["id"] == f"ada@{DOMAIN}"
    assert ApObject.objects.get(uri=reply["object"]["id"]).slug == comment.slug
    undo = {
        "@context": AS,
        "id": remote.url("/u1"),
        "type": "Undo",
        "actor": like["actor"],
        "object": like,
    }
    assert remote.deliver("ada", undo).status_code == 202
    assert Post.objects.get(id=public_post.id).likes_count == 0


def test_interactions_with_a_circles_post_are_refused(remote, alice, make_user):
    alice.circles = ["close"]
    secret = post_create(author=alice, type="status", detail={"text": "s"}, circles=["close"])
    ours = f"http://testserver/posts/{secret.id}/"
    like = {
        "@context": AS,
        "id": remote.url("/l2"),
        "type": "Like",
        "actor": remote.actor_id("ada"),
        "object": ours,
    }
    remote.person("ada")
    assert remote.deliver("ada", like).status_code == 422
    reply = note(remote, "ada", 4, inReplyTo=ours, tag=[])
    assert remote.deliver("ada", reply).status_code == 422
    assert Post.objects.get(id=secret.id).likes_count == 0
    assert not ApObject.objects(uri=reply["object"]["id"]).count()


def test_update_of_a_question_sets_its_counts(remote, alice):
    question = note(remote, "ada", 5, type="Question", content="<p>Tea or coffee?</p>", tag=[])
    question["object"]["oneOf"] = [
        {"type": "Note", "name": "Tea", "replies": {"type": "Collection", "totalItems": 0}},
        {"type": "Note", "name": "Coffee", "replies": {"type": "Collection", "totalItems": 0}},
    ]
    question["object"]["endTime"] = "2026-12-30T10:00:00Z"
    assert remote.deliver("ada", question).status_code == 202
    poll = Post.objects.get(by__id=f"ada@{DOMAIN}")
    assert poll.type == "poll" and poll.detail["options"] == ["Tea", "Coffee"]
    question["object"]["oneOf"][1]["replies"]["totalItems"] = 7
    update = {**question, "id": question["id"] + "#updates/1", "type": "Update"}
    assert remote.deliver("ada", update).status_code == 202
    assert Post.objects.get(id=poll.id).detail["votes"] == [0, 7]


def test_update_and_delete_of_a_note_reach_the_post(remote, alice):
    create = note(remote, "ada", 6)
    remote.deliver("ada", create)
    changed = {
        **create["object"],
        "content": "<p>edited words</p>",
        "updated": "2026-11-27T11:00:00Z",
    }
    update = {
        "@context": AS,
        "id": remote.url("/up"),
        "type": "Update",
        "actor": create["actor"],
        "object": changed,
    }
    assert remote.deliver("ada", update).status_code == 202
    post = Post.objects.get(by__id=f"ada@{DOMAIN}")
    assert post.detail["text"] == "edited words" and post.edited
    tomb = {"id": create["object"]["id"], "type": "Tombstone"}
    delete = {
        "@context": AS,
        "id": remote.url("/del"),
        "type": "Delete",
        "actor": create["actor"],
        "object": tomb,
    }
    assert remote.deliver("ada", delete).status_code == 202
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 0


def test_someone_else_cannot_edit_or_delete_a_post(remote, alice):
    create = note(remote, "ada", 7)
    remote.deliver("ada", create)
    remote.person("eve")
    delete = {
        "@context": AS,
        "id": remote.url("/d2"),
        "type": "Delete",
        "actor": remote.actor_id("eve"),
        "object": create["object"]["id"],
    }
    remote.deliver("eve", delete)
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 1


def test_delete_of_an_actor_closes_their_account(remote, alice):
    remote.deliver("ada", note(remote, "ada", 8))
    actor = remote.actor_id("ada")
    delete = {
        "@context": AS,
        "id": actor + "#delete",
        "type": "Delete",
        "actor": actor,
        "to": [PUBLIC],
        "object": actor,
    }
    assert remote.deliver("ada", delete).status_code == 202
    # Erased at once by the immediate task backend; closed before that.
    assert not User.objects(handle=f"ada@{DOMAIN}", status="active").count()
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 0


# --- refused: nothing stored -------------------------------------------------


def _nothing_stored() -> None:
    assert Post.objects(by__id__contains="@").count() == 0
    assert FollowerEdge._get_collection().count_documents({}) == 0


def _follow(remote: FakeRemote) -> bytes:
    remote.person("ada")
    activity = {
        "id": remote.url("/f"),
        "type": "Follow",
        "actor": remote.actor_id("ada"),
        "object": "http://testserver/u/alice/",
    }
    return json.dumps(activity).encode()


def test_unsigned_is_refused(remote, alice):
    response = remote.post(_follow(remote), {"Content-Type": "application/activity+json"})
    assert response.status_code == 401
    _nothing_stored()


def test_signed_with_another_key_is_refused(remote, alice):
    remote.person("eve")
    body = _follow(remote)
    response = remote.post(body, remote.signed("ada", body, key_of="eve"))
    assert response.status_code == 401
    _nothing_stored()


def test_an_old_date_is_refused(remote, alice, monkeypatch):
    body = _follow(remote)
    import socialsite.clock as clock

    real = clock.now
    monkeypatch.setattr(clock, "now", lambda: real() - timedelta(hours=13))
    headers = remote.signed("ada", body)
    monkeypatch.setattr(clock, "now", real)
    assert remote.post(body, headers).status_code == 401
    _nothing_stored()


def test_a_body_changed_after_signing_is_refused(remote, alice):
    body = _follow(remote)
    headers = remote.signed("ada", body)
    tampered = body.replace(b"alice", b"alicf")
    assert remote.post(tampered, headers).status_code == 401
    _nothing_stored()


def test_an_actor_who_is_not_the_signer_is_refused(remote, alice):
    remote.person("eve")
    body = _follow(remote)
    headers = remote.signed("eve", body)
    assert remote.post(body, headers).status_code == 401
    _nothing_stored()


@pytest.mark.parametrize("path", sorted(AS2_FAIL.glob("*.json")), ids=lambda p: p.stem)
def test_known_bad_activity_streams_documents_are_refused(remote, alice, path):
    body = path.read_bytes()
    remote.person("ada")
    response = remote.post(body, remote.signed("ada", body))
    assert 400 <= response.status_code < 500
    _nothing_stored()
    assert not User.objects(domain__ne=None).count() or remote.fetched == []


def test_the_inbox_takes_only_json(client, alice):
    assert (
        client.post("/inbox", data=b"not json", content_type="application/json").status_code == 400
    )


def test_federation_off_closes_every_door(client, alice, settings):
    settings.FEDERATION_ENABLED = False
    for path in (
        "/.well-known/webfinger?resource=acct:alice@testserver",
        "/.well-known/nodeinfo",
        "/u/alice/outbox",
    ):
        assert client.get(path).status_code == 404
    assert client.post("/inbox", data=b"{}", content_type="application/json").status_code == 404
    page = client.get("/u/alice/", headers={"Accept": "application/activity+json"})
    assert page["Content-Type"].startswith("text/html")


# --- hostile activities, signed: the handlers' own input checks ---------------

HOSTILE_TEXT = st.one_of(
    st.sampled_from(
        [
            "",
            "$where",
            "http://testserver/u/alice/",
            "http://testserver/posts/000000000000000000000000/",
            "http://testserver/posts/zz/c/a/b/",
            "https://remote.example/users/ada",
            "https://www.w3.org/ns/activitystreams#Public",
            "\u0000",
            "x" * 3000,
        ]
    ),
    st.text(max_size=40),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=8,
)
KINDS = st.sampled_from(
    [
        "Follow",
        "Accept",
        "Reject",
        "Create",
        "Update",
        "Delete",
        "Like",
        "Announce",
        "Block",
        "Undo",
        "Move",
        "",
    ]
)
OBJECT_KEYS = [
    "id",
    "type",
    "content",
    "inReplyTo",
    "attributedTo",
    "to",
    "cc",
    "tag",
    "oneOf",
    "object",
    "actor",
    "url",
    "attachment",
    "published",
    "summary",
]


@st.composite
def activities(draw):
    obj = draw(
        JSON
        | st.fixed_dictionaries(
            {},
            optional={key: JSON for key in OBJECT_KEYS}
            | {"type": KINDS | st.sampled_from(["Note", "Question", "Person", "Tombstone"])},
        )
    )
    return {
        "id": draw(HOSTILE_TEXT),
        "type": draw(KINDS),
        "actor": "https://remote.example/users/ada",
        "object": obj,
        "to": draw(JSON),
    }


def test_hostile_signed_activities_never_break_the_inbox(remote, alice, public_post):
    """Hypothesis's activities, each signed by a known person: every answer
    is 2xx or 4xx, never a 500 (the sweep of tests/test_hostile_sweep.py
    covers the inbox's form and query parameters; this, its JSON)."""
    remote.person("ada")

    @settings(max_examples=80, derandomize=True, database=None, deadline=None)
    @given(activities())
    def probe(activity):
        body = json.dumps(activity).encode()
        response = remote.post(body, remote.signed("ada", body))
        assert response.status_code < 500, (response.status_code, activity)

    probe()


def test_a_silenced_servers_strangers_are_dropped_and_followed_people_kept(
    remote, alice, make_user, public_post
):
    from federation.documents import DomainRule
    from profiles.services.graph import follow_create

    DomainRule(domain=DOMAIN, level="silence", by="moderator").save()
    assert remote.deliver("ada", note(remote, "ada", 20)).status_code == 202
    like = {
        "id": remote.url("/l9"),
        "type": "Like",
        "actor": remote.actor_id("ada"),
        "object": f"http://testserver/posts/{public_post.id}/",
    }
    remote.deliver("ada", like)
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 0
    assert Post.objects.get(id=public_post.id).likes_count == 0
    follow_create(follower=alice, followee=f"ada@{DOMAIN}")
    assert remote.deliver("ada", note(remote, "ada", 21)).status_code == 202
    assert Post.objects(by__id=f"ada@{DOMAIN}").count() == 1


@pytest.mark.parametrize("store", ["documents", "embedded", "buckets"])
def test_a_remote_reply_to_a_reply_lands_in_every_comment_store(
    remote, alice, public_post, settings, store
):
    settings.COMMENTS_STORE = store
    ours = f"http://testserver/posts/{public_post.id}/"
    first = note(remote, "ada", 30, inReplyTo=ours, content="<p>first</p>", tag=[])
    assert remote.deliver("ada", first).status_code == 202
    second = note(
        remote, "bo", 31, inReplyTo=first["object"]["id"], content="<p>second</p>", tag=[]
    )
    assert remote.deliver("bo", second).status_code == 202
    comments = {c.text: c for c in shadows.primary().last(public_post.id, 5)}
    assert comments["second"].parent_slug == comments["first"].slug
    assert Post.objects.get(id=public_post.id).comments_count == 2


def test_votes_cross_both_ways_as_mastodon_sends_them(remote, alice):
    from feeds.services import polls

    detail = polls.poll_detail(
        question="Tea or coffee?", options=["Tea", "Coffee"], expires_in=3600
    )
    ours = post_create(author=alice, type="poll", detail=detail, circles=[])
    vote = note(
        remote,
        "ada",
        50,
        inReplyTo=f"http://testserver/posts/{ours.id}/",
        content=None,
        name="Coffee",
        tag=[],
    )
    del vote["object"]["content"]
    assert remote.deliver("ada", vote).status_code == 202
    assert Post.objects.get(id=ours.id).detail["votes"] == [0, 1]
    wrong = note(
        remote, "ada", 51, inReplyTo=f"http://testserver/posts/{ours.id}/", name="Milk", tag=[]
    )
    del wrong["object"]["content"]
    assert remote.deliver("ada", wrong).status_code == 422
    # Ours on theirs: a Note naming the option, to the poll's author.
    question = note(remote, "ada", 52, type="Question", content="<p>Cats or dogs?</p>", tag=[])
    question["object"]["oneOf"] = [{"type": "Note", "name": n} for n in ("Cats", "Dogs")]
    question["object"]["endTime"] = "2999-01-01T00:00:00Z"
    remote.deliver("ada", question)
    theirs = Post.objects.get(by__id=f"ada@{DOMAIN}", type="poll")
    polls.poll_vote(post_id=theirs.id, voter="alice", option=1)
    (sent,) = [a for a in remote.sent("Create") if a["object"].get("name")]
    assert sent["object"]["name"] == "Dogs"
    assert sent["object"]["inReplyTo"] == question["object"]["id"]
