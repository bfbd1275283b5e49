"""Every write of the client API's apps, codes and tokens (docs/api.md#apps-and-tokens)."""

from datetime import datetime, timedelta

from bson import ObjectId
from pymongo import ReturnDocument

from api import secrets
from api.documents import CODE_SECONDS, MediaUpload, OAuthApp, OAuthCode, OAuthToken
from feeds.services import photos
from socialsite.clock import now

#: A token's `last_used` is written at most this often: reads stay cheap.
TOUCH_SECONDS = 60


def app_create(
    *, name: str, redirect_uris: list[str], scopes: list[str], website: str | None
) -> tuple[OAuthApp, str]:
    """Register an app; returns it with its client secret (shown this once)."""
    secret = secrets.new_secret()
    app = OAuthApp(
        client_id=secrets.new_secret(),
        secret_digest=secrets.digest(secret),
        name=name,
        website=website or None,
        redirect_uris=redirect_uris,
        scopes=scopes,
        created=now(),
    )
    OAuthApp._get_collection().insert_one(app.to_mongo().to_dict())
    return app, secret


def code_save(
    *,
    code: str,
    client_id: str,
    user: str,
    redirect_uri: str,
    scopes: list[str],
    challenge: str | None,
    challenge_method: str | None,
) -> None:
    OAuthCode._get_collection().insert_one(
        {
            "_id": secrets.digest(code),
            "client_id": client_id,
            "user": user,
            "redirect_uri": redirect_uri,
            "scopes": scopes,
            "challenge": challenge,
            "challenge_method": challenge_method,
            "expire": now() + timedelta(seconds=CODE_SECONDS),
        }
    )


def code_take(code: str, client_id: str) -> dict | None:
    """The code's row, deleted in the same step: of two exchanges of one
    code (a replay, a race) only one gets it. None when unknown, expired or
    another app's (that one is left alone: it is not this caller's to burn)."""
    return OAuthCode._get_collection().find_one_and_delete(
        {"_id": secrets.digest(code), "client_id": client_id, "expire": {"$gt": now()}}
    )


def token_create(*, token: str, app: OAuthApp, user: str | None, scopes: list[str]) -> datetime:
    """Keep a token's digest; returns when it was created."""
    created = now()
    OAuthToken._get_collection().insert_one(
        {
            "_id": secrets.digest(token),
            "key": secrets.new_secret()[:16],
            "client_id": app.client_id,
            "app_name": app.name,
            "app_website": app.website,
            "user": user,
            "scopes": scopes,
            "created": created,
            "last_used": created,
        }
    )
    return created


def token_revoke(*, token: str, client_id: str) -> None:
    """`POST /oauth/revoke`: the app's own token only."""
    OAuthToken._get_collection().delete_one({"_id": secrets.digest(token), "client_id": client_id})


def token_revoke_own(*, user: str, key: str) -> bool:
    """The Revoke button of the sessions page: one of the person's tokens.
    By `(user, key)`, not the shard key: a delete_many (of one document)."""
    return OAuthToken._get_collection().delete_many({"user": user, "key": key}).deleted_count > 0


def tokens_revoke_all(*, user: str) -> int:
    """Every token and unused code of the person: they changed their
    password, were suspended or are being erased."""
    OAuthCode._get_collection().delete_many({"user": user})
    return OAuthToken._get_collection().delete_many({"user": user}).deleted_count


def token_touch(*, digest: str, last_used: datetime | None) -> None:
    """Note the token's use, at most once per TOUCH_SECONDS."""
    t = now()
    if last_used is not None and t - last_used < timedelta(seconds=TOUCH_SECONDS):
        return
    OAuthToken._get_collection().update_one({"_id": digest}, {"$set": {"last_used": t}})


def tokens_erase(handle: str, limit: int) -> int:
    """The owner registry's eraser (socialsite/owners.py): the person's
    tokens and codes go (they already did at `erasure_begin`; this finds
    anything issued in between)."""
    return tokens_revoke_all(user=handle)


# --- Media uploads (docs/api.md#media) ------------------------------------

#: How long an upload waits for a status to take it.
MEDIA_WAITS = timedelta(days=1)


def media_create(*, owner: str, detail: dict, description: str) -> MediaUpload:
    """A processed, stored photo waiting for a status (api/documents.py)."""
    upload = MediaUpload(
        owner=owner, detail=detail, description=description, expire=now() + MEDIA_WAITS
    )
    upload.save(force_insert=True)
    return upload


def media_describe(*, media_id: ObjectId, owner: str, description: str) -> bool:
    """Its alt text, while no status has taken it."""
    done = MediaUpload._get_collection().update_one(
        {"_id": media_id, "owner": owner, "post": None}, {"$set": {"description": description}}
    )
    return done.matched_count == 1


def media_take(*, media_id: ObjectId, owner: str, post_id: ObjectId) -> dict | None:
    """The upload, taken for the post `post_id` (atomically: two statuses
    racing for one photo, one wins), its expiry dropped; None when it is
    not this owner's or taken already."""
    return MediaUpload._get_collection().find_one_and_update(
        {"_id": media_id, "owner": owner, "post": None},
        {"$set": {"post": post_id}, "$unset": {"expire": ""}},
        return_document=ReturnDocument.AFTER,
    )


def media_release(*, media_id: ObjectId, post_id: ObjectId) -> None:
    """Give an upload back when the post that took it was not written."""
    MediaUpload._get_collection().update_one(
        {"_id": media_id, "post": post_id},
        {"$set": {"post": None, "expire": now() + MEDIA_WAITS}},
    )


def media_sweep(*, limit: int = 100) -> int:
    """Delete the uploads no status took in time, files first gone from
    reach: each is taken away with one find-and-delete that a status taking
    it at the same moment cannot pass (it needs `post: None` too)."""
    collection = MediaUpload._get_collection()
    stale = collection.find({"expire": {"$lt": now()}}, {"_id": 1}).limit(limit)
    swept = 0
    for row in list(stale):
        gone = collection.find_one_and_delete(
            {"_id": row["_id"], "post": None, "expire": {"$lt": now()}}
        )
        if gone is not None:
            photos.delete(gone.get("detail") or {})
            swept += 1
    return swept


def media_erase(handle: str, limit: int) -> int:
    """Erasure: a person's uploads (their files go with their photos,
    feeds/services/photos.py `owner_erase`)."""
    ids = [
        row["_id"]
        for row in MediaUpload._get_collection().find({"owner": handle}, {"_id": 1}).limit(limit)
    ]
    if ids:
        MediaUpload._get_collection().delete_many({"_id": {"$in": ids}})
    return len(ids)
