"""The ad network in a real browser (issue 11, docs/ads-api.md).

The admin creates a campaign and a search unit through /ads/manage/, adds
a unit and activates it. Bob searches for the campaign's keyword: the page's
slot, filled by static/ads/embed.js, shows the ad; following it goes through
/ads/click/ to the unit's url, a page of this same site, so the test needs
no internet. The admin's report then counts Bob's click next to the
impression. A second test screenshots the feed with its ad at desktop and
phone widths (test-artifacts/ads-feed-<width>.png) for a person to look at.
"""

import re
from datetime import UTC, datetime

from playwright.sync_api import Page, expect

from ads.documents import AdStats, Campaign
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from tests.e2e.test_accessibility import DESKTOP, PHONE, assert_no_sideways_scroll

KEYWORD = "kayak"
AD_TITLE = "Paddle the quiet lakes"


def _submit(form) -> None:
    form.locator("button[type=submit], input[type=submit]").last.click()


def create_campaign(page: Page) -> str:
    """Fill the new-campaign form; returns the campaign id from the page it lands on."""
    page.goto("/ads/manage/")
    page.get_by_role("link", name="New campaign").first.click()
    form = page.locator("form", has=page.locator("[name=advertiser]"))
    form.locator("[name=advertiser]").fill("lakeside")
    form.locator("[name=name]").fill("Lake season")
    form.locator("[name=ecpm]").fill("4.50")
    form.locator("[name=keywords]").fill(f"{KEYWORD}, canoe")
    _submit(form)
    expect(page).to_have_url(re.compile(r"/ads/manage/campaigns/lakeside:[a-z0-9-]+/$"))
    return page.url.rstrip("/").rsplit("/", 1)[1]


def add_unit(page: Page, target_url: str) -> None:
    form = page.locator("form", has=page.locator("[name=ad_unit_id]"))
    form.locator("[name=ad_unit_id]").fill("lakes-search")
    form.locator("[name=site]").fill("socialsite")
    form.locator("[name=zone]").fill("search")
    form.locator("[name=title]").fill(AD_TITLE)
    form.locator("[name=text]").fill("Quiet water, two seats, one lake.")
    form.locator("[name=url]").fill(target_url)
    _submit(form)


def report_row(page: Page):
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    return page.locator(f'tr.ad-day[data-day="{today}"]')


def test_admin_campaign_shows_on_search_and_counts_the_click(
    make_user, new_page, sign_in, live_server, artifacts_dir
):
    make_user("root", "Ruth Admin", role="admin")
    make_user("alice", "Alice Example")
    make_user("bob", "Bob Kahn")
    admin, bob = new_page(), new_page()
    sign_in(admin, "root")

    campaign_id = create_campaign(admin)
    target = f"{live_server.url}/u/alice/"
    add_unit(admin, target)
    expect(admin).to_have_url(
        re.compile(rf"/ads/manage/campaigns/{re.escape(campaign_id)}/(#[a-z-]+)?$")
    )
    expect(admin.locator("body")).to_contain_text(AD_TITLE)
    admin.locator(f'form[action$="/{campaign_id}/activate/"]').locator(
        "button, input[type=submit]"
    ).first.click()
    expect(admin.locator(f'form[action$="/{campaign_id}/deactivate/"]')).to_have_count(1)
    assert Campaign.objects.get(id=campaign_id).status == "active"

    # Bob searches for the keyword: embed.js fills the search page's slot.
    sign_in(bob, "bob")
    bob.goto(f"/search/?q={KEYWORD}")
    ad = bob.locator(f'aside.ad[data-campaign="{campaign_id}"]')
    expect(ad).to_have_count(1)
    expect(ad).to_have_attribute("data-ad-unit", "lakes-search")
    expect(ad).to_contain_text("Sponsored")
    link = ad.locator("a", has_text=AD_TITLE)
    expect(link).to_have_attribute("href", re.compile(r"/ads/click/[A-Za-z0-9_-]+/$"))
    expect(link).to_have_attribute("rel", re.compile(r"\bsponsored\b"))
    bob.screenshot(path=str(artifacts_dir / "ads-search.png"), full_page=True)

    # Following it goes through /ads/click/ to the stored url.
    with bob.expect_response(re.compile(r"/ads/click/[A-Za-z0-9_-]+/$")) as click:
        link.click()
    assert click.value.status == 302
    assert click.value.headers["location"] == target
    expect(bob).to_have_url(target)
    expect(bob.locator("h1")).to_contain_text("Alice Example")

    # The report counts the click beside the impression, on the page and in the CSV.
    admin.goto(f"/ads/manage/campaigns/{campaign_id}/")
    row = report_row(admin)
    expect(row).to_have_attribute("data-clicks", "1")
    impressions = int(row.get_attribute("data-impressions"))
    assert impressions >= 1
    stats = AdStats.objects(campaign_id=campaign_id)
    assert sum(s.clicks for s in stats) == 1
    assert sum(s.impressions for s in stats) == impressions
    admin.screenshot(path=str(artifacts_dir / "ads-report.png"), full_page=True)


def test_feed_ad_at_desktop_and_phone_width(
    make_user, new_page, sign_in, ad_campaign, artifacts_dir
):
    """One ad among the feed's posts, told apart from them; screenshots for a person."""
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    make_user("roastery", "Corner Roastery", role="advertiser")
    graph.follow_create(follower=bob, followee="ada")
    for text in ("Sourdough attempt #14", "Rye or spelt?", "Tea at mine on Sunday", "Crumb shot"):
        feeds.post_create(author=ada, type="status", detail={"text": text}, circles=[PUBLIC])
    campaign_id = ad_campaign("roastery", "feed", "Your first bag is on us", keywords=["coffee"])

    page = new_page()
    sign_in(page, "bob")
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto("/feed/")
        ad = page.locator(f'aside.ad[data-campaign="{campaign_id}"]')
        expect(ad).to_have_count(1)
        expect(ad).to_contain_text("Sponsored")
        expect(ad.locator("a[rel~=sponsored]")).to_have_attribute(
            "href", re.compile(r"/ads/click/[A-Za-z0-9_-]+/$")
        )
        # Among the posts, not one of them: after the third post, outside any article.
        expect(page.locator("article.post aside.ad")).to_have_count(0)
        expect(page.locator("article.post")).to_have_count(4)
        ad_box, post_box = ad.bounding_box(), page.locator("article.post").nth(2).bounding_box()
        assert ad_box["y"] > post_box["y"] + post_box["height"] - 1
        assert ad_box["width"] <= width
        if width == PHONE:
            assert_no_sideways_scroll(page, "the feed with an ad")
        # From the top: a full-page shot taken scrolled down paints the sticky header mid-page.
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(artifacts_dir / f"ads-feed-{width}.png"), full_page=True)
