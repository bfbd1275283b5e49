"""The visibility matrix (docs/privacy.md) through the client API's
notifications and conversations (docs/api.md#notifications,
docs/api.md#conversations), beside tests/feeds/test_visibility.py: a
circle post one is taken out of, a removed post, a blocked or muted person,
a filtered word, a conversation one is not in. What the pages hide, the API
hides; what is not shown is not found."""

from mastodon import MastodonNotFoundError

from feeds.documents import Post
from feeds.services import removals
from messaging import services as messaging
from notifications import services as notifications
from profiles import services as graph
from profiles.documents import User
from profiles.services.filters import keyword_filter_create
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client
from tests.notifications.helpers import make_post


def _listed(api) -> list[tuple[str, str, str | None]]:
    return [
        (n.type, n.account.acct, n.status.id if n.status else None) for n in api.notifications()
    ]


def test_notifications_follow_circles_removals_blocks_mutes_and_filters(ann, bob, make_user):
    cyd, dan = make_user("cyd", name="Cyd"), make_user("dan", name="Dan")
    graph.follow_create(follower=bob, followee="ann")  # bob follows ann: his circle may hold her
    graph.circle_create(owner=bob, name="pals")
    graph.circle_add_member(owner=bob, name="pals", member="ann")
    notifications.notifications_clear(owner="ann")  # bob's follow: not what this is about
    in_circle = make_post(bob, "just us @ann", circles=["pals"])
    public = make_post(cyd, "hello @ann")
    durian = make_post(dan, "durian for @ann")
    ann_api = logged_in(login_client(ann))
    assert _listed(ann_api) == [
        ("mention", "dan", str(durian)),
        ("mention", "cyd", str(public)),
        ("mention", "bob", str(in_circle)),
    ]
    ids = {n.account.acct: n.id for n in ann_api.notifications()}

    # A warn filter folds it, with the filter named; a hide filter drops it.
    ann_doc = User.objects.get(handle="ann")
    keyword_filter_create(
        user=ann_doc, phrase="durian", contexts=["notifications"], action="warn", expires_in=None
    )
    warned = raw(ann_api, "GET", "/api/v1/notifications").json()[0]
    assert warned["status"]["filtered"][0]["keyword_matches"] == ["durian"]
    keyword_filter_create(
        user=User.objects.get(handle="ann"),
        phrase="hello",
        contexts=["notifications"],
        action="hide",
        expires_in=None,
    )
    # Taken out of the circle: the post, and its notification, are gone.
    graph.circle_remove_member(owner=bob, name="pals", member="ann")
    assert _listed(ann_api) == [("mention", "dan", str(durian))]
    for gone in ("bob", "cyd"):
        try:
            ann_api.notifications(id=ids[gone])
        except MastodonNotFoundError:
            continue
        raise AssertionError(f"{gone}'s notification is still found")
    assert raw(ann_api, "POST", f"/api/v1/notifications/{ids['bob']}/dismiss").status_code == 404

    # A post a moderator removed, then a blocked and a muted person.
    removals.post_removal_set(post_id=Post.objects.get(id=durian).id, by="mod", reason="x")
    assert _listed(ann_api) == []
    removals.post_removal_clear(post_id=Post.objects.get(id=durian).id)
    assert [n[1] for n in _listed(ann_api)] == ["dan"]
    graph.follow_create(follower=dan, followee="ann")
    graph.mute_create(user=User.objects.get(handle="ann"), handle="dan")
    assert _listed(ann_api) == []
    graph.mute_delete(user=User.objects.get(handle="ann"), handle="dan")
    assert [n[0] for n in _listed(ann_api)] == ["follow", "mention"]
    graph.block_create(blocker=User.objects.get(handle="ann"), blocked="dan")
    assert _listed(ann_api) == []


def test_conversations_across_a_block_and_to_strangers(ann, bob, make_user):
    cyd = make_user("cyd", name="Cyd")
    group = messaging.conversation_start(sender=bob, to=["ann", "cyd"], text="hi both")
    ann_api = logged_in(login_client(ann))
    [listed] = ann_api.conversations()
    assert "hi both" in listed.last_status.content
    # Ann blocks bob: his messages leave her pages, and the API's.
    graph.block_create(blocker=User.objects.get(handle="ann"), blocked="bob")
    [listed] = ann_api.conversations()
    assert listed.last_status is None
    read = ann_api.conversations_read(group)
    assert read.last_status is None
    # Nor can bob (blocked) write to her directly, and she cannot write to him.
    bob_api = logged_in(login_client(bob))
    answer = raw(
        bob_api, "POST", "/api/v1/statuses", data={"status": "@ann x", "visibility": "direct"}
    )
    assert answer.status_code == 422 and "can't write to @ann" in answer.json()["error"]
    answer = raw(
        ann_api, "POST", "/api/v1/statuses", data={"status": "@bob x", "visibility": "direct"}
    )
    assert answer.status_code == 422 and "You blocked @bob" in answer.json()["error"]
    # A conversation one is not in is a 404, as an unknown one.
    dan_api = logged_in(login_client(make_user("dan")))
    assert dan_api.conversations() == []
    for method, path in (
        ("POST", f"/api/v1/conversations/{group}/read"),
        ("DELETE", f"/api/v1/conversations/{group}"),
    ):
        assert raw(dan_api, method, path).status_code == 404
    assert [c.id for c in logged_in(login_client(cyd)).conversations()] == [str(group)]
