"""A web process killed (SIGKILL) right after ordinary requests loses
nothing: on a database that outlives it, the next server finishes every
effect it promised, with no command typed (docs/operations.md#durable-background-work).

The database is a wire server of this test's own (scripts/wire_server.py).
The first server runs `manage.py demo` with the `dummy` task backend: every
task it queues is lost for sure, as when a process dies before its worker
thread ran them. After requests that queue a delivery to many followers, an
unfollow, likes and an export, the whole process group is killed. The second
server runs with the `thread` backend and short periods; its first request
(a health probe) starts the sweepers, and within a few periods every
follower has the post, the unfollower's news has no post of the author's,
the likes are a notification and the export is ready.

Star also has a follower on another server (a listener of this test's): the
post's delivery there is marked before it is queued, lost with the first
server, and tried by the second while that server is still down (it fails,
and is put off by backoff); once the listener is up, the Create arrives
(docs/federation.md#delivery).
"""

import http.client
import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pymongo import MongoClient

from benchmarks import demo_server as demo

pytestmark = pytest.mark.no_test_db(
    reason="the servers and the database run in subprocesses of their own"
)

ROOT = Path(__file__).resolve().parent.parent
FANS = 40
PASSWORD = "crash-test-password-1"
START_TIMEOUT = 120
SETTLE_TIMEOUT = 60

# The cast, written directly (set-up, not the subject): Star and FANS
# followers, who share Star's password hash (hashing one each is seconds),
# then one post of Star's delivered to all of them; and a follower on
# another server, whose inbox is this test's listener (REMOTE_PORT).
CAST = """
from feeds.services import posts
from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.services.users import user_create
from socialsite import events
star = user_create(handle="star", name="Star", password={PASSWORD!r})
fans = [f"fan{{i:02d}}" for i in range({FANS})]
row = User._get_collection().find_one({{"_id": "star"}})
User._get_collection().insert_many([{{**row, "_id": h, "name": h}} for h in fans])
for h in fans:
    events.user_created.send(sender=User, handle=h)
FollowerEdge._get_collection().insert_many([{{"_f": "star", "_t": h}} for h in fans])
FollowingEdge._get_collection().insert_many(
    [{{"_f": h, "_t": "star", "_g": [], "state": "active"}} for h in fans]
)
User._get_collection().update_one({{"_id": "star"}}, {{"$set": {{"followers_count": {FANS}}}}})
old = {{"text": "an old post"}}
posts.post_create(author=star, type="status", detail=old, circles=["*public*"])
from profiles.services.graph import follow_create
from profiles.services.remote import remote_user_upsert
far = "127.0.0.1:{REMOTE_PORT}"
ada, _ = remote_user_upsert(
    handle=f"ada@{{far}}", domain=far, name="Ada", bio="",
    actor={{"id": f"http://{{far}}/users/ada", "inbox": f"http://{{far}}/inbox",
           "key_id": f"http://{{far}}/users/ada#main-key", "public_key": "-"}},
)
follow_create(follower=ada, followee="star")
"""


@pytest.fixture
def database(tmp_path):
    """A wire server of its own: (URI, pymongo database)."""
    out = (tmp_path / "wire.out").open("w")
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "wire_server.py")],
        stdout=out,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    uri = ""
    for _ in range(240):
        uri = (tmp_path / "wire.out").read_text().strip()
        if uri or server.poll() is not None:
            break
        time.sleep(0.25)
    if not uri:
        server.kill()
        pytest.fail("the wire server did not start")
    uri = uri.splitlines()[0] + "&connectTimeoutMS=120000"
    client = MongoClient(uri)
    try:
        yield uri, client.get_default_database("socialsite_crash")
    finally:
        client.close()
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


class Browser:
    """Cookies and the CSRF token, over plain urllib."""

    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, fields: dict, *, form_from: str | None = None) -> int:
        page = self.get(form_from or path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, f"no form on {form_from or path}"
        body = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token[1], **fields}, doseq=True
        ).encode()
        request = urllib.request.Request(self.base + path, data=body, method="POST")
        request.add_header("Referer", self.base + (form_from or path))
        with self.opener.open(request, timeout=30) as response:
            return response.status

    def login(self, handle: str) -> None:
        self.post("/accounts/login/", {"username": handle, "password": PASSWORD})
        assert any(cookie.name == "sessionid" for cookie in self.jar), f"{handle} not logged in"


def server_env(uri: str, **more: str) -> dict:
    return {
        "MONGODB_URI": uri,
        "MONGODB_DB": "socialsite_crash",
        "EMAIL_URL": "dummymail://",
        "DEBUG": "true",
        "FEED_MODEL": "cache",
        # Each login hashes the password: a fast hasher, as the in-process
        # tests use (tests/conftest.py FAST_HASHERS), not the subject here.
        "PASSWORD_HASHERS": "django.contrib.auth.hashers.MD5PasswordHasher",
        **more,
    }


class Inbox(BaseHTTPRequestHandler):
    """The other server's shared inbox: it keeps what it is sent."""

    received: list[dict] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Inbox.received.append(json.loads(body))
        self.send_response(202)
        self.end_headers()

    def log_message(self, *args):
        pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_work_queued_before_a_kill_is_finished_after_a_restart(database, tmp_path):
    uri, db = database
    remote_port = free_port()
    cast = CAST.format(PASSWORD=PASSWORD, FANS=FANS, REMOTE_PORT=remote_port)
    env = {**os.environ, "PYTHONPATH": str(ROOT), **server_env(uri, TASKS_BACKEND="immediate")}
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "shell", "-c", cast],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=START_TIMEOUT,
    )
    # The first server: nothing it queues will ever run.
    (tmp_path / "first").mkdir()
    first, port = demo.start(
        [],
        env=server_env(uri, TASKS_BACKEND="dummy"),
        logs=tmp_path / "first",
        timeout=START_TIMEOUT,
    )
    try:
        star = Browser(port)
        star.login("star")
        assert (
            star.post(
                "/posts/", {"type": "status", "text": "killed mid-flight"}, form_from="/feed/"
            )
            == 200
        )
        star.post("/settings/export/", {})
        [new_post] = db.post.find({"detail.text": "killed mid-flight"}, {"_id": 1})
        leaver = Browser(port)
        leaver.login("fan00")
        leaver.post("/u/star/unfollow/", {}, form_from="/u/star/")
        for fan in ("fan01", "fan02"):
            liker = Browser(port)
            liker.login(fan)
            liker.post(
                f"/posts/{new_post['_id']}/like/", {}, form_from=f"/posts/{new_post['_id']}/"
            )
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # no drain, no atexit
        first.wait()

    # What the kill left: nothing was delivered, told or built.
    assert db.post.find_one({"_id": new_post["_id"]})["delivery"]["state"] == "pending"
    assert db.data_export.find_one({"owner": "star"})["state"] == "building"
    assert db.task_mark.count_documents({}) > 0
    (waiting,) = db.ap_delivery.find({})  # marked for the other server, never sent
    assert waiting["attempts"] == 0 and waiting["activity"]["type"] == "Create"

    (tmp_path / "second").mkdir()
    second, _ = demo.start(
        [],
        env=server_env(
            uri,
            TASKS_BACKEND="thread",
            TASKS_SWEEP_SECONDS="1",
            TASKS_LEASE_SECONDS="1",
            FEED_PENDING_SECONDS="1",
            FEDERATION_ALLOW_LOOPBACK="true",
            FEDERATION_RETRY_SECONDS="1",
        ),
        logs=tmp_path / "second",
        timeout=START_TIMEOUT,
    )
    inbox = None
    try:
        # The other server is still down: the sweeper's try fails and is put off.
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline and not db.ap_delivery.find_one(
            {"attempts": {"$gte": 1}}
        ):
            time.sleep(0.25)
        assert db.ap_delivery.find_one({"attempts": {"$gte": 1}}), "no try while it was down"
        Inbox.received.clear()
        inbox = ThreadingHTTPServer(("127.0.0.1", remote_port), Inbox)
        threading.Thread(target=inbox.serve_forever, daemon=True).start()
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline and not settled(db, new_post["_id"]):
            time.sleep(0.5)
    finally:
        demo.stop(second)
        if inbox is not None:
            inbox.shutdown()
            inbox.server_close()
    assert settled(db, new_post["_id"]), report(db, new_post["_id"])


def news(db, owner: str) -> list:
    row = db.timeline_cache.find_one({"owner": owner, "kind": "news"}) or {}
    return [entry["id"] for entry in row.get("entries", [])]


def settled(db, post_id) -> bool:
    return not report(db, post_id)


def report(db, post_id) -> list[str]:
    """What is not done yet, a line each (empty when everything is)."""
    missing = []
    fans = [f"fan{i:02d}" for i in range(1, FANS)]
    without = [fan for fan in fans if post_id not in news(db, fan)]
    if without:
        missing.append(f"{len(without)} follower(s) without the post: {without[:5]}")
    if news(db, "fan00"):
        missing.append("the unfollower's news still holds the author's posts")
    items = [
        item
        for bucket in db.notification_buckets.find({"owner": "star"})
        for item in bucket["items"]
    ]
    likers = {actor for item in items if item["kind"] == "like" for actor in item["actors"]}
    if likers != {"fan01", "fan02"}:
        missing.append(f"like notifications from {sorted(likers)}")
    if db.data_export.find_one({"owner": "star"})["state"] != "ready":
        missing.append("the export is not ready")
    if db.task_mark.count_documents({}):
        missing.append(f"{db.task_mark.count_documents({})} task mark(s) left")
    created = [a for a in Inbox.received if a.get("type") == "Create"]
    if [a["object"]["content"] for a in created] != ["<p>killed mid-flight</p>"]:
        missing.append(f"the other server got {len(created)} Create(s)")
    if db.ap_delivery.count_documents({}):
        missing.append("a delivery is left")
    return missing
