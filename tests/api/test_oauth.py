"""OAuth 2 as Mastodon 4.3 speaks it (docs/api.md#apps-and-tokens): the
code flow through the consent page, PKCE S256, the out-of-band page,
refusals, client credentials, revocation."""

import base64
import hashlib
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from mastodon import MastodonIllegalArgumentError, MastodonUnauthorizedError

from api import secrets
from api.documents import OAuthCode, OAuthToken
from api.entities import checks
from socialsite.clock import now
from tests.api.conftest import (
    BASE,
    REDIRECT,
    SCOPES,
    code_from,
    consent,
    mastodon,
    register,
    session_for,
)


def authorize_path(client_id: str, **extra) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "scope": "read write",
        **extra,
    }
    return f"/oauth/authorize?{urlencode(query)}"


def exchange(session, client_id: str, code: str, **extra):
    return session.post(
        f"{BASE}/oauth/token",
        data={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "code": code,
            "redirect_uri": REDIRECT,
            **extra,
        },
    )


def test_the_code_flow_gives_a_token_stored_only_as_its_digest(ann_api):
    me = ann_api.account_verify_credentials()
    assert me.id == "ann" and me.acct == "ann" and me.display_name == "Ann Example"
    stored = OAuthToken.objects.get(user="ann")
    assert stored.digest == secrets.digest(ann_api.access_token)
    assert ann_api.access_token not in str(stored.to_mongo())
    assert stored.scopes == SCOPES
    assert OAuthCode.objects.count() == 0  # the code was used up


def test_the_server_metadata_is_mastodons(app_credentials):
    session, *_ = app_credentials
    data = session.get(f"{BASE}/.well-known/oauth-authorization-server").json()
    assert data["issuer"] == f"{BASE}/"
    assert data["authorization_endpoint"] == f"{BASE}/oauth/authorize"
    assert data["token_endpoint"] == f"{BASE}/oauth/token"
    assert data["revocation_endpoint"] == f"{BASE}/oauth/revoke"
    assert data["app_registration_endpoint"] == f"{BASE}/api/v1/apps"
    assert data["code_challenge_methods_supported"] == ["S256"]
    assert "password" not in data["grant_types_supported"]
    assert {"read", "write", "follow", "push", "read:statuses"} <= set(data["scopes_supported"])


def test_the_consent_page_names_the_app_and_the_scopes_in_plain_words(ann_web, app_credentials):
    _, client_id, _ = app_credentials
    page = ann_web.get(authorize_path(client_id, scope="read write:follows"), secure=True)
    text = page.content.decode()
    assert "Test App" in text and "See everything your account can see" in text
    assert "Change your follows" in text
    assert 'value="authorize"' in text and 'value="deny"' in text


def test_a_signed_out_visitor_is_sent_to_the_login_page_first(ann, app_credentials):
    from django.test import Client

    _, client_id, _ = app_credentials
    response = Client().get(authorize_path(client_id), secure=True)
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == "/accounts/login/"
    assert parse_qs(location.query)["next"][0].startswith("/oauth/authorize?")


def test_the_consent_form_needs_its_csrf_token(ann_web, app_credentials):
    _, client_id, _ = app_credentials
    web = ann_web
    web.handler.enforce_csrf_checks = True
    response = web.post(authorize_path(client_id), {"decision": "authorize"}, secure=True)
    assert response.status_code == 403
    assert OAuthCode.objects.count() == 0


def test_deny_redirects_with_access_denied(ann_web, app_credentials):
    _, client_id, _ = app_credentials
    response = consent(ann_web, BASE + authorize_path(client_id, state="s1"), decision="deny")
    assert response.status_code == 302
    query = parse_qs(urlsplit(response["Location"]).query)
    assert query == {"error": ["access_denied"], "state": ["s1"]}
    assert OAuthCode.objects.count() == 0


def test_out_of_band_shows_the_code_to_copy(ann_web):
    session = session_for()
    client_id, secret = register(session, redirect="urn:ietf:wg:oauth:2.0:oob")
    api = mastodon(session, client_id=client_id, client_secret=secret)
    url = api.auth_request_url(scopes=SCOPES)
    page = consent(ann_web, url)
    assert page.status_code == 200
    code = page.context["code"]
    assert code and code in page.content.decode()
    api.log_in(code=code, scopes=SCOPES)
    assert api.account_verify_credentials().id == "ann"


def test_a_code_works_once(ann_web, app_credentials):
    session, client_id, secret = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    first = exchange(session, client_id, code, client_secret=secret)
    assert first.status_code == 200
    assert checks.problems(first.json(), checks.TOKEN) == []
    assert first.json()["token_type"] == "Bearer" and first.json()["scope"] == "read write"
    again = exchange(session, client_id, code, client_secret=secret)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_an_expired_code_is_refused(ann_web, app_credentials):
    session, client_id, secret = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    OAuthCode.objects.update(set__expire=now() - timedelta(seconds=1))
    answer = exchange(session, client_id, code, client_secret=secret)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"


def test_the_redirect_uri_must_match_the_codes(ann_web, app_credentials):
    session, client_id, secret = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    answer = exchange(
        session, client_id, code, client_secret=secret, redirect_uri="https://evil.example/"
    )
    assert answer.status_code in (400, 401) and "error" in answer.json()
    assert OAuthToken.objects.count() == 0


def test_an_unregistered_redirect_uri_is_shown_not_followed(ann_web, app_credentials):
    _, client_id, _ = app_credentials
    page = ann_web.get(
        authorize_path(client_id, redirect_uri="https://evil.example/cb"), secure=True
    )
    assert page.status_code == 400 and "evil.example" not in page.get("Location", "")


def test_a_wrong_secret_is_refused(ann_web, app_credentials):
    session, client_id, _ = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    answer = exchange(session, client_id, code, client_secret="not-it")
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"


def pkce() -> tuple[str, str]:
    verifier = secrets.new_secret()
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_pkce_s256_lets_a_public_client_in_without_a_secret(ann_web, app_credentials):
    session, client_id, _ = app_credentials
    verifier, challenge = pkce()
    path = authorize_path(client_id, code_challenge=challenge, code_challenge_method="S256")
    code = code_from(consent(ann_web, BASE + path))
    answer = exchange(session, client_id, code, code_verifier=verifier)
    assert answer.status_code == 200, answer.text
    token = answer.json()["access_token"]
    assert mastodon(session, access_token=token).account_verify_credentials().id == "ann"


def test_pkce_with_a_wrong_verifier_is_refused(ann_web, app_credentials):
    session, client_id, secret = app_credentials
    _, challenge = pkce()
    path = authorize_path(client_id, code_challenge=challenge, code_challenge_method="S256")
    code = code_from(consent(ann_web, BASE + path))
    answer = exchange(session, client_id, code, code_verifier=pkce()[0], client_secret=secret)
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
    assert OAuthToken.objects.count() == 0


def test_without_a_challenge_a_verifier_is_no_secret(ann_web, app_credentials):
    session, client_id, _ = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    answer = exchange(session, client_id, code, code_verifier=pkce()[0])
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"


def test_plain_pkce_is_not_offered(ann_web, app_credentials):
    _, client_id, _ = app_credentials
    path = authorize_path(client_id, code_challenge="x" * 43, code_challenge_method="plain")
    response = ann_web.get(path, secure=True)
    assert response.status_code == 302
    assert "error=" in response["Location"]


def test_the_password_grant_is_refused(ann, app_credentials):
    session, client_id, secret = app_credentials
    answer = session.post(
        f"{BASE}/oauth/token",
        data={
            "grant_type": "password",
            "client_id": client_id,
            "client_secret": secret,
            "username": "ann",
            "password": "correct horse battery",
        },
    )
    assert answer.status_code == 400 and answer.json()["error"] == "unsupported_grant_type"
    with pytest.raises(MastodonIllegalArgumentError):
        mastodon(session, client_id=client_id, client_secret=secret).log_in(
            username="ann", password="correct horse battery"
        )


def test_client_credentials_give_an_app_token(app_api):
    app = app_api.app_verify_credentials()
    assert app.name == "Test App" and app.website == "https://app.example"
    assert OAuthToken.objects.get().user is None


def test_the_token_endpoint_takes_json_too(ann_web, app_credentials):
    session, client_id, secret = app_credentials
    code = code_from(consent(ann_web, BASE + authorize_path(client_id)))
    answer = session.post(
        f"{BASE}/oauth/token",
        json={
            "grant_type": "authorization_code",
            "client_id": client_id,
            "client_secret": secret,
            "code": code,
            "redirect_uri": REDIRECT,
        },
    )
    assert answer.status_code == 200, answer.text


def test_revoke_then_401(ann_api):
    token = ann_api.access_token
    ann_api.revoke_access_token()
    assert OAuthToken.objects.count() == 0
    stale = mastodon(ann_api.session, access_token=token)
    with pytest.raises(MastodonUnauthorizedError):
        stale.account_verify_credentials()


def test_revoke_answers_empty_json_for_an_unknown_token(app_credentials):
    session, client_id, secret = app_credentials
    answer = session.post(
        f"{BASE}/oauth/revoke",
        data={"token": "nope", "client_id": client_id, "client_secret": secret},
    )
    assert answer.status_code == 200 and answer.json() == {}


def test_an_app_cannot_revoke_another_apps_token(ann_api, app_credentials):
    session, client_id, secret = app_credentials
    session.post(
        f"{BASE}/oauth/revoke",
        data={"token": ann_api.access_token, "client_id": client_id, "client_secret": secret},
    )
    assert ann_api.account_verify_credentials().id == "ann"


def test_an_app_asks_only_for_scopes_it_registered(ann_web):
    session = session_for()
    client_id, _ = register(session, scopes=["read"])
    response = ann_web.get(authorize_path(client_id, scope="read write"), secure=True)
    assert response.status_code == 302 and "error=invalid_scope" in response["Location"]


@pytest.mark.parametrize(
    "uris",
    ["javascript:alert(1)", "data:text/html,x", "", "https://x.example/#frag", "not a uri"],
)
def test_registration_refuses_dangerous_redirect_uris(uris):
    answer = session_for().post(
        f"{BASE}/api/v1/apps", data={"client_name": "x", "redirect_uris": uris}
    )
    assert answer.status_code == 422 and "error" in answer.json()


def test_registration_answers_the_credential_application():
    answer = session_for().post(
        f"{BASE}/api/v1/apps",
        data={
            "client_name": "Phone",
            "redirect_uris": "myapp://cb\nurn:ietf:wg:oauth:2.0:oob",
            "scopes": "read write:statuses",
        },
    )
    data = answer.json()
    assert checks.problems(data, checks.CREDENTIAL_APPLICATION) == []
    assert data["redirect_uris"] == ["myapp://cb", "urn:ietf:wg:oauth:2.0:oob"]
    assert data["scopes"] == ["read", "write:statuses"]
