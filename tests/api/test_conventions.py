"""The convention every API view follows (docs/api.md#conventions): tokens
and scopes, JSON errors only, no session, CORS on the API alone, the
parameters wherever the client put them, rate-limit headers."""

import pytest
from django.test import Client
from mastodon import MastodonRatelimitError, MastodonUnauthorizedError

from tests.api.conftest import BASE, logged_in, mastodon, raw, session_for


def test_no_token_is_401_json():
    answer = session_for().get(f"{BASE}/api/v1/accounts/verify_credentials")
    assert answer.status_code == 401
    assert answer.json() == {"error": "The access token is invalid"}
    with pytest.raises(MastodonUnauthorizedError):
        mastodon().account_verify_credentials()


def test_an_unknown_token_is_401_even_where_none_is_needed(ann):
    answer = session_for().get(
        f"{BASE}/api/v1/accounts/ann", headers={"Authorization": "Bearer nope"}
    )
    assert answer.status_code == 401 and answer.json()["error"] == "The access token is invalid"
    assert session_for().get(f"{BASE}/api/v1/accounts/ann").status_code == 200


def test_a_token_without_the_scope_is_403(ann_web, bob):
    reader = logged_in(ann_web, scopes=["read"])
    assert reader.account("bob").id == "bob"
    answer = raw(reader, "POST", "/api/v1/accounts/bob/follow")
    assert answer.status_code == 403
    assert answer.json() == {"error": "This action is outside the authorized scopes"}


def test_granular_scopes_cover_only_their_part(ann_web, bob):
    follower = logged_in(ann_web, scopes=["write:follows", "read:accounts"])
    assert follower.account_follow("bob").following is True
    assert raw(follower, "POST", "/api/v1/accounts/bob/block").status_code == 403
    assert raw(follower, "GET", "/api/v1/blocks").status_code == 403


def test_an_app_token_where_a_person_is_needed_is_422(app_api):
    answer = raw(app_api, "GET", "/api/v1/accounts/verify_credentials")
    assert answer.status_code == 422
    assert answer.json() == {"error": "This method requires an authenticated user"}


def test_a_bearer_request_neither_reads_nor_writes_the_session(ann_api, bob, round_trips):
    adapter = ann_api.session.get_adapter(BASE)
    # The app's transport has a browser's session cookie too: it must not count.
    adapter.client.cookies.update(Client().cookies)
    with round_trips() as trips:
        ann_api.account_follow("bob")
        ann_api.account_verify_credentials()
    assert "session" not in {trip.collection for trip in trips.trips}
    for answer in adapter.responses[-2:]:
        assert "Set-Cookie" not in answer, answer.items()
        assert not answer.cookies


def test_a_bearer_request_needs_no_csrf_token(ann_api, bob):
    adapter = ann_api.session.get_adapter(BASE)
    adapter.client.handler.enforce_csrf_checks = True
    assert ann_api.account_follow("bob").following is True


def test_a_cookie_never_authenticates_an_api_request(ann_web):
    """The consent page's session is no API credential (the API takes no
    CSRF token, so a cookie there could be forged by any site)."""
    answer = ann_web.get("/api/v1/accounts/verify_credentials", secure=True)
    assert answer.status_code == 401


def test_the_token_read_is_one_round_trip(ann_api, round_trips):
    ann_api.account_verify_credentials()  # the first use may note `last_used`
    with round_trips() as trips:
        ann_api.account_verify_credentials()
    assert trips.total == 1


def test_unknown_api_urls_and_methods_answer_json(ann_api):
    unknown = raw(ann_api, "GET", "/api/v1/nothing/here")
    assert unknown.status_code == 404 and unknown.json() == {"error": "Record not found"}
    wrong = raw(ann_api, "GET", "/api/v1/accounts/ann/follow")
    assert wrong.status_code == 405 and "error" in wrong.json()
    assert "POST" in wrong.headers["Allow"]
    deleted = raw(ann_api, "DELETE", "/api/v1/instance")
    assert deleted.status_code == 405 and deleted.headers["Content-Type"] == "application/json"


def test_a_trailing_slash_is_the_same_path(ann_api):
    assert raw(ann_api, "GET", "/api/v1/instance/").json()["version"].startswith("4.3.0")


def test_an_error_inside_a_view_is_a_json_500(ann_api, monkeypatch):
    from api.views import instance

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(instance, "instance_v1", broken)
    client = ann_api.session.get_adapter(BASE).client
    client.raise_request_exception = False
    answer = raw(ann_api, "GET", "/api/v1/instance")
    assert answer.status_code == 500 and answer.json() == {"error": "Internal server error"}


def test_cors_is_open_on_the_api_and_closed_on_pages(ann):
    client = Client()
    origin = {"Origin": "https://elsewhere.example"}
    api = client.get("/api/v1/instance", headers=origin, secure=True)
    assert api["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in api
    assert "Link" in api["Access-Control-Expose-Headers"]
    preflight = client.options(
        "/oauth/token",
        headers={**origin, "Access-Control-Request-Method": "POST"},
        secure=True,
    )
    assert preflight.status_code == 200 and preflight["Access-Control-Allow-Origin"] == "*"
    for page in ("/u/ann/", "/accounts/login/", "/oauth/authorize"):
        assert "Access-Control-Allow-Origin" not in client.get(page, headers=origin, secure=True)


def test_parameters_come_from_query_form_and_json_alike(ann_api, bob, make_user):
    make_user("cat")
    ann_api.account_follow("bob")
    ann_api.account_follow("cat")
    by_query = raw(ann_api, "GET", "/api/v1/accounts/relationships?id[]=bob&id[]=cat").json()
    by_form = raw(
        ann_api, "GET", "/api/v1/accounts/relationships", params=[("id", "bob"), ("id", "cat")]
    ).json()
    assert [r["id"] for r in by_query] == [r["id"] for r in by_form] == ["bob", "cat"]
    patched = raw(
        ann_api, "PATCH", "/api/v1/accounts/update_credentials", json={"display_name": "Annie"}
    )
    assert patched.status_code == 200 and patched.json()["display_name"] == "Annie"
    formed = raw(
        ann_api, "PATCH", "/api/v1/accounts/update_credentials", data={"note": "Hi\nthere"}
    )
    assert formed.json()["note"] == "<p>Hi<br />there</p>"


def test_the_json_body_is_flattened_to_mastodons_names():
    from api.params import _flatten_json

    body = b'{"poll": {"options": ["a", "b"], "expires_in": 300}, "id": ["x"], "s": true}'
    assert dict(_flatten_json(body)) == {
        "poll[options][]": ["a", "b"],
        "poll[expires_in]": ["300"],
        "id[]": ["x"],
        "s": ["true"],
    }


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/api/v1/accounts/lookup", {"params": {"acct[$gt]": ""}}),
        ("GET", "/api/v1/accounts/lookup", {"params": {"acct": '{"$gt": ""}'}}),
        ("PATCH", "/api/v1/accounts/update_credentials", {"json": {"note": {"$set": "x"}}}),
        ("PATCH", "/api/v1/accounts/update_credentials", {"data": b"{not json"}),
        ("PATCH", "/api/v1/accounts/update_credentials", {"json": ["a"]}),
        ("GET", "/api/v1/accounts/relationships", {"params": {"id[][$ne]": "x"}}),
        ("GET", "/api/v1/accounts/%24where", {}),
        ("GET", "/api/v1/accounts/" + "a" * 5000, {}),
        ("GET", "/api/v1/accounts/bob/followers", {"params": {"limit": "9" * 40}}),
        ("GET", "/api/v1/accounts/bob/followers", {"params": {"limit": "²"}}),
        ("GET", "/api/v1/accounts/bob/followers", {"params": {"max_id": "../../x"}}),
        ("GET", "/api/v1/accounts/bob/followers", {"params": {"min_id": "\x00"}}),
        ("GET", "/api/v1/blocks", {"params": {"since_id": "$gt"}}),
        ("POST", "/api/v1/accounts/%00/follow", {}),
        ("POST", "/api/v1/apps", {"json": {"client_name": {"$gt": ""}, "redirect_uris": 1}}),
        ("POST", "/oauth/token", {"json": {"grant_type": {"$ne": 1}, "code": ["a"]}}),
        ("POST", "/oauth/revoke", {"data": {"token": "x" * 10000, "client_id": "\u202e"}}),
    ],
)
def test_hostile_parameters_get_a_json_4xx_never_a_5xx(ann_api, bob, method, path, kwargs):
    if "data" in kwargs and isinstance(kwargs["data"], bytes):
        kwargs = {**kwargs, "headers": {"Content-Type": "application/json"}}
    answer = raw(ann_api, method, path, **kwargs)
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    if answer.status_code >= 400:
        assert "error" in answer.json()


def test_huge_limits_are_clamped_and_pages_stay_in_bounds(ann_api, bob):
    answer = raw(ann_api, "GET", "/api/v1/accounts/bob/followers?limit=100000")
    assert answer.status_code == 200 and answer.json() == []


def test_write_limits_answer_429_with_the_headers(ann_api, bob, settings):
    settings.RATELIMIT_FOLLOW = "2/300"
    first = raw(ann_api, "POST", "/api/v1/accounts/bob/follow")
    assert first.headers["X-RateLimit-Limit"] == "2"
    assert first.headers["X-RateLimit-Remaining"] == "1"
    assert first.headers["X-RateLimit-Reset"].endswith("Z")
    raw(ann_api, "POST", "/api/v1/accounts/bob/unfollow")
    refused = raw(ann_api, "POST", "/api/v1/accounts/bob/follow")
    assert refused.status_code == 429 and refused.json() == {"error": "Too many requests"}
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    with pytest.raises(MastodonRatelimitError):
        ann_api.account_follow("bob")
