"""The client API driven by a real client, Mastodon.py, in process.

Mastodon.py takes a `requests.Session`; `DjangoAdapter` is mounted on it
for our origin and hands each request to Django's test client: no live
server, no sockets, a request costs what the view costs. The OAuth login
is the real one: the app is registered with Mastodon.py, the person walks
the consent page in their own (session) client, and the code goes back to
Mastodon.py's `log_in`.
"""

from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.test import Client
from mastodon import Mastodon
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from tests.conftest import login_client

BASE = "https://testserver"
SCOPES = ["read", "write", "follow", "push"]
REDIRECT = "https://app.example/callback"


class DjangoAdapter(BaseAdapter):
    """A requests transport whose server is Django's test client (https,
    so the site sees a secure request, as behind TLS). Cookies the site
    sets stay in `client` (an app never gets one: tests check that)."""

    def __init__(self) -> None:
        super().__init__()
        self.client = Client()
        self.responses: list = []

    def send(self, request, **kwargs):
        parts = urlsplit(request.url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        headers = {
            name: value
            for name, value in request.headers.items()
            if name.lower() not in ("content-type", "content-length", "host")
        }
        answer = self.client.generic(
            request.method,
            path,
            data=body,
            content_type=request.headers.get("Content-Type", ""),
            secure=True,
            headers=headers,
        )
        self.responses.append(answer)
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers = CaseInsensitiveDict(answer.items())
        response._content = answer.content
        response.url = request.url
        response.request = request
        response.encoding = "utf-8"
        response.reason = answer.reason_phrase
        return response

    def close(self) -> None:
        pass


def session_for(adapter: DjangoAdapter | None = None) -> requests.Session:
    session = requests.Session()
    session.mount(BASE, adapter or DjangoAdapter())
    return session


def mastodon(session: requests.Session | None = None, **kwargs) -> Mastodon:
    kwargs.setdefault("version_check_mode", "none")
    return Mastodon(
        api_base_url=BASE, session=session or session_for(), ratelimit_method="throw", **kwargs
    )


def register(session: requests.Session, scopes=SCOPES, redirect=REDIRECT) -> tuple[str, str]:
    return Mastodon.create_app(
        "Test App",
        scopes=scopes,
        redirect_uris=redirect,
        website="https://app.example",
        api_base_url=BASE,
        session=session,
    )


def consent(web: Client, url: str, decision: str = "authorize"):
    """The person on the consent page: its GET, then the button. Returns
    the POST's response."""
    parts = urlsplit(url)
    path = f"{parts.path}?{parts.query}"
    page = web.get(path, secure=True)
    assert page.status_code == 200, page.content[:300]
    return web.post(path, {"decision": decision}, secure=True)


def code_from(response) -> str:
    assert response.status_code == 302, response.content[:300]
    return parse_qs(urlsplit(response["Location"]).query)["code"][0]


def logged_in(web: Client, scopes=SCOPES) -> Mastodon:
    """A Mastodon.py client logged in through the consent page."""
    session = session_for()
    client_id, secret = register(session, scopes=scopes)
    api = mastodon(session, client_id=client_id, client_secret=secret)
    url = api.auth_request_url(redirect_uris=REDIRECT, scopes=scopes, state="xyz")
    response = consent(web, url)
    assert parse_qs(urlsplit(response["Location"]).query)["state"] == ["xyz"]
    api.log_in(code=code_from(response), redirect_uri=REDIRECT, scopes=scopes)
    return api


@pytest.fixture
def ann(make_user):
    return make_user("ann", name="Ann Example")


@pytest.fixture
def bob(make_user):
    return make_user("bob", name="Bob Builder")


@pytest.fixture
def ann_web(ann):
    return login_client(ann)


@pytest.fixture
def ann_api(ann_web) -> Mastodon:
    return logged_in(ann_web)


@pytest.fixture
def app_credentials():
    session = session_for()
    client_id, secret = register(session)
    return session, client_id, secret


@pytest.fixture
def app_api(app_credentials) -> Mastodon:
    """A client holding an app token (client_credentials: no person)."""
    session, client_id, secret = app_credentials
    answer = session.post(
        f"{BASE}/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": secret,
            "scope": "read write",
        },
    )
    assert answer.status_code == 200, answer.text
    return mastodon(session, access_token=answer.json()["access_token"])


def raw(api: Mastodon, method: str, path: str, **kwargs) -> requests.Response:
    """A request outside Mastodon.py's methods, with the client's token."""
    headers = kwargs.pop("headers", {})
    if api.access_token:
        headers.setdefault("Authorization", f"Bearer {api.access_token}")
    return api.session.request(method, BASE + path, headers=headers, **kwargs)
