"""Every route of the client API against its own declaration (docs/api.md#errors):
for each `/api/` route and each method it takes, no token is a JSON 401
where the view needs one, a person's token without the scope is a 403, and
an app's own token where a person is needed is a 422, as Mastodon answers.
The routes are read from the URL configuration, so a new endpoint is held
to the rule the day it is added; what each does with a good token is in
the other modules of tests/api."""

import re

import pytest
from django.urls import URLPattern

from api.http import API_ACCESS, API_METHODS
from api.urls import urlpatterns
from tests.api.conftest import BASE, logged_in, session_for

# A path converter's value: the checks come before the view reads it.
CONVERTER = re.compile(r"<(?:\w+:)?\w+>")
ROUTES = [
    (CONVERTER.sub("x", str(pattern.pattern)), method, getattr(pattern.callback, API_ACCESS))
    for pattern in urlpatterns
    if isinstance(pattern, URLPattern) and hasattr(pattern.callback, API_ACCESS)
    for method in sorted(getattr(pattern.callback, API_METHODS))
]


def _send(session, method: str, path: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return session.request(method, f"{BASE}/{path}", headers=headers)


@pytest.fixture
def tokens(ann_web, app_credentials):
    """A person's token that covers nothing but `push`, and an app's own
    token (client credentials) with every scope."""
    push_only = logged_in(ann_web, scopes=["push"]).access_token
    session, client_id, secret = app_credentials
    answer = session.post(
        f"{BASE}/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": secret,
            "scope": "read write follow push",
        },
    )
    assert answer.status_code == 200, answer.text
    return push_only, answer.json()["access_token"]


def test_the_routes_are_all_here():
    paths = {path for path, _, _ in ROUTES}
    assert len(paths) > 60
    assert {"api/v1/timelines/home", "api/v1/statuses", "api/v2/search"} <= paths


def test_every_route_answers_401_403_and_422_as_declared(tokens, settings):
    settings.RATELIMIT_ENABLED = False
    push_only, app_token = tokens
    session = session_for()
    wrong = []
    for path, method, (needed, person) in ROUTES:
        expected = [
            (None, 401 if person is not None else None),
            (push_only, 403 if needed and "push" not in needed else None),
            (app_token, 422 if person else None),
        ]
        for token, status in expected:
            if status is None:
                continue
            answer = _send(session, method, path, token)
            json = answer.headers.get("Content-Type") == "application/json"
            body = answer.json() if json else {}
            if answer.status_code != status or "error" not in body:
                wrong.append((method, path, token is not None, answer.status_code))
    assert wrong == []
