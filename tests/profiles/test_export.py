"""A person's data export (docs/accounts.md#export): a zip of JSON files,
built by a task, downloadable by its owner alone for EXPORT_KEEP_DAYS, one
a day; only what they wrote or chose, other people by handle."""

import io
import json
import re
import zipfile
from datetime import timedelta
from decimal import Decimal

import pytest
from bson import ObjectId
from django.core.management import call_command
from django.test import Client, override_settings
from mongoengine.connection import get_db

from ads import services as ads
from comments.stores import get_store
from feeds.documents import Post
from feeds.services import bookmarks, likes, reposts
from profiles.demo import DEMO_PASSWORD
from profiles.documents import DataExport, User
from socialsite import owners
from socialsite.clock import now
from tests.conftest import login_client, sized

# DESIGN's list of what an export holds, less messages (they come later),
# plus poll votes and the reports filed.
LISTED = {
    "profile",
    "posts",
    "comments",
    "comment_votes",
    "messages",
    "following",
    "followers",
    "circles",
    "blocks",
    "mutes",
    "likes",
    "reposts",
    "votes",
    "notifications",
    "reports",
    "campaigns",
    "bookmarks",
    # The apps the person authorized through the client API (docs/api.md).
    "authorized_apps",
}


@pytest.fixture
def demo(settings):
    settings.FEED_SHADOW_MODELS = "all"
    settings.COMMENTS_SHADOW_STORES = "all"
    with override_settings(RATELIMIT_ENABLED=False):
        # 12 people on mongomock, 6 through a driver (the wire server's time).
        call_command("seed_demo", users=sized(12, 6), maxfollows=5, seed=5, stdout=io.StringIO())
    alice = User.objects.get(handle="alice")
    others = Post.objects(by__id__ne="alice", circles="*public*").order_by("-ts")[:2]
    likes.like_create(post_id=others[0].id, user=alice)
    reposts.repost_create(post_id=others[1].id, user=alice)
    bookmarks.bookmark_create(owner="alice", post_id=others[0].id)
    campaign = ads.campaign_create(
        owner="alice", advertiser="alicesshop", name="Alice's sale", ecpm=Decimal("3"), keywords=[]
    )
    return alice, campaign


def exported(client) -> dict[str, list]:
    page = client.get("/settings/export/").content.decode()
    assert 'data-state="ready"' in page and "data-download" in page
    response = client.get(_download_link(page))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    return {name: json.loads(archive.read(name)) for name in archive.namelist()}


def _download_link(page: str) -> str:
    return re.search(r'href="(/settings/export/[^"/]+/download/)"', page)[1]


@pytest.mark.mongomock_only(
    reason="what the files hold, not the driver: an export is built through the driver by "
    "the download test and the paged bookmarks test, and the demo's seeding by the erasure test"
)
def test_a_demo_users_export_holds_every_file_as_json_and_nobody_elses_data(demo):
    alice, campaign = demo
    client = login_client(alice, password=DEMO_PASSWORD)
    assert client.post("/settings/export/").status_code == 302
    files = exported(client)

    assert set(files) == {f"{name}.json" for name in LISTED}
    assert {entry.name for entry in owners.export_files()} == LISTED
    assert all(isinstance(records, list) for records in files.values())
    [profile] = files["profile.json"]
    assert profile["handle"] == "alice" and profile["email"] == "alice@example.org"
    # Everything is alice's own: her posts, her comments, her campaign.
    own_posts = {str(p.id) for p in Post.objects(by__id="alice")}
    assert {p["id"] for p in files["posts.json"]} == own_posts and own_posts
    store = get_store()
    for comment in files["comments.json"]:
        found = store.get(ObjectId(comment["post"]), comment["slug"])
        assert found.author["id"] == "alice"
    assert files["comments.json"] and files["following.json"] and files["followers.json"]
    for mark in files["likes.json"] + files["reposts.json"] + files["bookmarks.json"]:
        post = Post.objects.get(id=mark["post"])
        assert mark["author"] == post.by.id != "alice"
    assert files["likes.json"] and files["reposts.json"]
    assert [c["id"] for c in files["campaigns.json"]] == [campaign.id]
    # Nobody else's name or address: others appear by handle alone.
    text = json.dumps(files)
    others = User._get_collection().find({"_id": {"$ne": "alice"}}, {"name": 1, "email": 1})
    for other in others:
        assert other["name"] not in text, other["_id"]
        assert not other.get("email") or other["email"] not in text
    for item in files["notifications.json"]:
        assert set(item) == {"kind", "by", "post", "comment", "ts"}


def test_only_its_owner_downloads_an_export_and_only_for_a_week(make_user, login):
    from feeds.services import posts

    alice = make_user("alice")
    posts.post_create(author=alice, type="status", detail={"text": "mine"}, circles=["*public*"])
    client = login(alice)
    client.post("/settings/export/")
    link = _download_link(client.get("/settings/export/").content.decode())
    assert login(make_user("mallory")).get(link).status_code == 404
    admin = login(make_user("admin", role="admin"))
    assert admin.get(link).status_code == 404  # not even an admin
    assert Client().get(link).status_code == 302  # to the login page
    assert client.get("/settings/export/nope/download/").status_code == 404

    DataExport.objects(owner="alice").update(set__expires=now() - timedelta(seconds=1))
    assert client.get(link).status_code == 404
    assert "has expired" in client.get("/settings/export/").content.decode()
    out = io.StringIO()
    call_command("accounts_sweep", stdout=out)
    assert "1 exports expired" in out.getvalue()
    assert DataExport.objects.count() == 0 and get_db()["exports.files"].count_documents({}) == 0


def test_one_export_a_day(make_user, login):
    client = login(make_user("ada"))
    assert client.post("/settings/export/").status_code == 302
    again = client.post("/settings/export/")
    assert again.status_code == 429 and "one export a day" in again.content.decode()
    assert DataExport.objects.count() == 1
    DataExport.objects(owner="ada").update(set__requested=now() - timedelta(hours=25))
    assert client.post("/settings/export/").status_code == 302
    assert DataExport.objects.count() == 2


def test_an_export_of_10000_bookmarks_reads_them_in_pages(make_user, round_trips, capsys):
    """The bookmarks are read a page of 500 at a time, each page's authors
    with it: a person's marks are never held whole, nor one `$in` of them.
    (10,000 on mongomock; 1,500, three pages, through the driver.)"""
    from feeds.documents import Bookmark
    from feeds.selectors.export import bookmarks_export

    total = sized(10_000, 1_500)
    make_user("ada")
    posts = [
        {"_id": ObjectId(), "by": {"id": "bob", "name": "Bob"}, "ts": now(), "circles": []}
        for _ in range(1000)
    ]
    Post._get_collection().insert_many(posts)
    t = now()
    Bookmark._get_collection().insert_many(
        [
            {"owner": "ada", "post": ObjectId(), "ts": t - timedelta(seconds=n)}
            for n in range(total - len(posts))
        ]
        + [
            {"owner": "ada", "post": post["_id"], "ts": t + timedelta(seconds=n)}
            for n, post in enumerate(posts)
        ]
    )
    with round_trips() as counter:
        rows = list(bookmarks_export("ada"))
    assert len(rows) == total and rows[0]["author"] == "bob"
    # Pages of 500: each a batch of the cursor and a read of its authors.
    assert counter.total <= 2 * (total // 500) + 1, counter.commands
    with capsys.disabled():
        print(f"\nexport of {total:,} bookmarks: {counter.total} round trips")


def test_an_export_past_its_size_cap_stops_and_says_so(make_user, login, settings):
    settings.EXPORT_MAX_BYTES = 10
    client = login(make_user("ada"))
    assert client.post("/settings/export/").status_code == 302
    export = DataExport.objects.get(owner="ada")
    assert (export.state, export.reason) == ("failed", "too_large")
    assert get_db()["exports.files"].count_documents({}) == 0
    assert 'data-reason="too_large"' in client.get("/settings/export/").content.decode()


def test_two_export_requests_at_once_build_one(make_user, settings):
    """Two requests past the one-a-day check together: the unique partial
    index lets one `building` export in; the other is refused."""
    from profiles.services import exports

    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    make_user("ada")
    exports.export_request(handle="ada")
    DataExport.objects(owner="ada").update(set__requested=now() - timedelta(hours=25))
    with pytest.raises(exports.ExportRefused, match="being built"):
        exports.export_request(handle="ada")  # the first is still building
    assert DataExport.objects(owner="ada").count() == 1
