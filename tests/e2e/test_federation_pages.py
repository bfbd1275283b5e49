"""Federation's pages in a real browser (docs/federation.md): a moderator's
/mod/domains/ and the rule form on it, a person's blocked servers on
/circles/, and a person of another server on the feed, on their profile and
in search, each checked by axe-core at desktop and phone width and saved as
test-artifacts/federation-<page>-<width>.png, pass or fail, for a person
to look at.

The world is made with the services, not over the network: the remote
person and her post are stored as an inbox would store them, and the two
places that would reach her server are replaced for the test (the live
server runs in this process): sending a delivery, and looking her up.
"""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from bson import ObjectId
from playwright.sync_api import Page, expect

from federation import moderation, resolve, sending
from federation.documents import Delivery
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles.documents import User
from profiles.services import graph, remote
from socialsite.clock import now
from tests.e2e.test_accessibility import (
    BLOCKING,
    DESKTOP,
    PHONE,
    assert_no_sideways_scroll,
    violations_report,
)

ADA = "ada@remote.example"
POST_URL = "https://remote.example/@ada/1"
MEDIA_URL = "https://remote.example/m/1.png"
KITE = "A red kite over a hill"


@pytest.fixture
def world(make_user, monkeypatch):
    """Ada of remote.example and her post with an image, followed by alice,
    who blocked noisy.example; a block of spam.example, and a delivery to
    slow.example that failed for good."""
    # Nothing leaves for another server: a delivery stays queued (the
    # backlog shows alice's Follow waiting for remote.example).
    monkeypatch.setattr(sending, "send", lambda delivery_ids: {"skipped": len(delivery_ids)})
    mod = make_user("mod", "Mo Derator", role="moderator")
    alice = make_user("alice", "Alice Liddell")
    ada, _ = remote.remote_user_upsert(
        handle=ADA,
        domain="remote.example",
        name="Ada Lovelace",
        bio="Poet of science",
        actor={
            "id": "https://remote.example/users/ada",
            "inbox": "https://remote.example/users/ada/inbox",
            "url": "https://remote.example/@ada",
            "key_id": "https://remote.example/users/ada#main-key",
            "public_key": "-",
        },
    )
    graph.follow_create(follower=alice, followee=ADA)
    feeds.post_create(
        author=ada,
        type="status",
        detail={
            "text": "Hello from far away #federation",
            "attachments": [{"url": MEDIA_URL, "alt": KITE, "media_type": "image/png"}],
        },
        circles=[PUBLIC],
        url=POST_URL,
    )
    moderation.domain_rule_set(moderator=mod, domain="spam.example", level="block", reason="Spam")
    Delivery._get_collection().insert_one(
        {
            "_id": ObjectId(),
            "activity": {"type": "Create", "id": f"https://ours.example/a/{ObjectId()}"},
            "inbox": "https://slow.example/inbox",
            "domain": "slow.example",
            "signer": "alice",
            "state": "failed",
            "attempts": 16,
            "due": now() + timedelta(hours=1),
            "created": now() - timedelta(hours=3),
            "error": "timed out after 5 seconds",
        }
    )
    moderation.person_blocks_domain(user=User.objects.get(handle="alice"), domain="noisy.example")
    # `@ada@remote.example` in the search box: her server "answers" with her.
    monkeypatch.setattr(resolve, "resolve_handle", lambda acct: User.objects.get(handle=ADA))


def axe_violations(page: Page, axe) -> list[dict]:
    """axe-core's violations on the page as it is now. Injected once per page
    load (a resize keeps it), not before each run as `axe.run` does: a
    fraction of a second per run, in a module that should take seconds."""
    if page.evaluate("typeof axe === 'undefined'"):
        page.evaluate(axe.axe_script)
    return page.evaluate("axe.run({resultTypes: ['violations']})")["violations"]


def look(page: Page, name: str, *, axe, artifacts_dir: Path) -> None:
    """The page at desktop then phone width (resized, not reloaded): saved,
    no serious or critical axe violation, and nothing scrolls sideways on
    the phone."""
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"federation-{name}-{width}.png"), full_page=True)
        violations = axe_violations(page, axe)
        print(f"axe on {name} at {width}px: {violations_report(violations) or 'nothing'}")
        blocking = [v for v in violations if v["impact"] in BLOCKING]
        assert not blocking, f"{name} at {width}px:\n{violations_report(blocking)}"
        expect(page.locator("h1")).to_have_count(1)
    assert_no_sideways_scroll(page, name)


def test_federation_pages_for_a_moderator_and_a_person(
    world, new_page, sign_in_by_cookie, axe, artifacts_dir
):
    # Mo's /mod/domains/: the block, the backlog by domain, the failed one.
    mod = new_page()
    sign_in_by_cookie(mod.context, "mod")
    mod.goto("/mod/domains/")
    rule = mod.locator("tr[data-domain-rule='spam.example']")
    expect(rule).to_have_attribute("data-level", "block")
    expect(rule).to_contain_text("Spam")
    expect(rule.get_by_role("button", name="Lift the rule on spam.example")).to_be_visible()
    slow = mod.locator("tr[data-backlog-domain='slow.example']")
    expect(slow.locator("[data-count=failed]")).to_have_text("1")
    expect(
        slow.get_by_role("button", name="Retry the failed deliveries to slow.example")
    ).to_be_visible()
    waiting = mod.locator("tr[data-backlog-domain='remote.example']")
    expect(waiting.locator("[data-count=pending]")).to_have_text("1")  # alice's Follow
    expect(mod.locator("[data-failed-delivery='https://slow.example/inbox']")).to_contain_text(
        "timed out"
    )
    look(mod, "domains", axe=axe, artifacts_dir=artifacts_dir)

    # A silence through the form, listed beside the block.
    mod.set_viewport_size({"width": DESKTOP, "height": 900})
    form = mod.locator("[data-section=domain-rule-form] form")
    form.get_by_label("Domain").fill("quiet.example")
    form.get_by_role("radio", name=re.compile(r"^Silence")).check()
    form.get_by_label("Reason").fill("Too loud")
    form.get_by_role("button", name="Set the rule").click()
    expect(mod.locator("ul.messages")).to_contain_text("quiet.example is silenced.")
    quiet = mod.locator("tr[data-domain-rule='quiet.example']")
    expect(quiet).to_have_attribute("data-level", "silence")
    expect(quiet).to_contain_text("Too loud")
    expect(mod.locator("[data-count=domain-rules]")).to_have_text("2")

    # Alice's blocked servers on /circles/.
    alice = new_page()
    sign_in_by_cookie(alice.context, "alice")
    alice.goto("/circles/")
    blocked = alice.locator("#blocked-domains")
    expect(blocked.locator("[data-blocked-domain='noisy.example']")).to_contain_text(
        "noisy.example"
    )
    expect(blocked.get_by_role("button", name="Unblock noisy.example")).to_be_visible()
    expect(blocked.get_by_label("Block a server")).to_be_visible()
    look(alice, "circles", axe=axe, artifacts_dir=artifacts_dir)

    # Her feed: Ada's post, linking to its original and to its image.
    alice.goto("/feed/")
    post = alice.locator("article.post", has_text="Hello from far away")
    expect(post.locator("a.post__origin")).to_have_attribute("href", POST_URL)
    expect(post.locator("a.post__origin")).to_have_text(re.compile(r"via remote\.example"))
    expect(post.locator("ul.attachments").get_by_role("link", name=KITE)).to_have_attribute(
        "href", MEDIA_URL
    )
    expect(post.locator("img")).to_have_count(0)  # another server's media is never fetched here
    look(alice, "feed", axe=axe, artifacts_dir=artifacts_dir)

    # Ada's profile: where she lives, no wall to write on, no messages.
    alice.goto(f"/u/{ADA}/")
    header = alice.locator("#profile")
    expect(header.locator(".profile__remote")).to_contain_text("On another server, remote.example")
    expect(header.get_by_role("link", name="See their profile there")).to_have_attribute(
        "href", "https://remote.example/@ada"
    )
    expect(header.locator("[data-message-link]")).to_have_count(0)
    expect(alice.locator("form.composer")).to_have_count(0)
    expect(alice.locator("article.post", has_text="Hello from far away")).to_have_count(1)
    look(alice, "profile", axe=axe, artifacts_dir=artifacts_dir)

    # The search box finds her by @name@domain.
    alice.goto("/search/?q=@ada@remote.example")
    expect(alice.get_by_role("heading", name="On another server")).to_be_visible()
    found = alice.locator("#remote-result")
    expect(found.get_by_role("link", name="Ada Lovelace")).to_have_attribute("href", f"/u/{ADA}/")
    look(alice, "search", axe=axe, artifacts_dir=artifacts_dir)
