"""Issue 14 in a real browser: an admin switches their session to the read
model at /dev/; the feed shows the same posts, and the footer meter counts
more round trips. Then the compare page, saved at desktop and phone width
(test-artifacts/devlens-compare-<width>.png) for a person to look at."""

import pytest
from playwright.sync_api import expect

from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph

DESKTOP, PHONE = 1280, 390


@pytest.fixture
def admin_with_a_feed(settings, make_user):
    settings.FEED_MODEL = "cache"
    settings.FEED_SHADOW_MODELS = "all"
    settings.COMMENTS_SHADOW_STORES = "all"
    root = make_user("root", "Ruth Admin", role="admin")
    for author in ("ada", "bob", "cyd"):
        writer = make_user(author, author.title())
        graph.follow_create(follower=root, followee=author)
        for n in range(3):
            feeds.post_create(
                author=writer,
                type="status",
                detail={"text": f"{author.title()} says hello, {n}"},
                circles=[PUBLIC],
            )
    return root


def feed_state(page):
    page.goto("/feed/")
    meter = page.locator("footer details.db-meter")
    expect(meter).to_have_count(1)
    ids = page.locator("article.post").evaluate_all("(els) => els.map((e) => e.dataset.postId)")
    return ids, int(meter.get_attribute("data-round-trips"))


def test_an_admin_switches_to_the_read_model(admin_with_a_feed, page, sign_in, artifacts_dir):
    sign_in(page, "root")
    # Opening /dev/ first: from then on each page also records its cost in
    # the session (one write per page), before as after the switch.
    page.goto("/dev/")
    posts, trips_cached = feed_state(page)
    assert len(posts) == 9

    page.goto("/dev/")
    expect(page.locator('[data-in-use="timeline-model"]')).to_have_attribute("data-value", "cache")
    page.get_by_label("Timeline model").select_option("read")
    page.get_by_role("button", name="Switch this session").click()
    expect(page.locator("ul.messages")).to_contain_text("Switched")
    expect(page.locator('[data-in-use="timeline-model"]')).to_have_attribute("data-value", "read")
    expect(page.locator('[data-in-use="timeline-model"]')).to_have_attribute(
        "data-source", "session"
    )

    same_posts, trips_read = feed_state(page)
    assert same_posts == posts
    assert trips_read > trips_cached

    page.goto("/dev/")
    expect(page.locator("[data-last-page]")).to_have_attribute("data-last-page", "/feed/")
    page.get_by_role("button", name="Reset to settings").click()
    expect(page.locator('[data-in-use="timeline-model"]')).to_have_attribute(
        "data-source", "settings"
    )


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_compare_page(admin_with_a_feed, new_page, sign_in, artifacts_dir, width):
    page = new_page()
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, "root")
    page.goto("/dev/")
    page.get_by_label("Page to compare").fill("/feed/")
    page.get_by_role("button", name="Compare", exact=True).click()
    rows = page.locator("tr.model-row")
    expect(rows).to_have_count(4)
    for model in ("cache", "month", "size", "read"):
        expect(page.locator(f'tr.model-row[data-model="{model}"]')).to_have_attribute(
            "data-parity", "ok"
        )
    page.screenshot(path=str(artifacts_dir / f"devlens-compare-{width}.png"), full_page=True)
    if width == PHONE:
        # The tables scroll inside their box; the page itself does not.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
