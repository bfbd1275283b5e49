"""Erasing an account (docs/accounts.md#erasure): complete by construction.

The main test seeds the demo, has one person act in every app, erases them
through the delete page, then walks every collection of the database (all of
them, as the server lists them, not a list kept here) for any value naming
them, and checks the counters against a recount and the others' pages."""

import io
import re
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from mongoengine.connection import get_db
from PIL import Image

from ads import services as ads
from comments import services as comments
from comments.stores import get_store
from feeds.documents import PollVote, Post, PostLike, PostRepost
from feeds.services import bookmarks, likes, photos, posts, reposts
from messaging import services as messaging
from moderation import services as moderation
from moderation.documents import Report, ReportedItem
from moderation.targets import resolve_target
from notifications import selectors as notification_selectors
from profiles.demo import DEMO_PASSWORD
from profiles.documents import ErasureJob, FollowerEdge, FollowingEdge, User
from profiles.services import circles, erasure, erasure_walk, graph, mutes, recovery
from profiles.services.users import HandleTaken, user_create
from socialsite import owners
from tests.conftest import PASSWORD, login_client, sized
from tests.profiles.test_twofactor import enrol, next_code

HANDLE = "zed_erasable"
NAME = "Quillon Zebedee"
EMAIL = "quillon.zebedee@example.org"
KEPT = {"audit_log"}  # the moderation record (docs/accounts.md#erasure)


def naming(value, needles: tuple[str, ...], path: str = "") -> list[str]:
    """Every path in a document whose key or string value names the person."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if any(n in str(key).lower() for n in needles):
                found.append(f"{path}.{key} (key)")
            found += naming(item, needles, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found += naming(item, needles, f"{path}.{index}")
    elif isinstance(value, str | bytes):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        if any(n in text.lower() for n in needles):
            found.append(f"{path} = {text[:80]!r}")
    return found


def traces(needles: tuple[str, ...]) -> dict[str, list[str]]:
    """Every collection in the database, every document: what still names them."""
    db = get_db()
    left = {}
    for name in sorted(db.list_collection_names()):
        if name in KEPT:
            continue
        hits = [
            f"{doc.get('_id')}: {hit}" for doc in db[name].find({}) for hit in naming(doc, needles)
        ]
        if hits:
            left[name] = hits
    return left


def photo_upload():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 40, 40)).save(buffer, "PNG")
    buffer.name = "zed.png"
    buffer.seek(0)
    return photos.process_upload(buffer)


def by(handle: str) -> User:
    return User.objects.get(handle=handle)


def act_everywhere(zed: User, others: list[str]) -> dict:
    """zed posts, comments, likes, reposts, votes, follows, sorts people into
    a circle, blocks, mutes, reports, moderates and advertises; the others
    answer: a follow, a reply, a report, a like, a block and a mute."""
    ann, bob, cyd, dee, eve = (by(h) for h in others[:5])
    public = posts.post_create(
        author=zed,
        type="status",
        detail={"text": f"Hello @{ann.handle} from zed #newhere"},
        circles=[],
    )
    circles.circle_create(owner=zed, name="close")
    graph.follow_create(follower=zed, followee=ann.handle, circles=["close"])
    graph.follow_create(follower=zed, followee=bob.handle)
    graph.follow_create(follower=bob, followee=HANDLE)
    graph.follow_create(follower=cyd, followee=HANDLE)
    circle_post = posts.post_create(
        author=zed, type="status", detail={"text": "For my circle"}, circles=["close"]
    )
    posts.post_create(
        author=zed,
        type="photo",
        detail={"text": "A red square"},
        circles=[],
        photo=photo_upload(),
    )
    zed_poll = posts.post_create(
        author=zed,
        type="poll",
        detail={"text": "Tea or coffee?", "options": ["tea", "coffee"], "votes": [0, 0]},
        circles=[],
    )
    on_wall = posts.post_create(
        author=bob, type="status", detail={"text": "Welcome, zed"}, circles=[], to=HANDLE
    )
    ann_post = posts.post_create(
        author=ann, type="status", detail={"text": "Ann's news"}, circles=[]
    )
    bob_poll = posts.post_create(
        author=bob,
        type="poll",
        detail={"text": "Best day?", "options": ["mon", "fri"], "votes": [0, 0]},
        circles=[],
    )
    greeting = posts.post_create(
        author=cyd, type="status", detail={"text": f"Say hi to @{HANDLE}!"}, circles=[]
    )
    posts.post_edit(  # its history keeps the first version
        post_id=greeting.id, actor=cyd, changes={"text": f"Say hello to @{HANDLE}!"}
    )
    ann_doc = Post._get_collection().find_one({"_id": ann_post.id})
    comment = comments.comment_create(post=ann_doc, author=zed, text=f"Nice, says {NAME}")
    reply = comments.comment_create(
        post=ann_doc, author=bob, text="Thanks for that", parent_slug=comment.slug
    )
    quoting = comments.comment_create(post=ann_doc, author=cyd, text=f"Agreed with @{HANDLE} here")
    zed_doc = Post._get_collection().find_one({"_id": public.id})
    comments.comment_create(post=zed_doc, author=ann, text="Hi zed")
    # Messages: zed's words in a group that outlives them, and bob's words
    # about zed there and in a conversation zed was never in (the preview too).
    group = messaging.conversation_start(
        sender=zed, to=[ann.handle, bob.handle], text=f"Hi, {NAME} here"
    )
    messaging.message_send(conversation_id=group, sender=bob, text=f"back to @{HANDLE}")
    messaging.conversation_start(sender=bob, to=[cyd.handle], text=f"Ask @{HANDLE} first")
    bookmarks.bookmark_create(owner=HANDLE, post_id=ann_post.id)
    bookmarks.bookmark_create(owner=bob.handle, post_id=public.id)
    likes.like_create(post_id=ann_post.id, user=zed)
    likes.like_create(post_id=ann_post.id, user=bob)  # a like group zed is in
    likes.like_create(post_id=public.id, user=ann)
    reposts.repost_create(post_id=ann_post.id, user=zed)
    reposts.repost_create(post_id=public.id, user=bob)
    posts.poll_vote(post_id=bob_poll.id, voter=zed, option=1)
    posts.poll_vote(post_id=zed_poll.id, voter=ann, option=0)
    graph.block_create(blocker=zed, blocked=eve.handle)
    graph.block_create(blocker=dee, blocked=HANDLE)
    mutes.mute_create(user=zed, handle=dee.handle)
    mutes.mute_create(user=cyd, handle=HANDLE)
    moderation.report_create(
        reporter=zed, target=resolve_target(f"post:{on_wall.id}"), reason="spam"
    )
    moderation.report_create(
        reporter=zed, target=resolve_target(f"post:{ann_post.id}"), reason="other"
    )
    moderation.report_create(
        reporter=cyd, target=resolve_target(f"post:{ann_post.id}"), reason="spam"
    )
    moderation.report_create(
        reporter=bob, target=resolve_target(f"post:{public.id}"), reason="spam"
    )
    moderation.report_create(reporter=cyd, target=resolve_target(f"user:{HANDLE}"), reason="spam")
    moderation.report_create(  # the queue quotes cyd's words, which mention zed
        reporter=ann,
        target=resolve_target(f"comment:{ann_post.id}/{quoting.slug}"),
        reason="other",
    )
    # zed moderates too: a removal and its audit entry (kept), a settled report.
    User.objects(handle=HANDLE).update_one(set__role="moderator")
    zed.reload()
    removed = posts.post_create(author=cyd, type="status", detail={"text": "spam"}, circles=[])
    moderation.report_create(
        reporter=ann, target=resolve_target(f"post:{removed.id}"), reason="spam"
    )
    moderation.post_remove(moderator=zed, target=resolve_target(f"post:{removed.id}"))
    campaign = ads.campaign_create(
        owner=HANDLE, advertiser="zedco", name="Zed's sale", ecpm=Decimal("50"), keywords=[]
    )
    ads.unit_add(
        campaign_id=campaign.id,
        ad_unit_id="zed-1",
        site="socialsite",
        zone="feed",
        title="Zed's ad",
        text="Buy from zed",
        url="https://example.org/zed",
    )
    ads.campaign_activate(campaign_id=campaign.id)
    return {
        "public": public.id,
        "circle_post": circle_post.id,
        "ann_post": ann_post.id,
        "comment": comment.slug,
        "reply": reply.slug,
        "bob_poll": bob_poll.id,
    }


@pytest.fixture
def demo_world(settings):
    settings.FEED_SHADOW_MODELS = "all"
    settings.COMMENTS_SHADOW_STORES = "all"
    settings.FEED_EMBED = True
    with override_settings(RATELIMIT_ENABLED=False):
        # 12 people on mongomock, 6 through a driver (the wire server's time).
        call_command("seed_demo", users=sized(12, 6), maxfollows=5, seed=3, stdout=io.StringIO())
    others = sorted(
        row["_id"] for row in User._get_collection().find({"role": "user"}, {"_id": 1})
    )[:5]
    zed = user_create(handle=HANDLE, name=NAME, password=PASSWORD)
    recovery.email_verify(recovery.email_set(user=zed, email=EMAIL)[0])
    zed.reload()
    return zed, others


def recount_problems() -> list[str]:
    """Every stored counter against a count of what it counts."""
    wrong = []
    following, followers = FollowingEdge._get_collection(), FollowerEdge._get_collection()
    for user in User._get_collection().find({}):
        handle = user["_id"]
        counts = {
            "following_count": following.count_documents({"_f": handle}),
            "followers_count": followers.count_documents({"_f": handle}),
            "posts_count": Post._get_collection().count_documents({"by.id": handle}),
        }
        for field, count in counts.items():
            if user.get(field, 0) != count:
                wrong.append(f"{handle}.{field} = {user.get(field)} != {count}")
        viewer = User.objects.get(handle=handle)
        unread = notification_selectors.unread_visible(viewer)
        if user.get("notifications_unread", 0) != unread:
            wrong.append(f"{handle}.notifications_unread {user.get('notifications_unread')}")
    store = get_store()
    for post in Post._get_collection().find({}):
        counts = {
            "likes_count": PostLike._get_collection().count_documents({"post": post["_id"]}),
            "reposts_count": PostRepost._get_collection().count_documents({"post": post["_id"]}),
            "comments_count": store.count(post["_id"]),
        }
        for field, count in counts.items():
            if post.get(field, 0) != count:
                wrong.append(f"post {post['_id']}.{field} = {post.get(field)} != {count}")
        if post["type"] == "poll":
            votes = [
                PollVote._get_collection().count_documents({"post": post["_id"], "option": i})
                for i in range(len(post["detail"]["options"]))
            ]
            if post["detail"].get("votes") != votes:
                wrong.append(f"poll {post['_id']} votes {post['detail'].get('votes')} {votes}")
    for item in ReportedItem._get_collection().find({}):
        where = {"target_type": item["target_type"], "target_id": item["target_id"]}
        if item["reporters"] != Report._get_collection().count_documents(where):
            wrong.append(f"report item {item['_id']} reporters {item['reporters']}")
    return wrong


def test_erasing_someone_who_acted_everywhere_leaves_nothing_naming_them(demo_world):
    zed, others = demo_world
    made = act_everywhere(zed, others)
    zed_client = login_client(zed)
    assert zed_client.get("/feed/").status_code == 200  # an ad served: offers, a viewer
    ann_client = login_client(by(others[0]), password=DEMO_PASSWORD)
    assert ann_client.get("/feed/").status_code == 200  # zed's ad, maybe: an offer of theirs
    assert zed_client.post("/settings/export/").status_code == 302
    needles = (HANDLE, EMAIL.lower(), NAME.lower())
    before = traces(needles)
    for collection in (
        "user",
        "post",
        "comments",
        "following",
        "followers",
        "post_like",
        "post_repost",
        "poll_vote",
        "notification_buckets",
        "report",
        "report_item",
        "campaign",
        "ad_zone",
        "session",
        "timeline_cache",
        "data_export",
        "photos.files",
        "tag_use",
        "bookmark",
        "conversation",
        "conversation_key",
        "message_buckets",
    ):
        assert collection in before, collection  # the world really names them there

    response = zed_client.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 302

    assert traces(needles) == {}
    assert get_db()["audit_log"].count_documents({"moderator": HANDLE}) == 1  # kept
    # Ann's "zed and bob liked your post" is bob's alone now.
    liked = [
        (item["actor"], item["actors"], item["actor_count"])
        for bucket in get_db()["notification_buckets"].find({"owner": others[0]})
        for item in bucket["items"]
        if item["kind"] == "like" and item.get("post") == made["ann_post"]
    ]
    assert liked == [(others[1], [others[1]], 1)]
    assert recount_problems() == []
    assert not ErasureJob.objects(handle=HANDLE).first()
    # Bob's reply keeps its place under a placeholder.
    thread = ann_client.get(f"/posts/{made['ann_post']}/").content.decode()
    assert "[deleted account]" in thread and "Thanks for that" in thread
    assert "Agreed with [deleted account] here" in thread  # cyd's words, zed's handle gone
    assert f'data-slug="{made["reply"]}"' in thread
    # Everyone else's pages still render.
    for handle in sorted(row["_id"] for row in User._get_collection().find({}, {"_id": 1})):
        client = login_client(by(handle), password=DEMO_PASSWORD)
        for path in ("/feed/", f"/u/{handle}/", "/incoming/", "/notifications/"):
            assert client.get(path).status_code == 200, (handle, path)
    anonymous = Client()
    assert anonymous.get(f"/u/{HANDLE}/").status_code == 404
    assert anonymous.get(f"/posts/{made['public']}/").status_code == 404
    # The handle is held: nobody can sign up as zed for HANDLE_HOLD_DAYS.
    with pytest.raises(HandleTaken):
        user_create(handle=HANDLE, name="Someone else", password=PASSWORD)


def test_an_erasure_cut_short_resumes_where_it_stopped(make_user, settings, monkeypatch):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ann = make_user("ann")
    zed = make_user(HANDLE)
    for n in range(5):
        post = posts.post_create(
            author=zed, type="status", detail={"text": f"post {n}"}, circles=[]
        )
        likes.like_create(post_id=post.id, user=ann)
    graph.follow_create(follower=ann, followee=HANDLE)
    erasure.erasure_begin(user=zed)  # the task is queued, not run (dummy backend)
    assert by(HANDLE).status == "erasing" and Client().get(f"/u/{HANDLE}/").status_code == 404

    real_erase, batches = posts.posts_erase, []

    def dies_in_the_second_batch(some):
        if batches:
            raise SystemExit("the worker is killed")
        batches.append(len(some))
        real_erase(some)

    monkeypatch.setattr(posts, "posts_erase", dies_in_the_second_batch)
    with pytest.raises(SystemExit):
        erasure_walk.erasure_run(HANDLE, batch=2)
    assert ErasureJob.objects.get(handle=HANDLE).step == "post"
    assert Post.objects(by__id=HANDLE).count() == 3
    assert erasure_walk.erasures_stalled(older_than_seconds=-1) == [HANDLE]

    monkeypatch.setattr(posts, "posts_erase", real_erase)
    assert erasure_walk.erasure_run(HANDLE, batch=2)  # the sweeper's run finishes it
    assert traces((HANDLE,)) == {}
    assert by("ann").following_count == 0 and recount_problems() == []
    assert erasure_walk.erasures_stalled(older_than_seconds=-1) == []


def test_what_lands_after_its_eraser_ran_is_found_by_the_verification(make_user, settings):
    """A revision of an edited post that once named them (the post no longer
    does), a notification written after the notifications' eraser ran, and
    an upload's chunks that lost their files document: the walk's
    verification pass finds what names them, and the chunks go with it."""
    from bson import ObjectId

    from notifications.buckets import push_item
    from notifications.tasks import tell
    from socialsite.clock import now

    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ann, zed = make_user("ann"), make_user(HANDLE)
    post = posts.post_create(
        author=ann, type="status", detail={"text": f"hi @{HANDLE}"}, circles=[]
    )
    posts.post_edit(post_id=post.id, actor=ann, changes={"text": "hi everyone"})
    assert Post.objects.get(id=post.id).mentions == []  # only the revision names them now
    orphan = ObjectId.from_datetime(now().replace(year=now().year - 1))
    get_db()["photos.chunks"].insert_one({"files_id": orphan, "n": 0, "data": b"x"})

    entry = owners.declared()["notification_buckets"]
    real = entry.erase

    late = []

    def then_a_late_notification(handle, limit):
        done = real(handle, limit)
        if not done and not late:  # a task queued before the erasure runs just after
            late.append(1)
            push_item("ann", {"id": ObjectId(), "kind": "follow", "actor": HANDLE, "ts": now()})
        return done

    owners._OWNED["notification_buckets"] = entry.__class__(
        entry.collection, entry.fields, then_a_late_notification, entry.app, entry.why
    )
    try:
        erasure.erasure_begin(user=zed)
        assert erasure_walk.erasure_run(HANDLE, batch=2)
    finally:
        owners._OWNED["notification_buckets"] = entry
    assert traces((HANDLE,)) == {}
    assert get_db()["photos.chunks"].count_documents({"files_id": orphan}) == 0
    assert not ErasureJob.objects(handle=HANDLE).first()
    # And a notification task queued before the erasure, run after: refused.
    tell.call("ann", "follow", HANDLE)
    assert traces((HANDLE,)) == {}


def test_an_erasure_walked_twice_counts_nothing_twice(make_user, settings):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ann, zed = make_user("ann"), make_user(HANDLE)
    graph.follow_create(follower=ann, followee=HANDLE)
    graph.follow_create(follower=zed, followee="ann")
    post = posts.post_create(author=ann, type="status", detail={"text": "hello"}, circles=[])
    likes.like_create(post_id=post.id, user=zed)
    erasure.erasure_begin(user=zed)
    assert erasure_walk.erasure_run(HANDLE, batch=1)
    ErasureJob._get_collection().insert_one({"_id": HANDLE, "step": "", "runs": 0})
    assert erasure_walk.erasure_run(HANDLE, batch=1)  # a second walk, from the start
    assert recount_problems() == []
    assert (by("ann").followers_count, by("ann").following_count) == (0, 0)
    assert Post.objects.get(id=post.id).likes_count == 0


def test_deleting_needs_the_password_and_with_two_factor_a_code(make_user, login):
    zed = make_user(HANDLE)
    client = login(zed)
    page = client.get("/settings/delete/").content.decode()
    assert 'name="password"' in page and 'name="code"' not in page
    response = client.post("/settings/delete/", {"password": "not it"})
    assert response.status_code == 200 and "does not match" in response.content.decode()
    assert by(HANDLE).status == "active"

    secret, _codes = enrol(client)
    page = client.get("/settings/delete/").content.decode()
    assert 'name="code"' in page
    response = client.post("/settings/delete/", {"password": PASSWORD, "code": "000000"})
    assert "does not match" in response.content.decode() and by(HANDLE).status == "active"
    response = client.post("/settings/delete/", {"password": PASSWORD, "code": next_code(secret)})
    assert response.status_code == 302
    assert User.objects(handle=HANDLE).first() is None
    assert client.get("/feed/").status_code == 302  # logged out


def test_wrong_passwords_on_the_delete_page_are_rate_limited(make_user, login, settings):
    settings.RATELIMIT_ACCOUNT_DELETE = "2/900"
    client = login(make_user(HANDLE))
    for _ in range(2):
        assert client.post("/settings/delete/", {"password": "wrong"}).status_code == 200
    response = client.post("/settings/delete/", {"password": PASSWORD})
    assert response.status_code == 429 and by(HANDLE).status == "active"


def test_every_collection_declares_who_it_names():
    assert owners.undeclared() == []

    import mongoengine as me

    class Scrapbook(me.Document):  # a new collection, its owners not declared
        by = me.StringField()
        meta = {"collection": "scrapbook_for_test", "auto_create_index": False}

    try:
        assert owners.undeclared() == ["scrapbook_for_test"]
    finally:
        from mongoengine.base import common

        common._document_registry.pop("Scrapbook", None)


def test_signing_up_as_an_erased_handle_is_refused_for_the_hold(make_user, login):
    client = login(make_user(HANDLE))
    assert client.post("/settings/delete/", {"password": PASSWORD}).status_code == 302
    response = Client().post(
        "/accounts/signup/",
        {"username": HANDLE, "name": "New", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 200 and "That handle is taken." in response.content.decode()
    assert re.search(r"[0-9a-f]{64}", str(get_db()["held_handle"].find_one()["_id"]))


@pytest.mark.mongomock_only(
    reason="a benchmark over the whole demo; the erasure tests above run through the driver"
)
def test_the_accounts_benchmark_erases_a_demo_person_completely(capsys):
    from benchmarks import accounts as bench

    assert bench.main(["--users", "12", "--extra-posts", "3", "--wipe"]) == 0
    out = capsys.readouterr().out
    assert "no collection but the audit log names" in out
    assert re.search(r"^erasure \|\s+[\d,]+ \|\s+\d+ \|", out, re.M), out
