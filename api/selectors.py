"""Every read of the client API's apps and tokens."""

from dataclasses import dataclass, field
from datetime import datetime

from bson import ObjectId

from api import secrets
from api.documents import MediaUpload, OAuthApp, OAuthCode, OAuthToken, ReadMarker
from profiles import selectors as people
from profiles.documents import User
from socialsite.clock import aware, now


def app(client_id: object) -> OAuthApp | None:
    if not isinstance(client_id, str) or not client_id or len(client_id) > 100:
        return None
    return OAuthApp.objects(client_id=client_id).first()


def code_challenge(code: str, client_id: str) -> str | None:
    """The PKCE challenge an unexpired code of this app was issued with."""
    row = OAuthCode._get_collection().find_one(
        {"_id": secrets.digest(code), "client_id": client_id, "expire": {"$gt": now()}},
        {"challenge": 1},
    )
    return None if row is None else row.get("challenge")


@dataclass
class Grant:
    """A request's bearer token: its app, its person (None for an app
    token), its scopes."""

    digest: str
    client_id: str
    app_name: str
    app_website: str | None
    user: User | None
    scopes: list[str] = field(default_factory=list)
    last_used: datetime | None = None
    # The token names a person who is no longer active: it is refused.
    person_gone: bool = False


def grant(token: str) -> Grant | None:
    """The token with its person: one round trip (an aggregate whose
    `$lookup` reads the person by `_id`), or None for an unknown token."""
    digest = secrets.digest(token)
    pipeline = [{"$match": {"_id": digest}}, people.account_lookup("user", "_person")]
    row = next(iter(OAuthToken._get_collection().aggregate(pipeline)), None)
    if row is None:
        return None
    person = people.account_from_lookup(row.get("_person") or [])
    return Grant(
        digest=digest,
        client_id=row["client_id"],
        app_name=row["app_name"],
        app_website=row.get("app_website"),
        user=person,
        scopes=list(row.get("scopes") or []),
        last_used=aware(row.get("last_used")),
        person_gone=row.get("user") is not None and person is None,
    )


def tokens_of(handle: str) -> list[dict]:
    """The apps the person authorized (the sessions page): on `(user, key)`."""
    rows = OAuthToken._get_collection().find(
        {"user": handle},
        {
            "_id": 0,
            "key": 1,
            "app_name": 1,
            "app_website": 1,
            "scopes": 1,
            "created": 1,
            "last_used": 1,
        },
    )
    listed = [
        {**row, "created": aware(row["created"]), "last_used": aware(row.get("last_used"))}
        for row in rows
    ]
    return sorted(listed, key=lambda row: row["created"], reverse=True)


def tokens_export(handle: str) -> list[dict]:
    """The person's authorized apps, for their export (no secrets: none are kept)."""
    return [
        {"app": row["app_name"], "scopes": row["scopes"], "created": row["created"].isoformat()}
        for row in tokens_of(handle)
    ]


# --- Media uploads (docs/api.md#media) ------------------------------------


def media_of(media_id: ObjectId, owner: str) -> dict | None:
    """One of `owner`'s uploads, by `_id`: a point read."""
    return MediaUpload._get_collection().find_one({"_id": media_id, "owner": owner})


def markers(handle: str) -> dict:
    """The person's read markers, by timeline (docs/api.md#markers): one
    read by `_id`."""
    row = ReadMarker._get_collection().find_one({"_id": handle}) or {}
    return {name: row[name] for name in ("home", "notifications") if row.get(name)}
