"""Two Socialsite instances on the loopback, each its own process and
database, federating (docs/federation.md), driven on both sides by a real
Mastodon client (Mastodon.py) as people's apps would drive them.

One test walks the whole story in order (each step needs the one before):
B's person finds A's by `@name@domain` and follows her; her public post
reaches his home timeline; his like, repost and reply reach her (counts,
notifications, the reply in her thread and on her post page); her edit and
delete reach him; a circles post never does; his unfollow reaches her; and
once A's moderator blocks B's domain, B's activities stop at A's door.
"""

import time
from collections.abc import Callable

import pytest
from mastodon.errors import MastodonNotFoundError

from tests.federation import fedify
from tests.federation.instances import two_instances  # noqa: F401 (a fixture)

pytestmark = pytest.mark.no_test_db(
    reason="each instance runs in a subprocess on its own demo database"
)


def eventually(check: Callable[[], object], what: str, timeout: float = 15) -> object:
    """`check()`'s first truthy answer, asked until `timeout` (deliveries
    run on each instance's worker thread, a moment after the request)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.2)


def _status_or_none(client, status_id):
    try:
        return client.status(status_id)
    except MastodonNotFoundError:
        return None


def test_an_independent_implementation_reads_us(two_instances):  # noqa: F811
    """Fedify (TypeScript, tests/federation/fedify.py) finds a person by
    WebFinger and reads her actor and a post of hers from a running
    instance, through its own JSON-LD processing and key checks."""
    a, _ = two_instances
    alice = a.client("alice")
    assert alice.instance()["domain"] == f"127.0.0.1:{a.port}"
    post = alice.status_post("Read by Fedify")
    if not fedify.installed():
        pytest.fail("Fedify is not installed: scripts/setup.sh installs it (SETUP_FEDIFY=1)")
    result = fedify.fedify_lookup(
        [
            *fedify.LOOPBACK,
            f"acct:alice@127.0.0.1:{a.port}",
            f"{a.url}/u/alice/",
            f"{a.url}/posts/{post['id']}/",
        ]
    )
    by_webfinger, actor, note = fedify.parsed(result)
    assert result.returncode == 0, result.stderr
    for person in (by_webfinger, actor):
        assert person["type"] == "Person" and person["id"] == f"{a.url}/u/alice/"
        assert person["object"]["preferredUsername"] == "alice"
        assert "publicKey" in person["object"] or "publicKeys" in str(person["object"])
    assert note["type"] == "Note" and note["id"] == f"{a.url}/posts/{post['id']}/"
    assert "Read by Fedify" in note["object"]["content"]


def test_people_on_two_instances_follow_and_talk(two_instances):  # noqa: F811
    a, b = two_instances
    alice = a.client("alice")  # on A
    ben = b.client("dennis_turing")  # on B
    alice_there = f"alice@127.0.0.1:{a.port}"
    ben_here = f"dennis_turing@127.0.0.1:{b.port}"

    # B resolves and follows A's person; A accepts.
    (found,) = ben.search_v2(f"@{alice_there}", resolve=True)["accounts"]
    assert found["acct"] == alice_there and found["username"] == "alice"
    assert found["url"] == f"{a.url}/u/alice/"
    ben.account_follow(found["id"])
    eventually(
        lambda: (
            ben_here in {f["acct"] for f in alice.account_followers(alice.me()["id"], limit=80)}
        ),
        "A lists B's person among alice's followers",
    )
    eventually(
        lambda: not ben.account_relationships(found["id"])[0]["requested"],
        "the Follow is accepted on B",
    )
    assert ben.account_relationships(found["id"])[0]["following"]

    # Her public post reaches his home timeline.
    post = alice.status_post("Hello from A, #federation works")

    def arrived():
        return next(
            (s for s in ben.timeline_home(limit=40) if s["account"]["acct"] == alice_there), None
        )

    copy = eventually(arrived, "A's post in B's home timeline")
    assert "Hello from A" in copy["content"] and copy["url"] == post["url"]

    # His like, repost and reply reach her.
    ben.status_favourite(copy["id"])
    ben.status_reblog(copy["id"])
    ben.status_post("Greetings from B!", in_reply_to_id=copy["id"])

    def counted():
        s = alice.status(post["id"])
        return (s["favourites_count"], s["reblogs_count"], s["replies_count"]) == (1, 1, 1)

    eventually(counted, "the like, the repost and the reply counted on A")
    kinds = {(n["type"], n["account"]["acct"]) for n in alice.notifications(limit=20)}
    assert {("favourite", ben_here), ("reblog", ben_here), ("follow", ben_here)} <= kinds
    (reply,) = alice.status_context(post["id"])["descendants"]
    assert reply["account"]["acct"] == ben_here and "Greetings from B!" in reply["content"]
    page = a.web("alice").get(f"{a.url}/posts/{post['id']}/", timeout=30).text
    assert "Greetings from B!" in page and ben_here in page

    # Her edit and her delete reach him.
    alice.status_update(post["id"], status="Hello from A, edited")
    eventually(lambda: "edited" in ben.status(copy["id"])["content"], "the edit on B")
    secret = alice.status_post("only for my circles", visibility="private")
    alice.status_delete(post["id"])
    eventually(lambda: _status_or_none(ben, copy["id"]) is None, "the delete on B")
    # (The delete was sent after the circles post: had that gone out, it
    # would be there by now.)
    seen = " ".join(s["content"] for s in ben.timeline_home(limit=40))
    assert "only for my circles" not in seen and secret["visibility"] == "private"

    # His unfollow reaches her.
    ben.account_unfollow(found["id"])
    eventually(
        lambda: (
            ben_here
            not in {f["acct"] for f in alice.account_followers(alice.me()["id"], limit=80)}
        ),
        "the unfollow on A",
    )

    # A's moderator blocks B's domain: B's activities stop at A's door.
    moderator = a.web("moderator")
    page = moderator.get(f"{a.url}/mod/domains/", timeout=30)
    assert page.status_code == 200
    blocked = moderator.post(
        f"{a.url}/mod/domains/",
        data={
            "domain": f"127.0.0.1:{b.port}",
            "level": "block",
            "reason": "test",
            "csrfmiddlewaretoken": moderator.cookies["csrftoken"],
        },
        timeout=30,
    )
    assert blocked.status_code == 200
    ben.account_follow(found["id"])

    def refused_at_the_door():
        return [
            line
            for line in a.log().splitlines()
            if '"method": "POST"' in line and 'inbox"' in line and '"status": 403' in line
        ]

    eventually(refused_at_the_door, "A answering B's Follow with 403")
    followers = {f["acct"] for f in alice.account_followers(alice.me()["id"], limit=80)}
    assert ben_here not in followers
