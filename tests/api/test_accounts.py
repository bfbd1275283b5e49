"""Accounts through Mastodon.py (docs/api.md#accounts): the same selectors
and services as the profile pages, in Mastodon's entity shapes."""

import pytest
from mastodon import MastodonNotFoundError

from api.entities import checks
from profiles.documents import User
from profiles.services import block_create
from tests.api.conftest import BASE, raw, session_for


def test_verify_credentials_is_the_credential_account(ann_api):
    me = raw(ann_api, "GET", "/api/v1/accounts/verify_credentials").json()
    assert checks.problems(me, checks.CREDENTIAL_ACCOUNT) == []
    assert checks.problems(me["source"], checks.SOURCE) == []
    assert me["url"] == f"{BASE}/u/ann/" and me["avatar"].startswith(BASE)
    assert ann_api.account_verify_credentials().username == "ann"


def test_update_credentials_goes_through_the_profile_service(ann_api):
    updated = ann_api.account_update_credentials(display_name="Ann E.", note="Likes <b>tea</b>")
    assert updated.display_name == "Ann E."
    assert updated.note == "<p>Likes &lt;b&gt;tea&lt;/b&gt;</p>"
    assert updated.source.note == "Likes <b>tea</b>"
    stored = User.objects.get(handle="ann")
    assert stored.name == "Ann E." and stored.profile.bio == "Likes <b>tea</b>"
    assert "ann" in stored.name_terms or "e" in stored.name_terms  # the search terms follow


def test_update_credentials_holds_the_pages_rules(ann_api):
    answer = raw(ann_api, "PATCH", "/api/v1/accounts/update_credentials", data={"note": "x" * 501})
    assert answer.status_code == 422 and "error" in answer.json()
    assert (
        raw(
            ann_api, "PATCH", "/api/v1/accounts/update_credentials", data={"display_name": " "}
        ).status_code
        == 422
    )


def test_an_account_by_its_handle_and_by_lookup(ann_api, bob):
    account = raw(ann_api, "GET", "/api/v1/accounts/bob").json()
    assert checks.problems(account, checks.ACCOUNT) == []
    assert "source" not in account
    assert ann_api.account("bob").display_name == "Bob Builder"
    assert ann_api.account_lookup("bob").id == "bob"
    assert ann_api.account_lookup("@bob@testserver").id == "bob"
    with pytest.raises(MastodonNotFoundError):
        ann_api.account_lookup("bob@elsewhere.example")


@pytest.mark.parametrize("status", ["suspended", "erasing"])
def test_suspended_and_erased_accounts_are_404(ann_api, bob, status):
    User.objects(handle="bob").update_one(set__status=status)
    for path in ("/api/v1/accounts/bob", "/api/v1/accounts/lookup?acct=bob"):
        answer = raw(ann_api, "GET", path)
        assert answer.status_code == 404 and answer.json() == {"error": "Record not found"}
    assert raw(ann_api, "GET", "/api/v1/accounts/nobody").status_code == 404


def test_public_account_reads_need_no_token(bob):
    answer = session_for().get(f"{BASE}/api/v1/accounts/bob")
    assert answer.status_code == 200 and answer.json()["id"] == "bob"


def test_follow_unfollow_and_relationships(ann_api, bob):
    rel = ann_api.account_follow("bob")
    assert rel.following is True and rel.followed_by is False
    assert (
        checks.problems(
            raw(ann_api, "POST", "/api/v1/accounts/bob/follow").json(), checks.RELATIONSHIP
        )
        == []
    )
    assert ann_api.account("bob").followers_count == 1
    [rel] = ann_api.account_relationships(["bob"])
    assert rel.id == "bob" and rel.following is True
    assert ann_api.account_unfollow("bob").following is False
    assert ann_api.account_relationships(["bob", "nobody", "BAD!"])[0].following is False


def test_block_and_mute_through_the_pages_services(ann_api, bob):
    assert ann_api.account_block("bob").blocking is True
    assert [a.id for a in ann_api.blocks()] == ["bob"]
    assert ann_api.account_unblock("bob").blocking is False
    assert ann_api.blocks() == []
    assert ann_api.account_mute("bob").muting is True
    assert [a.id for a in ann_api.mutes()] == ["bob"]
    assert ann_api.account_unmute("bob").muting is False


def test_blocked_by_shows_who_blocked_the_reader(ann_api, bob):
    block_create(blocker=bob, blocked="ann")
    [rel] = ann_api.account_relationships(["bob"])
    assert rel.blocked_by is True and rel.following is False
    # As the profile page: the account is still there to see.
    assert ann_api.account("bob").id == "bob"


def test_a_person_cannot_follow_themselves(ann_api):
    answer = raw(ann_api, "POST", "/api/v1/accounts/ann/follow")
    assert answer.status_code == 422 and "error" in answer.json()


def test_followers_page_with_the_link_header_and_fetch_next(ann_api, bob, make_user):
    names = [f"fan{i}" for i in range(5)]
    for name in names:
        fan = make_user(name)
        from profiles.services import follow_create

        follow_create(follower=fan, followee="bob", circles=[], target=bob)
    first = ann_api.account_followers("bob", limit=2)
    assert [a.id for a in first] == names[:2]
    answer = raw(ann_api, "GET", "/api/v1/accounts/bob/followers?limit=2")
    assert answer.headers["Link"] == (
        f'<{BASE}/api/v1/accounts/bob/followers?limit=2&max_id=fan1>; rel="next", '
        f'<{BASE}/api/v1/accounts/bob/followers?limit=2&min_id=fan0>; rel="prev"'
    )
    second = ann_api.fetch_next(first)
    assert [a.id for a in second] == names[2:4]
    third = ann_api.fetch_next(second)
    assert [a.id for a in third] == names[4:]
    assert ann_api.fetch_next(third) is None
    back = ann_api.fetch_previous(third)
    assert [a.id for a in back] == names[2:4]
    assert [a.id for a in ann_api.account_following("fan0")] == ["bob"]


def test_lists_cost_a_few_round_trips_whatever_their_length(ann_api, bob, make_user, round_trips):
    from profiles.services import follow_create

    for i in range(30):
        follow_create(follower=make_user(f"p{i:02d}"), followee="bob", circles=[], target=bob)
    ann_api.account_verify_credentials()
    with round_trips() as trips:
        assert len(ann_api.account_followers("bob", limit=40)) == 30
    # The token with its person, the person whose list it is, the edges, the accounts.
    assert trips.total <= 4
