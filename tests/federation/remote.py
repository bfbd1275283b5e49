"""A remote server in the test process: its people's actor documents and
keys, signed deliveries to our inbox through Django's test client, and
federation's outgoing HTTP answered from its documents (nothing leaves the
process). `remote` is the fixture."""

import json
from functools import cache
from urllib.parse import urlsplit

import pytest
from django.test import Client

from federation import fetch, signatures

DOMAIN = "remote.example"


# Bound at import: tests/federation/conftest.py gives our own people one
# shared pair, but each remote person here needs a key of their own.
_generate = signatures.generate_key_pair


@cache
def _key_pair(name: str) -> tuple[str, str]:
    return _generate()  # made once per name per test run


class FakeRemote:
    def __init__(self, domain: str = DOMAIN) -> None:
        self.domain = domain
        self.docs: dict[str, dict] = {}
        self.posted: list[tuple[str, dict]] = []
        self.fetched: list[str] = []
        # Servers that refuse connections (any other *.example answers here).
        self.down: set[str] = {"down.example"}
        self.client = Client()

    def url(self, path: str) -> str:
        return f"https://{self.domain}{path}"

    def actor_id(self, name: str) -> str:
        return self.url(f"/users/{name}")

    def person(self, name: str, **extra: object) -> dict:
        """Their actor document, as Mastodon writes one, served from here."""
        actor = self.actor_id(name)
        doc = {
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": actor,
            "type": "Person",
            "preferredUsername": name,
            "name": name.title(),
            "summary": f"<p>{name} of {self.domain}</p>",
            "url": self.url(f"/@{name}"),
            "inbox": actor + "/inbox",
            "outbox": actor + "/outbox",
            "followers": actor + "/followers",
            "endpoints": {"sharedInbox": self.url("/inbox")},
            "publicKey": {
                "id": actor + "#main-key",
                "owner": actor,
                "publicKeyPem": _key_pair(f"{self.domain}/{name}")[1],
            },
            **extra,
        }
        self.docs[actor] = doc
        return doc

    def handle(self, name: str) -> str:
        return f"{name}@{self.domain}"

    def signed(
        self, name: str, body: bytes, *, path: str = "/inbox", key_of: str | None = None
    ) -> dict[str, str]:
        private = _key_pair(f"{self.domain}/{key_of or name}")[0]
        return signatures.sign_request(
            method="POST",
            url=f"http://testserver{path}",
            body=body,
            key_id=self.actor_id(name) + "#main-key",
            private_key_pem=private,
        )

    def deliver(self, name: str, activity: dict | list | str, *, path: str = "/inbox", **kw):
        """POST `activity` from `name` to our inbox, signed as Mastodon signs."""
        if name not in {d.get("preferredUsername") for d in self.docs.values()}:
            self.person(name)
        body = json.dumps(activity).encode()
        headers = self.signed(name, body, path=path, **kw)
        return self.post(body, headers, path=path)

    def post(self, body: bytes, headers: dict[str, str], *, path: str = "/inbox"):
        return self.client.post(
            path,
            data=body,
            content_type=headers.pop("Content-Type", "application/activity+json"),
            headers=headers,
        )

    # federation/fetch.py's functions, answered from `docs` ------------------

    def get_json(self, url: str, *, sign=None, accept: str = "") -> dict:
        self.fetched.append(url)
        fetch.check_url(url)
        if url not in self.docs:
            raise fetch.FetchError(f"404 for {url}")
        return self.docs[url]

    def get_jrd(self, url: str) -> dict:
        self.fetched.append(url)
        fetch.check_url(url)
        for doc in self.docs.values():
            name = doc.get("preferredUsername")
            if f"acct:{name}@{self.domain}" in url.replace("%3A", ":").replace("%40", "@"):
                links = [{"rel": "self", "type": "application/activity+json", "href": doc["id"]}]
                return {"subject": f"acct:{name}@{self.domain}", "links": links}
        raise fetch.FetchError(f"404 for {url}")

    def post_json(self, url: str, body: bytes, *, sign=None) -> int:
        fetch.check_url(url)
        if urlsplit(url).hostname in self.down:
            raise fetch.FetchError(f"{urlsplit(url).hostname}: connection refused")
        self.posted.append((url, json.loads(body)))
        return 202

    def sent(self, kind: str) -> list[dict]:
        return [activity for _, activity in self.posted if activity.get("type") == kind]


@pytest.fixture
def remote(monkeypatch, settings):
    """A fake remote server; federation's outgoing HTTP goes to it only
    (its addresses resolve as public ones: the SSRF guard lets them by)."""
    server = FakeRemote()
    monkeypatch.setattr(fetch, "get_json", server.get_json)
    monkeypatch.setattr(fetch, "get_jrd", server.get_jrd)
    monkeypatch.setattr(fetch, "post_json", server.post_json)
    real = fetch.check_url

    def check(url: str) -> None:
        if not (urlsplit(url).hostname or "").endswith(".example"):
            real(url)

    monkeypatch.setattr(fetch, "check_url", check)
    settings.SITE_URL = "http://testserver"
    return server
