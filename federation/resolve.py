"""Remote people, found and kept fresh (docs/federation.md#remote-people-and-posts).

A person is found by WebFinger (`name@domain`) or by their actor id, read
with a signed fetch, checked (the document's id is the URL it came from, its
key belongs to it) and stored as a `user` with a domain by the profiles
app's service. Their document is read again after FEDERATION_ACTOR_TTL_SECONDS,
or at once when a signature by them fails (a rotated key).
"""

import ipaddress
from datetime import timedelta
from urllib.parse import quote, urlsplit

from django.conf import settings

from federation import fetch, keys, moderation, uris
from federation.sanitize import html_to_text
from profiles.documents import User
from profiles.services import remote as remote_people
from socialsite.clock import aware, now
from socialsite.ids import REMOTE_HANDLE_RE

ACTOR_TYPES = {"Person", "Service", "Application", "Group", "Organization"}


class ResolveError(Exception):
    """Nobody could be found there, or what came back is not a person."""


def _host(url: str) -> str:
    return urlsplit(url).netloc.lower()


def _scheme(domain: str) -> str:
    """https, as every server is reached; plain http only for loopback
    addresses when FEDERATION_ALLOW_LOOPBACK lets two local instances talk."""
    host = domain.rsplit(":", 1)[0].strip("[]") if domain.count(":") <= 1 else domain
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    return "http" if loopback and settings.FEDERATION_ALLOW_LOOPBACK else "https"


def _text(value: object, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _stale(user: User) -> bool:
    fetched = (user.actor or {}).get("fetched")
    ttl = timedelta(seconds=settings.FEDERATION_ACTOR_TTL_SECONDS)
    return fetched is None or aware(fetched) < now() - ttl


def store_actor(doc: dict, *, fetched_from: str) -> User:
    """Check an actor document read from `fetched_from` and store its person."""
    actor_id = doc.get("id")
    if not isinstance(actor_id, str) or _host(actor_id) != _host(fetched_from):
        raise ResolveError("The actor's id is not on the server it came from.")
    if doc.get("type") not in ACTOR_TYPES:
        raise ResolveError("That is not a person.")
    key = doc.get("publicKey")
    key = key[0] if isinstance(key, list) and key else key
    if not isinstance(key, dict) or not isinstance(key.get("publicKeyPem"), str):
        raise ResolveError("The actor has no public key.")
    if key.get("owner") not in (None, actor_id):
        raise ResolveError("The key belongs to someone else.")
    inbox = doc.get("inbox")
    if not isinstance(inbox, str) or not inbox.startswith(("https://", "http://")):
        raise ResolveError("The actor has no inbox.")
    domain = _host(actor_id)
    name = _text(doc.get("preferredUsername"), 64).lower()
    handle = f"{name}@{domain}"
    if not REMOTE_HANDLE_RE.fullmatch(handle) or domain == uris.domain():
        raise ResolveError("The actor's name can't be a handle here.")
    if moderation.is_blocked(domain):
        raise ResolveError("That server is blocked here.")
    endpoints = doc.get("endpoints")
    shared = endpoints.get("sharedInbox") if isinstance(endpoints, dict) else None
    url = doc.get("url")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        url = actor_id  # pages link to it: never a javascript: or relative URL
    actor = {
        "id": actor_id,
        "inbox": inbox,
        "shared_inbox": shared if isinstance(shared, str) else None,
        "url": url[:2000],
        "key_id": _text(key.get("id"), 2000) or actor_id,
        "public_key": key["publicKeyPem"][:10_000],
        "followers": _text(doc.get("followers"), 2000),
        "type": doc["type"],
    }
    user, _new = remote_people.remote_user_upsert(
        handle=handle,
        domain=domain,
        name=_text(doc.get("name"), 200),
        bio=html_to_text(_text(doc.get("summary"), 20_000))[:500],
        actor=actor,
    )
    moderation.person_met(user)
    return user


def actor_by_uri(uri: str, *, refresh: bool = False) -> User:
    """The person whose actor id is `uri`: stored, or fetched now."""
    if not isinstance(uri, str) or not uri.startswith(("https://", "http://")):
        raise ResolveError("That is not an actor id.")
    if uris.parse_local(uri) is not None:
        raise ResolveError("That is one of ours.")
    user = User.objects(actor__id=uri).first()
    if user is not None and not refresh and not _stale(user):
        return user
    try:
        doc = fetch.get_json(uri, sign=keys.signer())
    except fetch.FetchError as exc:
        if user is not None and not refresh:
            return user  # stale beats nothing while their server is away
        raise ResolveError(str(exc)) from exc
    return store_actor(doc, fetched_from=uri)


def actor_for_key(key_id: str, *, refresh: bool = False) -> User:
    """The person whose key `key_id` names (Mastodon's are `<actor>#main-key`)."""
    if not refresh:
        user = User.objects(actor__key_id=key_id).first()
        if user is not None:
            return user
    owner = key_id.split("#", 1)[0]
    try:
        doc = fetch.get_json(owner, sign=keys.signer())
    except fetch.FetchError as exc:
        raise ResolveError(str(exc)) from exc
    if doc.get("type") not in ACTOR_TYPES and isinstance(doc.get("owner"), str):
        return actor_by_uri(doc["owner"], refresh=True)  # a key document
    return store_actor(doc, fetched_from=owner)


def handle_of(acct: str) -> str | None:
    """`name@domain` out of what a person types: `@name@domain`, `acct:...`."""
    value = acct.strip().lower().removeprefix("acct:").lstrip("@")
    return value if REMOTE_HANDLE_RE.fullmatch(value) else None


def resolve_handle(acct: str) -> User:
    """Find `name@domain` by WebFinger and store them (or the stored person,
    while fresh)."""
    handle = handle_of(acct)
    if handle is None:
        raise ResolveError("Write a handle as @name@domain.")
    _name, domain = handle.split("@", 1)
    if domain == uris.domain():
        raise ResolveError("That is one of ours.")
    if moderation.is_blocked(domain):
        raise ResolveError("That server is blocked here.")
    user = User.objects(handle=handle, status="active").first()
    if user is not None and not _stale(user):
        return user
    resource = quote(f"acct:{handle}", safe=":@")
    try:
        jrd = fetch.get_jrd(
            f"{_scheme(domain)}://{domain}/.well-known/webfinger?resource={resource}"
        )
    except fetch.FetchError as exc:
        if user is not None:
            return user
        raise ResolveError(f"{domain} did not answer: {exc}") from exc
    links = jrd.get("links")
    for link in links if isinstance(links, list) else []:
        if (
            isinstance(link, dict)
            and link.get("rel") == "self"
            and any(kind in str(link.get("type", "")) for kind in ("activity+json", "ld+json"))
            and isinstance(link.get("href"), str)
        ):
            return actor_by_uri(link["href"], refresh=True)
    raise ResolveError(f"{domain} knows no {handle}.")
