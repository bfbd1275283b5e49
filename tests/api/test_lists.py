"""Lists through Mastodon.py (docs/api.md#lists): the reader's circles,
created, renamed and deleted, their members placed and taken out, by the
circles page's services; a list id survives a rename."""

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError

from api.circles import list_ids_erase
from api.documents import CircleListId
from api.entities import checks
from profiles import services as graph
from profiles.documents import User
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client


def test_lists_are_circles_with_ids_that_survive_a_rename(ann_api, ann, bob, make_user):
    cat = make_user("cat")
    created = ann_api.list_create("Close friends")
    assert checks.problems(dict(created), checks.LIST_ENTITY) == []
    assert created.title == "Close friends" and created.replies_policy == "list"
    assert User.objects.get(handle="ann").circles == ["Close friends"]
    # A circle named on its page gets an id the first time the API reads it.
    graph.circle_create(owner=User.objects.get(handle="ann"), name="Work / play"[:4])
    listed = ann_api.lists()
    assert [x.title for x in listed] == ["Close friends", "Work"]
    assert listed[0].id == created.id
    assert ann_api.list(created.id).title == "Close friends"

    # Members: people Ann follows only, as the page refuses and Mastodon requires.
    ann_api.account_follow("cat")
    with pytest.raises(MastodonAPIError) as refused:
        ann_api.list_accounts_add(created.id, ["cat", "bob"])
    assert refused.value.args[1] == 422 and "Follow @bob first" in refused.value.args[-1]
    assert ann_api.list_accounts(created.id) == []  # all of them or none
    ann_api.account_follow("bob")
    ann_api.list_accounts_add(created.id, ["bob", "cat"])
    assert [a.acct for a in ann_api.list_accounts(created.id)] == ["bob", "cat"]
    first = ann_api.list_accounts(created.id, limit=1)
    assert [a.acct for a in first] == ["bob"]
    assert [a.acct for a in ann_api.fetch_next(first)] == ["cat"]
    assert [x.title for x in ann_api.account_lists("bob")] == ["Close friends"]
    assert ann_api.account_lists(cat.handle)[0].id == created.id

    # A rename (through the API, or on the page) keeps the id.
    renamed = ann_api.list_update(created.id, "Inner circle")
    assert renamed.id == created.id and renamed.title == "Inner circle"
    graph.circle_rename(owner=User.objects.get(handle="ann"), old="Inner circle", new="Core")
    assert ann_api.list(created.id).title == "Core"
    assert [a.acct for a in ann_api.list_accounts(created.id)] == ["bob", "cat"]
    with pytest.raises(MastodonAPIError) as clash:
        ann_api.list_update(created.id, "work")
    assert clash.value.args[1] == 422

    ann_api.list_accounts_delete(created.id, ["cat"])
    assert [a.acct for a in ann_api.list_accounts(created.id)] == ["bob"]
    assert ann_api.account_lists("cat") == []
    assert ann_api.account_relationships(["cat"])[0].following is True  # the follow stays

    # Someone else's list is a 404, as a deleted one's and a malformed id.
    bob_api = logged_in(login_client(bob))
    for list_id in (created.id, "0" * 24, "nope", "a[$ne]"):
        with pytest.raises(MastodonNotFoundError):
            bob_api.list(list_id)
    with pytest.raises(MastodonNotFoundError):
        bob_api.list_accounts_add(created.id, ["ann"])

    ann_api.list_delete(created.id)
    assert User.objects.get(handle="ann").circles == ["Work"]
    with pytest.raises(MastodonNotFoundError):
        ann_api.list(created.id)
    assert [x.title for x in ann_api.lists()] == ["Work"]
    assert CircleListId.objects(owner="ann").count() == 1
    assert list_ids_erase("ann", 100) == 1  # erasure (api/owners.py)
    assert not CircleListId.objects(owner="ann")

    # Validation: a blank or bad name is the page's 422.
    for title in ("", "x" * 31, "!bang"):
        answer = raw(ann_api, "POST", "/api/v1/lists", data={"title": title})
        assert answer.status_code == 422 and "error" in answer.json()


def test_lists_need_a_person_and_their_scopes(ann_api, ann_web, app_api):
    created = ann_api.list_create("Family")
    paths = [
        ("GET", "/api/v1/lists"),
        ("POST", "/api/v1/lists"),
        ("GET", f"/api/v1/lists/{created.id}"),
        ("PUT", f"/api/v1/lists/{created.id}"),
        ("DELETE", f"/api/v1/lists/{created.id}"),
        ("GET", f"/api/v1/lists/{created.id}/accounts"),
        ("POST", f"/api/v1/lists/{created.id}/accounts"),
        ("DELETE", f"/api/v1/lists/{created.id}/accounts"),
        ("GET", "/api/v1/accounts/ann/lists"),
    ]
    reader = logged_in(ann_web, scopes=["read:accounts"])
    writer_only = logged_in(ann_web, scopes=["read:lists"])
    for method, path in paths:
        nobody = raw(ann_api, method, path, headers={"Authorization": ""})
        assert nobody.status_code == 401, (method, path)
        assert raw(app_api, method, path).status_code == 422, (method, path)
        assert raw(reader, method, path).status_code == 403, (method, path)
        if method != "GET":
            assert raw(writer_only, method, path).status_code == 403, (method, path)
    # Nothing changed by the refusals.
    assert [x.title for x in ann_api.lists()] == ["Family"]
    # Hostile: operator injection in the members' ids, junk cursors.
    answer = raw(ann_api, "POST", f"/api/v1/lists/{created.id}/accounts?account_ids[$ne]=x")
    assert answer.status_code == 422 and answer.json()["error"]
    answer = raw(ann_api, "GET", f"/api/v1/lists/{created.id}/accounts?max_id[$gt]=&limit=9999")
    assert answer.status_code == 200 and answer.json() == []
