"""Federation's own collections (docs/federation.md#remote-people-and-posts).

Remote people and posts live in `user` and `post` like our own; what only
federation needs lives here: our people's keys, the map from ActivityPub ids
to our objects, our follows of remote people waiting for their server's
answer, the deliveries still to make, and the moderators' domain rules.
"""

import mongoengine as me

from socialsite.clock import now

DELIVERY_STATES = ("pending", "failed")
FOLLOW_STATES = ("requested", "accepted")
DOMAIN_LEVELS = ("silence", "block")


class ActorKey(me.Document):
    """One of our people's RSA key pair, made the first time it is needed."""

    handle = me.StringField(primary_key=True)
    private_pem = me.StringField(required=True)
    public_pem = me.StringField(required=True)
    created = me.DateTimeField(default=now)

    meta = {
        "collection": "ap_key",
        "shard_key": ("handle",),
        "shard_hashed": "handle",
        "auto_create_index": False,
    }


class ApObject(me.Document):
    """A remote object's id (a Note, a reply, an Announce, a Like) and the
    thing of ours it became: a post, a comment on one, a repost or a like.
    The `_id` is unique, so two deliveries of one Create insert one post."""

    uri = me.StringField(primary_key=True)
    kind = me.StringField(required=True)  # post | comment | repost | like
    post = me.ObjectIdField()  # the post it is, or is on
    slug = me.StringField()  # the comment's, for a reply
    by = me.StringField()  # the remote author's handle
    ts = me.DateTimeField(default=now)

    meta = {
        "collection": "ap_object",
        "indexes": [
            {"fields": ["post", "slug"], "name": "post_slug"},
            {"fields": ["by"], "name": "by"},
        ],
        "shard_key": ("uri",),
        "shard_hashed": "uri",
        "auto_create_index": False,
    }


class RemoteFollow(me.Document):
    """Our person's follow of a remote person: `requested` until their server
    sends Accept (a Reject, or none, ends it: the edge goes)."""

    id = me.StringField(primary_key=True)  # "<follower> <followee>"
    follower = me.StringField(required=True)
    followee = me.StringField(required=True)
    activity = me.StringField(required=True)  # our Follow's id, which Accept names
    state = me.StringField(choices=FOLLOW_STATES, default="requested")
    ts = me.DateTimeField(default=now)

    meta = {
        "collection": "ap_follow",
        "indexes": [
            {"fields": ["activity"], "name": "activity"},
            {"fields": ["follower"], "name": "follower"},
            {"fields": ["followee"], "name": "followee"},
        ],
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class Delivery(me.Document):
    """One activity to one inbox (a shared inbox stands for all its people
    here). The document is the work's mark: written before the send is
    queued, deleted by the send that succeeds; a failed send sets `due` by
    backoff, and after FEDERATION_DELIVERY_ATTEMPTS it is `failed`, listed
    on /mod/domains/ and never tried again on its own."""

    activity = me.DictField(required=True)
    inbox = me.StringField(required=True)
    domain = me.StringField(required=True)
    signer = me.StringField(required=True)  # our person whose key signs it
    state = me.StringField(choices=DELIVERY_STATES, default="pending")
    attempts = me.IntField(default=0)
    due = me.DateTimeField(default=now)  # when the next try may start
    created = me.DateTimeField(default=now)
    error = me.StringField(default="")

    meta = {
        "collection": "ap_delivery",
        "indexes": [
            # The sweeper's read: pending deliveries whose time has come.
            {"fields": ["state", "due"], "name": "state_due"},
            {"fields": ["domain", "state"], "name": "domain_state"},
            {"fields": ["signer"], "name": "signer"},
        ],
        "shard_key": ("id",),
        "shard_hashed": "id",
        "auto_create_index": False,
    }


class DomainRule(me.Document):
    """A moderator's rule for a whole server: `silence` lets its people reach
    only those here who follow them, `block` refuses everything from it and
    sends it nothing (federation/moderation.py)."""

    domain = me.StringField(primary_key=True)
    level = me.StringField(choices=DOMAIN_LEVELS, required=True)
    reason = me.StringField(default="")
    by = me.StringField(required=True)
    ts = me.DateTimeField(default=now)

    meta = {"collection": "ap_domain", "auto_create_index": False}
