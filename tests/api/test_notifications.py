"""Notifications through Mastodon.py (docs/api.md#notifications): the
notifications page's selector, with Mastodon's types, filters and paging."""

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError

from api.entities import checks
from comments import services as comments
from feeds.documents import Post
from notifications import services as notifications
from notifications.documents import NotificationBucket
from profiles import services as graph
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client
from tests.notifications.helpers import make_post, stored, unread


def _raw_list(api, query: str = "") -> list[dict]:
    answer = raw(api, "GET", f"/api/v1/notifications{query}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_each_kind_as_mastodons_type_with_filters_and_reads(ann_api, ann, bob, make_user):
    cyd = make_user("cyd", name="Cyd")
    post = make_post(ann, "my first post #tea")
    graph.follow_create(follower=bob, followee="ann")
    stored_post = Post._get_collection().find_one({"_id": post})
    top = comments.comment_create(post=stored_post, author=ann, text="my comment")
    comments.comment_create(post=stored_post, author=bob, text="a reply", parent_slug=top.slug)
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="like", actor="cyd", post_id=post)
    notifications.notify(recipient="ann", kind="repost", actor="bob", post_id=post)
    mention = make_post(bob, "hi @ann")
    make_post(cyd, "on your wall", to="ann")
    assert unread("ann") == 6

    shown = ann_api.notifications()
    assert [(n.type, n.account.acct) for n in shown] == [
        ("mention", "cyd"),  # a post on ann's wall
        ("mention", "bob"),  # a mention
        ("reblog", "bob"),
        ("favourite", "cyd"),  # the like group, by its newest liker
        ("mention", "bob"),  # a reply to ann's comment
        ("follow", "bob"),
    ]
    answered = _raw_list(ann_api)
    for data in answered:
        assert checks.problems(data, checks.NOTIFICATION) == [], data
        assert checks.problems(data["account"], checks.ACCOUNT) == []
        if data["status"] is not None:
            assert checks.problems(data["status"], checks.STATUS) == []
    assert answered[1]["status"]["id"] == str(mention)
    assert answered[2]["status"]["id"] == str(post) == answered[3]["status"]["id"]
    assert answered[5]["status"] is None
    assert answered[3]["group_key"] == f"favourite-{post}"
    # Reading through the API marks nothing read (Mastodon keeps its place with markers).
    assert unread("ann") == 6
    assert ann_api.notifications_unread_count().count == 6

    assert [n.type for n in ann_api.notifications(types=["follow", "favourite"])] == [
        "favourite",
        "follow",
    ]
    assert [n.type for n in ann_api.notifications(exclude_types=["mention", "reblog"])] == [
        "favourite",
        "follow",
    ]
    # A type Mastodon does not know is ignored; only unknown ones ask for nothing.
    assert [n.type for n in ann_api.notifications(types=["follow", "nonsense"])] == ["follow"]
    assert ann_api.notifications(types=["nonsense"]) == []
    assert {n.account.acct for n in ann_api.notifications(account_id="cyd")} == {"cyd"}

    one = ann_api.notifications(id=shown[2].id)
    assert one.type == "reblog" and one.id == shown[2].id and one.status.id == str(post)
    with pytest.raises(MastodonNotFoundError):
        ann_api.notifications(id="1_" + "0" * 24)

    ann_api.notifications_dismiss(shown[2].id)
    assert [n.type for n in ann_api.notifications()][2] == "favourite"
    with pytest.raises(MastodonNotFoundError):
        ann_api.notifications_dismiss(shown[2].id)
    assert unread("ann") == 5
    ann_api.notifications_clear()
    assert ann_api.notifications() == [] and stored("ann") == [] and unread("ann") == 0
    # The page agrees.
    assert login_client(ann).get("/notifications/").status_code == 200


def test_paging_walks_every_notification_once_while_new_ones_arrive(
    ann_api, ann, settings, make_user
):
    settings.NOTIFICATIONS_BUCKET_SIZE = 4  # several buckets, so pages span them
    fans = [make_user(f"fan{i}", name=f"Fan {i}") for i in range(9)]
    for fan in fans:
        graph.follow_create(follower=fan, followee="ann")
    first = ann_api.notifications(limit=4)
    assert [n.account.acct for n in first] == ["fan8", "fan7", "fan6", "fan5"]
    walked = list(first)
    page = first
    while (page := ann_api.fetch_next(page)) is not None and page:
        walked.extend(page)
        graph.follow_create(follower=make_user(f"new{len(walked)}"), followee="ann")
    assert [n.account.acct for n in walked] == [f"fan{i}" for i in range(8, -1, -1)]
    # Back up from the top of the first page: only what arrived since.
    newer = ann_api.fetch_previous(first)
    assert {n.account.acct for n in newer} <= {f"new{i}" for i in range(20)} and newer
    assert [n.id for n in newer] == sorted((n.id for n in newer), reverse=True)
    since = ann_api.notifications(since_id=first[0].id)
    assert {n.id for n in since} == {n.id for n in newer} | {
        n.id for n in ann_api.fetch_previous(newer) or []
    }
    # A junk cursor is a 400 with a JSON error.
    answer = raw(ann_api, "GET", "/api/v1/notifications?max_id=junk")
    assert answer.status_code == 400 and answer.json()["error"]


def test_what_the_page_hides_the_api_hides(ann_api, ann, bob, make_user):
    cyd = make_user("cyd", name="Cyd")
    post = make_post(ann, "a post")
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    notifications.notify(recipient="ann", kind="repost", actor="cyd", post_id=post)
    graph.follow_create(follower=cyd, followee="ann")
    make_post(bob, "hey @ann")
    ids = {n.type: n.id for n in ann_api.notifications()}
    graph.block_create(blocker=ann, blocked="bob")
    assert [(n.type, n.account.acct) for n in ann_api.notifications()] == [
        ("follow", "cyd"),
        ("reblog", "cyd"),
    ]
    with pytest.raises(MastodonNotFoundError):
        ann_api.notifications(id=ids["favourite"])
    graph.mute_create(user=ann, handle="cyd")
    assert ann_api.notifications() == []


def test_tokens_scopes_and_app_tokens(ann_web, app_api, ann):
    for path in ("/api/v1/notifications", "/api/v1/notifications/unread_count"):
        reader = logged_in(ann_web, scopes=["read:notifications"])
        assert raw(reader, "GET", path).status_code == 200
        unscoped = logged_in(ann_web, scopes=["read:statuses"])
        assert raw(unscoped, "GET", path).status_code == 403
        anonymous = raw(reader, "GET", path, headers={"Authorization": ""})
        assert anonymous.status_code == 401 and anonymous.json()["error"]
        assert raw(app_api, "GET", path).status_code == 422
    reader = logged_in(ann_web, scopes=["read"])
    for path in ("/api/v1/notifications/clear", f"/api/v1/notifications/1_{'0' * 24}/dismiss"):
        answer = raw(reader, "POST", path)
        assert answer.status_code == 403 and answer.json()["error"]
        assert raw(app_api, "POST", path).status_code == 422
    with pytest.raises(MastodonAPIError):
        reader.notifications_clear()
    assert NotificationBucket.objects.count() == 0


def test_a_page_costs_the_same_round_trips_whatever_its_length(
    ann_api, ann, make_user, round_trips
):
    def one_of_each(n: int) -> None:
        fan = make_user(f"fan{n}", name=f"Fan {n}")
        post = make_post(ann, f"post {n}")
        graph.follow_create(follower=fan, followee="ann")
        notifications.notify(recipient="ann", kind="like", actor=fan.handle, post_id=post)
        notifications.notify(recipient="ann", kind="repost", actor=fan.handle, post_id=post)
        make_post(fan, f"hi @ann {n}")

    one_of_each(0)
    with round_trips() as few:
        assert len(ann_api.notifications()) == 4
    for n in range(1, 6):
        one_of_each(n)
    with round_trips() as many:
        assert len(ann_api.notifications()) == 24
    # The token and its person, the buckets, the posts, the follow-backs,
    # the actors, the posts' authors, the reader's likes and reposts.
    assert few.total == many.total <= 9, (few.total, many.total)


@pytest.mark.parametrize(
    ("method", "path", "params"),
    [
        ("GET", "/api/v1/notifications", {"max_id[$ne]": "x"}),
        ("GET", "/api/v1/notifications", {"types[]": ["$where", "x" * 5000]}),
        ("GET", "/api/v1/notifications", {"limit": "9" * 40, "since_id": "1_zz"}),
        ("GET", "/api/v1/notifications", {"min_id": "99999999999999999_" + "a" * 24}),
        ("GET", "/api/v1/notifications", {"account_id": "\x00"}),
        ("GET", "/api/v1/notifications/" + "9" * 5000, {}),
        ("GET", "/api/v1/notifications/%24ne", {}),
        ("POST", "/api/v1/notifications/1_zz/dismiss", {}),
        ("GET", "/api/v1/notifications/unread_count", {"limit": "-5"}),
        ("GET", "/api/v1/conversations", {"max_id": "../x", "limit": "²"}),
        ("GET", "/api/v1/conversations", {"min_id[$gt]": ""}),
        ("POST", "/api/v1/conversations/%00/read", {}),
        ("DELETE", "/api/v1/conversations/" + "f" * 24, {}),
        ("POST", "/api/v1/statuses", {"visibility": "direct", "status": {"$ne": 1}}),
        ("POST", "/api/v1/statuses", {"visibility": "direct", "status": "@" + "a" * 3000}),
    ],
)
def test_hostile_parameters_get_a_json_4xx(ann_api, method, path, params):
    """Refused with a JSON 4xx, or (an operator where a value belongs, a
    type nobody knows, a negative limit) simply not read: never a 5xx."""
    kwargs = {"json": params} if method != "GET" else {"params": params}
    answer = raw(ann_api, method, path, **kwargs)
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    if answer.status_code >= 400:
        assert answer.json()["error"]
    else:
        assert answer.json() in ([], {"count": 0}), answer.text[:300]
