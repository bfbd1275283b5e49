"""A small world with one of everything a route can name: people in every
role, a post of each type, a thread with a reply, a report and an audit entry.

The valid values here are what the probes mix with hostile ones, so that a
hostile query parameter reaches a view past its 404 for an unknown post.
"""

import copy
import io
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

import pyotp
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from mongoengine.connection import get_db
from PIL import Image

from comments import services as comments
from comments.stores import cursors
from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.services import photos
from feeds.services import pins as feed_pins
from feeds.services import posts as feeds
from messaging import services as messaging
from messaging.documents import Conversation
from messaging.selectors import encode_place
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import auth
from profiles import services as graph
from profiles.documents import User
from profiles.filters import CONTEXTS
from profiles.services import exports, recovery, twofactor
from profiles.services import filters as keyword_filters
from socialsite import sessions
from socialsite.cursors import Cursor
from tests.conftest import PASSWORD, written

# cyd is blocked by alice: the pages and actions refused across a block; and
# outside alice and bob's conversation: its routes are all a 404 to cyd.
ROLES = ("anon", "alice", "bob", "cyd", "mod", "admin")


@dataclass
class World:
    """Valid values by kind, one signed-in client per role, and a snapshot to
    go back to: one route's probes may log a role out, suspend it or delete a
    post, which would leave the next route less to reach."""

    values: dict[str, list[str]] = field(default_factory=dict)
    clients: dict[str, Client] = field(default_factory=dict)
    _documents: dict[str, list[dict]] = field(default_factory=dict)
    _cookies: dict[str, SimpleCookie] = field(default_factory=dict)
    _restored_at: int | None = None

    def snapshot(self) -> None:
        db = get_db()
        self._documents = {name: list(db[name].find({})) for name in _collections(db)}
        self._cookies = {role: copy.deepcopy(c.cookies) for role, c in self.clients.items()}
        self._restored_at = written.mark()

    def restore(self) -> None:
        """Back to the snapshot: every collection's documents (indexes stay),
        and each client's cookies, so that each role is signed in again.
        On a real server only the collections written since the snapshot or
        the last restore are copied back (conftest's `written`): the others
        still hold the snapshot, and each collection costs round trips."""
        db = get_db()
        names = written.since(self._restored_at)
        for name in _collections(db) if names is None else sorted(names):
            db[name].delete_many({})
            if self._documents.get(name):
                db[name].insert_many(copy.deepcopy(self._documents[name]))
        self._restored_at = written.mark()
        for role, cookies in self._cookies.items():
            self.clients[role].cookies = copy.deepcopy(cookies)

    def changed(self) -> bool:
        """Whether anything differs from the snapshot since the last restore
        (or the snapshot): a collection written, or a client's cookies; True
        when that is unknown (demo mode outside `written.watching_demo()`)."""
        names = written.since(self._restored_at)
        if names is None or names:
            return True
        return any(
            _values(self.clients[role].cookies) != _values(cookies)
            for role, cookies in self._cookies.items()
        )


def _values(cookies: SimpleCookie) -> dict[str, str]:
    return {name: morsel.value for name, morsel in cookies.items()}


def _collections(db) -> list[str]:
    # A real server (MONGODB_TEST_URI) may list system collections: not ours.
    return [name for name in db.list_collection_names() if not name.startswith("system.")]


def clear_photos() -> None:
    """Empty GridFS, which conftest's per-test cleaning leaves alone."""
    db = get_db()
    for name in ("photos.files", "photos.chunks"):
        db[name].delete_many({})


def _user(handle: str, name: str, role: str = "user") -> User:
    return graph.user_create(handle=handle, name=name, password=PASSWORD, role=role)


def png_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(buf, "PNG")
    return buf.getvalue()


def _post(author: User, kind: str, detail: dict, circles=(PUBLIC,), **kwargs) -> Post:
    return feeds.post_create(
        author=author, type=kind, detail=detail, circles=list(circles), **kwargs
    )


# Link tokens that were never signed, or are cut short.
FAKE_TOKENS = ["eyJoIjoiYWxpY2UifQ:1tXyZa:abc", "x", "a" * 200]


def _client(handle: str) -> Client:
    # The default client: CSRF checks off, as the brief asks; a view
    # exception comes back as the 500 page with `response.exc_info` set.
    client = Client(raise_request_exception=False)
    response = client.post("/accounts/login/", {"username": handle, "password": PASSWORD})
    assert response.status_code == 302, (handle, response.status_code)
    return client


def _campaign() -> None:
    """The admin's active campaign `acme:summer-sale` with unit `unit1` and a
    day of stats: what the ad management routes name (routes.py)."""
    from ads import services as ads
    from ads.documents import AdStats, stats_row_id

    campaign = ads.campaign_create(
        owner="admin", advertiser="acme", name="Summer sale", ecpm="2.50", keywords=["car"]
    )
    ads.unit_add(
        campaign_id=campaign.id,
        ad_unit_id="unit1",
        site="socialsite",
        zone="feed",
        title="Cars",
        text="Fast ones",
        url="https://example.org/cars",
    )
    ads.campaign_activate(campaign_id=campaign.id)
    row = stats_row_id(campaign.id, "unit1", "2026-01-01")
    AdStats(id=row, campaign_id=campaign.id, ad_unit_id="unit1", day="2026-01-01").save()


def _conversations(alice: User, bob: User, cyd: User) -> dict[str, list[str]]:
    """Direct messages (docs/messages.md), as the values of their kinds:
    alice and bob's conversation, long enough to page through at the probes'
    page size; bob's group with alice and cyd, where cyd's message is hidden
    from alice (she blocked cyd: both ways); and bob's with cyd, which alice
    is not in (her probes of it are an outsider's). Bob takes new messages
    only from people he follows, the admin from nobody, so a new conversation
    meets each answer."""
    pair = messaging.conversation_start(sender=alice, to=["bob"], text="hello bob")
    for n in range(4):
        sender = bob if n % 2 == 0 else alice
        messaging.message_send(conversation_id=pair, sender=sender, text=f"message {n}")
    group = messaging.conversation_start(sender=bob, to=["alice", "cyd"], text="all three")
    messaging.message_send(conversation_id=group, sender=cyd, text="hidden from alice")
    apart = messaging.conversation_start(sender=bob, to=["cyd"], text="just us")
    users = User._get_collection()
    users.update_one({"_id": "bob"}, {"$set": {"messages_from": "following"}})
    users.update_one({"_id": "admin"}, {"$set": {"messages_from": "nobody"}})
    newest = Conversation._get_collection().find_one({"_id": group}, {"ts": 1})
    return {
        "conversation_id": [str(pair), str(group), str(apart), "0123456789abcdef01234567"],
        # Places in alice and bob's first bucket: a page before and after each.
        "message_cursor": [encode_place((0, 3)), encode_place((0, 1))],
        "inbox_cursor": [Cursor(newest["ts"], group).encode()],
    }


def build() -> World:
    alice = _user("alice", "Alice Liddell")
    bob = _user("bob", "Bob Kahn")
    cyd = _user("cyd", "Cyd Charisse")
    _user("mod", "Mo Derator", role="moderator")
    _user("admin", "Ada Admin", role="admin")
    graph.circle_create(owner=alice, name="friends")
    alice.reload()
    graph.follow_create(follower=alice, followee="bob", circles=["friends"])
    for reader in (bob, cyd):
        graph.follow_create(follower=reader, followee="alice")
    graph.block_create(blocker=alice.reload(), blocked="cyd")
    alice.reload()

    status = _post(alice, "status", {"text": "hello #world"})
    link = _post(alice, "link", {"url": "https://example.org/", "title": "Ex", "text": "see"})
    poll = _post(alice, "poll", {"question": "Tea?", "options": ["yes", "no"], "votes": [0, 0]})
    checkin = _post(alice, "checkin", {"place": "Paris", "lat": 48.85, "lng": 2.35, "text": ""})
    photo = _post(
        alice,
        "photo",
        {"text": "a pic"},
        photo=photos.process_upload(SimpleUploadedFile("photo.png", png_bytes())),
    )
    circle = _post(alice, "status", {"text": "friends only"}, circles=["friends"])
    _post(alice, "status", {"text": "all circles"}, circles=[ALL_CIRCLES])
    on_wall = _post(bob, "status", {"text": "on your wall"}, to="alice")
    posts = [status, link, poll, checkin, photo, circle, on_wall]
    # Alice's link is pinned to her wall (docs/discovery.md#pins): walls show a
    # pin, and unpinning has one to take out.
    feed_pins.post_pin(user=alice.reload(), post=Post._get_collection().find_one({"_id": link.id}))

    doc = Post._get_collection().find_one({"_id": status.id})
    first = comments.comment_create(post=doc, author=bob, text="first!")
    reply = comments.comment_create(post=doc, author=alice, text="hi", parent_slug=first.slug)
    comments.comment_create(post=doc, author=bob, text="deeper", parent_slug=reply.slug)

    moderation.report_create(
        reporter=bob, target=resolve_target(f"post:{status.id}"), reason="spam", note="ads"
    )
    moderation.report_create(
        reporter=alice, target=resolve_target("user:bob"), reason="other", note="rude"
    )
    mod = User.objects(handle="mod").first()
    moderation.report_dismiss(moderator=mod, target=resolve_target("user:bob"))

    # What the pages treat apart: a post and a comment a moderator removed, a
    # comment its author deleted, a suspended user.
    removed = _post(bob, "status", {"text": "spam spam"})
    moderation.post_remove(moderator=mod, target=resolve_target(f"post:{removed.id}"))
    spam = comments.comment_create(post=doc, author=bob, text="buy now")
    target = resolve_target(f"comment:{status.id}/{spam.slug}")
    moderation.comment_remove(moderator=mod, target=target)
    gone = comments.comment_create(post=doc, author=bob, text="oops")
    comments.comment_delete(post_id=status.id, slug=gone.slug, actor=bob)
    _user("dora", "Dora Suspended")
    moderation.user_suspend(moderator=mod, target=resolve_target("user:dora"), reason="spam")
    conversations = _conversations(alice.reload(), bob.reload(), cyd.reload())
    _campaign()
    # Accounts (docs/accounts.md): bob can reset his password (a verified
    # address and a live link), alice has a link to verify hers, and a second
    # session that her sessions page can end.
    verify_token, _ = recovery.email_set(user=alice.reload(), email="alice@example.org")
    # bob changed his address once: the old one holds a live undo link.
    recovery.email_set(user=bob.reload(), email="bob@old.example")
    _, undo_token = recovery.email_set(user=bob.reload(), email="bob@example.org")
    User._get_collection().update_one({"_id": "bob"}, {"$set": {"email_verified": True}})
    [(_, reset_token)] = recovery.password_reset_links("bob@example.org")
    before = {s["key"] for s in sessions.sessions_of("alice")}
    _client("alice")  # her other session
    other_session = next(s["id"] for s in sessions.sessions_of("alice") if s["key"] not in before)

    # cyd has two-factor login, and a password step waits for her code in
    # the anonymous client; alice is enrolling.
    cyd_secret = twofactor.pending_secret(user=cyd.reload())
    twofactor.enable(user=cyd.reload(), code=pyotp.TOTP(cyd_secret).now())
    alice_pending = twofactor.pending_secret(user=alice.reload())
    # A ready export each: alice's is hers to download, bob's is not hers.
    alice_export = exports.export_request(handle="alice")
    bob_export = exports.export_request(handle="bob")
    # Keyword filters: alice's (one to delete, one that warns), and bob's,
    # which is not hers to delete.
    alice_filter = keyword_filters.keyword_filter_create(
        user=alice.reload(), phrase="spoiler", contexts=["home"], action="hide", expires_in=None
    )
    keyword_filters.keyword_filter_create(
        user=alice.reload(),
        phrase="world",
        contexts=list(CONTEXTS),
        action="warn",
        expires_in=None,
    )
    bob_filter = keyword_filters.keyword_filter_create(
        user=bob.reload(), phrase="tea", contexts=["public"], action="hide", expires_in=None
    )

    values = {
        "handle": ["bob", "alice", "cyd", "dora", "mod", "admin", "nobody_here"],
        "post_id": [str(p.id) for p in [*posts, removed]] + ["0123456789abcdef01234567"],
        # The post that has the thread, for routes that name a comment too.
        "thread_post_id": [str(status.id)],
        "own_post_id": [str(p.id) for p in (status, link, poll, checkin, photo)],
        "pinned_post_id": [str(link.id)] + [str(p.id) for p in [*posts, removed]],
        "poll_post_id": [str(poll.id), str(status.id)],
        "photo_post_id": [str(photo.id), str(status.id)],
        "slug": [first.slug, reply.slug, spam.slug, gone.slug, f"{reply.slug}/zzzz", "zzzz"],
        "timeline_cursor": [Cursor(p.ts, p.id).encode() for p in posts[:3]],
        "comment_cursor": [
            cursors.threaded(first.full_slug),
            cursors.chrono(first.posted, first.id),
            cursors.offset(1),
        ],
        "target": [
            f"post:{status.id}",
            f"comment:{status.id}/{first.slug}",
            "user:bob",
            f"post:{removed.id}",
            f"comment:{status.id}/{spam.slug}",
        ],
        "circle": ["friends", PUBLIC, ALL_CIRCLES],
        "verify_token": [verify_token, *FAKE_TOKENS],
        "reset_token": [reset_token, *FAKE_TOKENS],
        "undo_token": [undo_token, *FAKE_TOKENS],
        "session_id": [other_session, "0123456789abcdef0123", "nosuchsession"],
        "tag": ["world", "World", "123", "nosuchtag"],
        "export_id": [str(alice_export.id), str(bob_export.id), "0123456789abcdef01234567"],
        "filter_id": [alice_filter.id, bob_filter.id, "0123456789abcdef01234567"],
        **conversations,
        # Not form fields: what the query-plan driver makes valid codes from.
        "totp_secret": [cyd_secret],
        "totp_pending": [alice_pending],
    }
    world = World(values=values)
    world.clients = {"anon": Client(raise_request_exception=False)}
    world.clients["anon"].cookies[auth.SECOND_STEP_COOKIE] = auth.second_step_token(
        User.objects.get(handle="cyd"), "/feed/"
    )
    for handle in ROLES[1:]:
        world.clients[handle] = _client(handle)
    # A profile field the code does not know (*Storing Updates and Profiles*: the profile evolves),
    # set after the logins so that a page it breaks is a finding, not a
    # world that cannot be built.
    User._get_collection().update_one({"_id": "bob"}, {"$set": {"profile.shoe_size": 44}})
    world.snapshot()
    return world
