"""Users and the follower graph.

`user` follows *Storing Updates and Profiles*'s `social.user` (profile sub-document, circles, block
list) with `_id` = the handle, as the Socialite user service does (Socialite's user graph service):
the `_id` is unique, already indexed, and a good shard key. The graph lives in
two small edge collections, `following` and `followers`, never in unbounded
arrays in the user document (Socialite's user graph service).
"""

from typing import Literal

import mongoengine as me

from socialsite.clock import now
from socialsite.documents import (
    GridChunk,
    GridFile,
    PinnedToPrimary,
    grid_chunk_meta,
    grid_file_meta,
)
from socialsite.ids import HANDLE_RE

ROLES = ("user", "moderator", "admin", "advertiser")
# "erasing": the person asked to be erased and the walk is under way
# (profiles/services/erasure.py): no login, no page, as if gone.
STATUSES = ("active", "suspended", "erasing")


class Profile(me.DynamicEmbeddedDocument):
    """Free-form profile data, isolated so it can evolve (*Storing Updates and Profiles*).

    Dynamic: a field this code does not know (written by a newer release, a
    migration or another tool) loads as an attribute instead of failing the
    page, and `profile_update` sets only the fields it edits, so it survives.
    """

    bio = me.StringField(max_length=500, default="")
    location = me.StringField(max_length=100, default="")
    interests = me.ListField(me.StringField(max_length=40), default=list)
    website = me.StringField(max_length=200, default="")


class StoredFilter(me.EmbeddedDocument):
    """One keyword filter of its owner's (profiles/filters.py reads them,
    profiles/services/filters.py writes them): `expires` None for never."""

    id = me.StringField(required=True)
    phrase = me.StringField(required=True)
    contexts = me.ListField(me.StringField(), default=list)
    action = me.StringField(required=True)
    expires = me.DateTimeField()

    meta = {"strict": False}


#: Who may start a conversation with a person: anyone, the people they
#: follow, or nobody.
MESSAGES_FROM = ("everyone", "following", "nobody")


class User(PinnedToPrimary, me.Document):
    handle = me.StringField(primary_key=True, regex=HANDLE_RE.pattern)
    name = me.StringField(required=True, max_length=80)
    # Lower-cased words of the name and the whole name: a prefix search on
    # them is served by a multikey index (people search).
    name_terms = me.ListField(me.StringField())
    profile = me.EmbeddedDocumentField(Profile, default=Profile)
    password = me.StringField(required=True)
    role = me.StringField(choices=ROLES, default="user")
    # The owner's circle names; membership is an annotation on the edges.
    circles = me.ListField(me.StringField(max_length=30), default=list)
    # Handles this user blocked, on the blocker's document as in *Storing Updates and Profiles*.
    blocked = me.ListField(me.StringField(), default=list)
    # Handles this user muted: their posts, reposts and notifications leave
    # this user's pages; they are not told. At most MAX_MUTES (mute_create
    # refuses more, in the same update), so the document stays small.
    muted = me.ListField(me.StringField(), default=list)
    # Hashtags this user follows (folded): their public posts join this
    # user's news when it is read. At most MAX_FOLLOWED_TAGS
    # (profiles/services/tags.py).
    followed_tags = me.ListField(me.StringField(), default=list)
    # Post ids this user pinned to the top of their wall, newest pin first,
    # at most MAX_PINS (profiles/services/pins.py refuses more in the same
    # update). Here because the wall's page loads its owner's document with
    # the session: knowing the pins costs no query (docs/discovery.md#pins).
    pinned = me.ListField(me.ObjectIdField(), default=list)
    followers_count = me.IntField(default=0)
    following_count = me.IntField(default=0)
    posts_count = me.IntField(default=0)
    # How many posts this user bookmarked (feeds keeps it, through
    # standing.py): loaded with the session, so a page of cards whose read
    # did not look bookmarks up asks only when there are some to find.
    bookmarks_count = me.IntField(default=0)
    # Notifications not yet seen, as the page would list them (the header's
    # number), and the time of the newest item the page showed when opened.
    # Unread conversations (the messaging app keeps it, through standing.py):
    # the header's count, read with the session.
    messages_unread = me.IntField(default=0)
    # Bumped with every change of it: a recount writes only if it is
    # unchanged since its read (messaging/services.py `unread_recount`).
    messages_version = me.IntField(default=0)
    # Who may start a conversation with this person (docs/messages.md).
    messages_from = me.StringField(choices=MESSAGES_FROM, default="everyone")
    notifications_unread = me.IntField(default=0)
    notifications_seen = me.DateTimeField()
    # Bumped by every write to the two above: a recount writes only if it is
    # unchanged since its read (profiles/services/standing.py).
    notifications_version = me.IntField(default=0)
    created = me.DateTimeField(default=now)
    last_seen = me.DateTimeField(default=now)
    status = me.StringField(choices=STATUSES, default="active")
    # Set while the feeds rebuild this user's timelines after a long absence;
    # the feed page then says so and reads through the read model.
    feed_rebuild = me.DateTimeField()
    suspended_until = me.DateTimeField()
    suspension_reason = me.StringField(default="")
    # The address the person gave, lower-cased, and whether they proved it is
    # theirs by following the link sent to it: reset links go to verified
    # addresses only (docs/accounts.md). The nonces are what the one-use
    # links sign; each is removed when its link is used, or replaced by the
    # next link (the earlier one then fails).
    email = me.StringField(max_length=254)
    email_verified = me.BooleanField(default=False)
    email_nonce = me.StringField()
    reset_nonce = me.StringField()
    # Each address change keeps, for UNDO days, what it replaced, so the
    # replaced address can take the account back (docs/accounts.md#changing-
    # the-address): `n` the undo link's nonce, `email` and `verified` as they
    # were, `had_2fa` whether two-factor login was on, `at` the change. The
    # newest few only (profiles/services/recovery.py UNDO_KEPT).
    email_undos = me.ListField(me.DictField(), default=list)
    # Two-factor login (docs/accounts.md#two-factor-login): the TOTP secret once
    # confirmed, the one being enrolled, the newest time step a code was
    # accepted for (a code never works twice), and the SHA-256 hashes of the
    # unused recovery codes.
    totp_secret = me.StringField()
    totp_pending = me.StringField()
    totp_step = me.IntField(default=0)
    recovery_codes = me.ListField(me.StringField(), default=list)
    # Keyword filters (docs/privacy.md#keyword-filters): on the reader's own
    # document, which every page loads with the session, so applying them
    # costs no query. At most MAX_FILTERS (profiles/filters.py), held by the
    # update that adds one.
    filters = me.ListField(me.EmbeddedDocumentField(StoredFilter), default=list)
    # A person of another server's (docs/federation.md): their server's domain,
    # and what their actor document said (`id`, `inbox`, `shared_inbox`, `url`,
    # `key_id`, `public_key`, `followers`, `fetched`). None for our own people.
    domain = me.StringField()
    actor = me.DictField(default=None)
    # Domains this person blocked for themselves: each known person there is
    # blocked too, and so is each one met later (docs/federation.md#moderation-and-safety).
    blocked_domains = me.ListField(me.StringField(), default=None)
    # Followers on other servers, counted with the edges (profiles/services/
    # graph.py): a post by someone with none federates without a read.
    # None where not known (an account from before it was counted, or a
    # document read without it): federation asks the edges then.
    remote_followers_count = me.IntField(default=None)

    meta = {
        "collection": "user",
        "indexes": [
            {"fields": ["name_terms", "_id"], "name": "name_terms_search"},
            {"fields": ["role"], "name": "role"},
            # Status alone (moderation) and the landing page's newest active users.
            {"fields": ["status", "-created"], "name": "status_created"},
            # A password reset finds the accounts of an address.
            {"fields": ["email"], "name": "email", "sparse": True},
            # Erasure takes the person out of everyone's block and mute lists.
            {"fields": ["blocked"], "name": "blocked", "sparse": True},
            {"fields": ["muted"], "name": "muted", "sparse": True},
            {"fields": ["domain"], "name": "domain", "sparse": True},
            # Not unique: `user` is sharded by `_id`, which a unique index must lead.
            {"fields": ["actor.id"], "name": "actor_id", "sparse": True},
            {"fields": ["actor.key_id"], "name": "actor_key_id", "sparse": True},
            {"fields": ["blocked_domains"], "name": "blocked_domains", "sparse": True},
        ],
        "shard_key": ("handle",),
        "auto_create_index": False,
        # A top-level field this code does not know is ignored, not a 500 on
        # every page (the user is loaded on each request): the schema evolves.
        "strict": False,
    }

    # Django's request.user protocol.
    is_authenticated: Literal[True] = True
    is_anonymous: Literal[False] = False

    @property
    def username(self) -> str:
        return self.handle

    @property
    def is_remote(self) -> bool:
        """A person of another server's, stored here so every page works on them."""
        return bool(self.domain)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def has_2fa(self) -> bool:
        return bool(self.totp_secret)

    @property
    def is_moderator(self) -> bool:
        return self.role in ("moderator", "admin")

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def __str__(self) -> str:
        return f"@{self.handle}"


class FollowingEdge(me.Document):
    """`following`: one document per edge follower -> followee (Socialite's user graph service).

    `_g` holds the follower's circle names for this followee: "members of my
    circle X" is one indexed query, `{_f: me, _g: X}`. `state` goes
    adding -> active -> removing; see `profiles.services` for why.
    """

    follower = me.StringField(db_field="_f", required=True)
    followee = me.StringField(db_field="_t", required=True)
    circles = me.ListField(me.StringField(), db_field="_g", default=list)
    state = me.StringField(choices=("adding", "active", "removing"), default="active")
    since = me.DateTimeField(default=now)
    changed = me.DateTimeField(default=now)

    meta = {
        "collection": "following",
        "indexes": [
            {"fields": ["follower", "followee"], "unique": True, "name": "_f_1__t_1"},
            {"fields": ["follower", "circles", "followee"], "name": "_f_1__g_1__t_1"},
            # The reverse index of Socialite's user graph service: who placed this user in a circle
            # (the read model's circle shares).
            {"fields": ["followee", "follower"], "name": "_t_1__f_1"},
            {"fields": ["state", "changed"], "name": "state_changed"},
        ],
        # `{_f, _t}`, not `{_f}`: one account's edges can then split into
        # many chunks (a `{_f}` chunk of a big account is jumbo and cannot
        # split), while `{_f: x}` reads still go to the shards of x's range.
        "shard_key": ("follower", "followee"),
        "auto_create_index": False,
    }


class FollowerEdge(me.Document):
    """`followers`: the same edge flipped, `_f` = followee, `_t` = follower.

    Seed 003's "separate following collection" option: each direction is
    sharded on its own `{_f, _t}`, so both list queries target the owner's
    range of chunks (one shard unless the list is huge), and the
    fan-out of a post reads `{_f: author}` covered by the `(_f, _t)` index.
    """

    followee = me.StringField(db_field="_f", required=True)
    follower = me.StringField(db_field="_t", required=True)
    since = me.DateTimeField(default=now)

    meta = {
        "collection": "followers",
        "indexes": [
            {"fields": ["followee", "follower"], "unique": True, "name": "_f_1__t_1"},
        ],
        # A celebrity's followers are the jumbo chunk `{_f}` would make.
        "shard_key": ("followee", "follower"),
        "auto_create_index": False,
    }


class ErasureJob(me.Document):
    """An erasure under way (profiles/services/erasure_walk.py): the walk's place,
    so a task that dies resumes where it stopped. Deleted when the walk ends:
    it is the last document naming the person."""

    handle = me.StringField(primary_key=True)
    step = me.StringField(default="")  # the collection being erased
    started = me.DateTimeField(default=now)
    beat = me.DateTimeField(default=now)  # the last batch's end
    runs = me.IntField(default=0)
    # What the verification pass still found ("collection.field"), when it
    # kept the job for the sweeper's next walk.
    left = me.ListField(me.StringField())

    meta = {
        "collection": "erasure",
        # The sweeper's stalled walks.
        "indexes": [{"fields": ["beat"], "name": "beat"}],
        "auto_create_index": False,
    }


class HeldHandle(me.Document):
    """A handle erased less than HANDLE_HOLD_DAYS ago, which signing up may
    not take: stored as a keyed hash (profiles/selectors/held.py
    `handle_digest`), so the hold names no one, and expired by TTL."""

    digest = me.StringField(primary_key=True)
    until = me.DateTimeField(required=True)

    meta = {
        "collection": "held_handle",
        "indexes": [{"fields": ["until"], "expireAfterSeconds": 0, "name": "until_ttl"}],
        "shard_key": ("digest",),
        "shard_hashed": "digest",
        "auto_create_index": False,
    }


class DataExport(me.Document):
    """One export of a person's data (profiles/services/exports.py): a zip in
    the `exports` GridFS bucket, downloadable by its owner until `expires`."""

    owner = me.StringField(required=True)
    state = me.StringField(choices=("building", "ready", "failed"), default="building")
    requested = me.DateTimeField(default=now)
    ready = me.DateTimeField()
    expires = me.DateTimeField()
    file = me.ObjectIdField()
    size = me.IntField(default=0)
    # Why it failed, when the page has something to say ("too_large").
    reason = me.StringField(default="")

    meta = {
        "collection": "data_export",
        "indexes": [
            # The page's newest export, and the one-a-day check.
            {"fields": ["owner", "-requested"], "name": "owner_requested"},
            # The sweeper's expired exports.
            {"fields": ["expires"], "name": "expires", "sparse": True},
            # One build at a time per person: two requests racing past the
            # one-a-day check collide here (E11000), and one build runs. Also
            # the sweeper's read of builds a dead process left.
            {
                "fields": ["owner"],
                "name": "one_building",
                "unique": True,
                "partialFilterExpression": {"state": "building"},
            },
            {
                "fields": ["state", "requested"],
                "name": "building_requested",
                "partialFilterExpression": {"state": "building"},
            },
        ],
        "auto_create_index": False,
    }


class ExportFile(GridFile):
    """The `exports` GridFS bucket (profiles/services/export_zip.py)."""

    meta = grid_file_meta("exports.files")


class ExportChunk(GridChunk):
    meta = grid_chunk_meta("exports.chunks")
