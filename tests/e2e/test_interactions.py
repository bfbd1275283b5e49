"""Issue 12 in a real browser: "n new posts", likes and notifications.

Ada posts. Bob, who follows her and has his feed open, sees "1 new post"
appear without reloading, loads it above what he was reading, and likes it.
Ada's header then shows one unread notification, and her notification page
lists Bob's like of that post. Both pages are saved at 1280 and 390 px.
"""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect

from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.documents import User
from socialsite.clock import now
from tests.e2e.test_accessibility import BLOCKING, violations_report

WIDTHS = {"desktop": 1280, "phone": 390}
FRESH = "Fresh from Ada: the tide is out"


@pytest.fixture
def people(make_user, settings):
    """Bob follows Ada; his feed holds `n` older posts of hers. The feed asks
    for new posts every 300 ms here instead of every 30 s."""
    settings.FEED_NEW_POLL_MS = 300
    make_user("ada", "Ada Lovelace")
    make_user("bob", "Bob Kahn")
    graph.follow_create(follower=User.objects.get(handle="bob"), followee="ada")

    def older_posts(n: int) -> None:
        ada = User.objects.get(handle="ada")
        for i in range(n):
            feeds.post_create(
                author=ada,
                type="status",
                detail={"text": f"An older post, number {i + 1}"},
                circles=[PUBLIC],
                ts=now() - timedelta(hours=n - i),
            )

    return older_posts


def ada_posts(page: Page, text: str) -> None:
    page.goto("/feed/")
    page.locator("form.composer textarea[name=text]").fill(text)
    page.locator("form.composer").get_by_role("button", name="Post", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Posted.")


def offer(page: Page):
    return page.locator(".feed-list .new-posts__button")


@pytest.mark.parametrize("width_name", WIDTHS)
def test_a_new_post_appears_is_loaded_liked_and_notified(
    width_name, people, new_page, sign_in, axe, artifacts_dir
):
    width = WIDTHS[width_name]
    people(2)
    bob, ada = new_page(), new_page()
    for page in (bob, ada):
        page.set_viewport_size({"width": width, "height": 900})
    sign_in(bob, "bob")
    sign_in(ada, "ada")
    # Ada has seen that Bob follows her: nothing is unread when the journey starts.
    ada.goto("/notifications/")
    expect(ada.locator('li.notification[data-kind="follow"][data-actor="bob"]')).to_have_count(1)
    ada.goto("/feed/")
    expect(ada.locator("header a.notifications")).to_have_attribute("data-unread", "0")
    expect(bob.locator("article.post")).to_have_count(2)
    expect(offer(bob)).to_be_hidden()
    # Marks this page load: a reload would lose it.
    bob.evaluate("() => { window.sameLoad = true; }")

    ada_posts(ada, FRESH)

    # Bob's open feed offers it, without a reload, as a button in a live region.
    expect(offer(bob)).to_have_text("1 new post")
    expect(bob.get_by_role("status").get_by_role("button", name="1 new post")).to_be_visible()
    assert bob.evaluate("() => window.sameLoad") is True
    expect(bob.locator("article.post", has_text=FRESH)).to_have_count(0)
    bob.screenshot(path=str(artifacts_dir / f"interactions-offer-{width}.png"))
    found = axe.run(bob).response["violations"]
    blocking = [v for v in found if v["impact"] in BLOCKING]
    assert not blocking, violations_report(blocking)

    offer(bob).click()
    first = bob.locator("article.post").first
    expect(first).to_contain_text(FRESH)
    expect(bob.locator("article.post")).to_have_count(3)
    expect(offer(bob)).to_be_hidden()
    assert bob.evaluate("() => window.sameLoad") is True
    # The list now starts at the new post: nothing more is new.
    post_id = first.get_attribute("data-post-id")
    since = bob.locator(".feed-list").get_attribute("data-since")
    assert re.fullmatch(rf"[0-9]+_{post_id}", since), since

    # Bob likes it, in place.
    first.get_by_role("button", name="Like").click()
    expect(first).to_have_attribute("data-likes", "1")
    assert bob.evaluate("() => window.sameLoad") is True
    bob.screenshot(path=str(artifacts_dir / f"interactions-feed-{width}.png"), full_page=True)

    # Ada's header counts one unread notification; her page lists the like.
    ada.goto("/feed/")
    bell = ada.locator("header a.notifications")
    expect(bell).to_have_attribute("data-unread", "1")
    bell.click()
    expect(ada).to_have_url(re.compile(r"/notifications/$"))
    # Newest first: Bob's like, unread, above his follow, read before.
    items = ada.locator("li.notification")
    expect(items).to_have_count(2)
    liked = items.first
    expect(liked).to_have_attribute("data-kind", "like")
    expect(liked).to_have_attribute("data-actor", "bob")
    expect(liked).to_have_attribute("data-post-id", post_id)
    expect(liked).to_contain_text("Bob")
    expect(ada.locator("li.notification--unread")).to_have_count(1)
    expect(items.nth(1)).to_have_attribute("data-kind", "follow")
    shot = artifacts_dir / f"interactions-notifications-{width}.png"
    ada.screenshot(path=str(shot), full_page=True)
    # Opening the page read them.
    ada.goto("/feed/")
    expect(ada.locator("header a.notifications")).to_have_attribute("data-unread", "0")


def test_loading_new_posts_keeps_the_readers_place(people, new_page, sign_in, artifacts_dir):
    """Bob has scrolled down his feed: the new posts go in above, the post he
    is reading stays where it is on screen, and the button then takes him up
    to them."""
    people(12)
    bob, ada = new_page(), new_page()
    bob.set_viewport_size({"width": 1280, "height": 700})
    sign_in(bob, "bob")
    sign_in(ada, "ada")
    reading_id = bob.locator("article.post").nth(6).get_attribute("id")
    reading = bob.locator(f"#{reading_id}")
    reading.scroll_into_view_if_needed()
    bob.evaluate("() => window.scrollBy(0, 120)")
    before = reading.bounding_box()["y"]

    ada_posts(ada, FRESH)
    ada_posts(ada, "And another one from Ada")

    expect(offer(bob)).to_have_text("2 new posts")
    expect(offer(bob)).to_be_in_viewport()  # it stays in view while he scrolls
    bob.screenshot(path=str(artifacts_dir / "interactions-offer-scrolled-1280.png"))
    offer(bob).click()
    expect(bob.locator("article.post")).to_have_count(14)
    expect(offer(bob)).to_have_text("Show the 2 new posts above")
    assert abs(reading.bounding_box()["y"] - before) <= 2
    expect(bob.locator("article.post").first).not_to_be_in_viewport()
    bob.screenshot(path=str(artifacts_dir / "interactions-added-above-1280.png"))

    offer(bob).click()
    newest = bob.locator("article.post").first
    expect(newest).to_contain_text("And another one from Ada")
    expect(newest).to_be_in_viewport()
    expect(newest).to_be_focused()
    expect(offer(bob)).to_be_hidden()
    bob.screenshot(path=str(artifacts_dir / "interactions-place-kept-1280.png"))
