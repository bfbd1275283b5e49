"""Registered apps, authorization codes and access tokens (docs/api.md#apps-and-tokens).

Secrets are never stored: a client secret, a code and a token are
`secrets.token_urlsafe(32)` handed out once, and kept here as their
SHA-256 hex digest, which is what each is looked up by (`_id`: unique,
and the one index a point read needs).
"""

import mongoengine as me

from socialsite.clock import now
from socialsite.documents import PinnedToPrimary

#: How long an authorization code can be exchanged for a token (seconds).
CODE_SECONDS = 600


class OAuthApp(PinnedToPrimary, me.Document):
    """An app registered with `POST /api/v1/apps`: anyone may register one,
    it names no person."""

    client_id = me.StringField(primary_key=True)
    secret_digest = me.StringField(required=True)
    name = me.StringField(required=True, max_length=200)
    website = me.StringField(max_length=500)
    redirect_uris = me.ListField(me.StringField(max_length=2000), default=list)
    scopes = me.ListField(me.StringField(), default=list)
    created = me.DateTimeField(default=now)

    meta = {
        "collection": "oauth_app",
        # Read by `_id` alone; a random string, hashed anyway so chunks split evenly.
        "shard_key": ("client_id",),
        "shard_hashed": "client_id",
        "auto_create_index": False,
    }


class OAuthCode(PinnedToPrimary, me.Document):
    """An authorization code between the consent page and `POST /oauth/token`:
    single use (taken with a find-and-delete) and gone after CODE_SECONDS
    (the TTL index; reads check `expire` too, since a server's TTL monitor
    runs once a minute)."""

    digest = me.StringField(primary_key=True)
    client_id = me.StringField(required=True)
    user = me.StringField(required=True)
    redirect_uri = me.StringField(required=True)
    scopes = me.ListField(me.StringField(), default=list)
    # PKCE (RFC 7636): the S256 challenge the app sent, or None.
    challenge = me.StringField()
    challenge_method = me.StringField()
    expire = me.DateTimeField(required=True)

    meta = {
        "collection": "oauth_code",
        "indexes": [
            {"fields": ["expire"], "expireAfterSeconds": 0, "name": "expire_ttl"},
            # A revocation (password change, suspension) drops the person's codes too.
            {"fields": ["user"], "name": "user"},
        ],
        "shard_key": ("digest",),
        "shard_hashed": "digest",
        "auto_create_index": False,
    }


class OAuthToken(PinnedToPrimary, me.Document):
    """An access token: the app, the person (None for an app's own token
    from `client_credentials`), the scopes granted, and when it was last
    used (written at most once a minute, `TOUCH_SECONDS`)."""

    digest = me.StringField(primary_key=True)
    # What the settings page names the token by (the digest stays server-side).
    key = me.StringField(required=True)
    client_id = me.StringField(required=True)
    app_name = me.StringField(required=True)
    app_website = me.StringField()
    user = me.StringField()
    scopes = me.ListField(me.StringField(), default=list)
    created = me.DateTimeField(default=now)
    last_used = me.DateTimeField()

    meta = {
        "collection": "oauth_token",
        "indexes": [
            # A person's tokens (the sessions page, revoking them all) and one
            # of them by its key (the page's Revoke button).
            {"fields": ["user", "key"], "name": "user_key"},
        ],
        # Every request reads its token by `_id`, and touches it by `_id`.
        "shard_key": ("digest",),
        "shard_hashed": "digest",
        "auto_create_index": False,
    }


# --- Media uploads (docs/api.md#media) ------------------------------------


class MediaUpload(me.Document):
    """A photo uploaded with `POST /api/v2/media`, before a status takes it:
    its files are processed and stored as the composer's photo is
    (feeds/services/photos.py); `post` is the status that took it (a photo
    goes to one post). One that no status took by `expire` is deleted with
    its files by the uploads' sweeper (api/services.py `media_sweep`): a
    TTL index would leave the files behind."""

    owner = me.StringField(required=True)
    detail = me.DictField()  # the stored photo: what a photo post's `detail` holds of it
    description = me.StringField(default="")
    post = me.ObjectIdField()
    created = me.DateTimeField(default=now)
    expire = me.DateTimeField()

    meta = {
        "collection": "api_media",
        "indexes": [
            # The sweeper's: uploads no status took in time (taken ones
            # have no `expire`).
            {"fields": ["expire"], "name": "expire", "sparse": True},
            # Erasure: a person's uploads.
            {"fields": ["owner"], "name": "owner"},
        ],
        # Read and taken by `_id` (with its owner checked in the filter).
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class ReadMarker(me.Document):
    """Where a person left their timelines (`/api/v1/markers`,
    docs/api.md#markers): one document per person, `_id` their handle, a
    sub-document per timeline ("home", "notifications") with the last read
    id, a version counted up on each save and when it was saved. Two
    timelines at most: it stays tiny."""

    handle = me.StringField(primary_key=True)
    home = me.DictField()
    notifications = me.DictField()

    meta = {
        "collection": "api_marker",
        # Read and written by `_id` alone (an upsert that may race: E11000
        # is retried once, api/services.py); hashed, as handles cluster.
        "shard_key": ("handle",),
        "shard_hashed": "handle",
        "auto_create_index": False,
    }


# --- Lists: the ids of circles (docs/api.md#lists) ---------------------------


class CircleListId(me.Document):
    """The list id of one of a person's circles. A circle is a name on its
    owner's document (profiles/services/circles.py), and a name can hold
    characters unfit for a URL and changes on a rename; a list id must be
    neither. So a circle is given an ObjectId the first time the API names
    it; a rename (`circle_renamed`) moves the id to the new name, and an id
    whose circle is gone is dropped when the owner's lists are next read."""

    owner = me.StringField(required=True)
    circle = me.StringField(required=True)

    meta = {
        "collection": "api_list",
        "indexes": [
            # Every read is a person's ids (and one of them by name, for a
            # rename); unique: two racing first reads assign one id.
            {"fields": ["owner", "circle"], "unique": True, "name": "owner_circle"},
        ],
        # The whole unique key: "one id per circle" holds across shards.
        "shard_key": ("owner", "circle"),
        "auto_create_index": False,
    }
