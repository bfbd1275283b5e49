"""Pages a person can use: axe-core finds no serious or critical problem on the
main pages, at desktop width and at phone width, and at phone width nothing
scrolls sideways and the header's links stay reachable.

The world is a small but realistic one: people who follow each other, a circle,
posts of every kind (a mention, a link, a photo, a check-in, a poll with a
vote, a post on someone else's wall), a comment thread with a reply, and an
open report in the moderation queue. Every page is saved as
test-artifacts/a11y-<page>-<width>.png, pass or fail, for a person to look at.
"""

import io
import re
from datetime import timedelta
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from playwright.sync_api import expect

from ads.serving.choosing import choose_ads
from api import services as api_services
from comments import services as comments
from comments import votes as comment_votes
from comments.stores import get_store as get_comment_store
from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.services import photos
from feeds.services import posts as feeds
from feeds.services.polls import poll_vote
from messaging import services as messaging
from moderation.services.reports import report_create
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import User
from profiles.services import exports, recovery
from profiles.services import filters as keyword_filters
from profiles.services.users import profile_update
from tests.e2e.conftest import TIMEOUT_MS, screenshot_if_failed

DESKTOP, PHONE = 1280, 390
APP_REDIRECT = "https://pocket.example/callback"
# axe's two highest impacts: the ones that stop a person from using the page.
BLOCKING = {"serious", "critical"}
THREAD_TEXT = "Which starter do you use? Mine is six years old."


def _png(width=320, height=200) -> bytes:
    image = Image.new("RGB", (width, height), (60, 120, 200))
    for x in range(width // 3):
        for y in range(height):
            image.putpixel((x, y), (230, 160, 40))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def world(make_user, ad_campaign):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    cyd = make_user("cyd", "Cyd Charisse")
    mod = make_user("mod", "Mo Derator", role="moderator")
    make_user("alan", "Alan Turing")
    profile_update(
        user=ada,
        name="Ada Lovelace",
        bio="Bakes sourdough, writes programs for engines that do not exist yet.",
        location="London",
        interests=["baking", "maths", "poetry"],
        website="https://example.org/ada",
    )
    graph.circle_create(owner=ada, name="friends")
    graph.circle_create(owner=ada, name="bakers")
    graph.follow_create(follower=ada, followee="bob", circles=["friends"])
    graph.follow_create(follower=ada, followee="cyd", circles=["bakers"])
    for reader in (bob, cyd, mod):
        graph.follow_create(follower=reader, followee="ada")
    graph.follow_create(follower=bob, followee="cyd")

    def post(author, kind, detail, circles=(PUBLIC,), **kwargs):
        return feeds.post_create(
            author=author, type=kind, detail=detail, circles=list(circles), **kwargs
        )

    photo = photos.process_upload(SimpleUploadedFile("loaf.png", _png(), "image/png"))
    post(
        ada,
        "photo",
        {"text": "Loaf number fourteen", "alt": "A round sourdough loaf on a wooden board"},
        photo=photo,
    )
    post(
        ada,
        "checkin",
        {"place": "Borough Market", "lat": 51.5055, "lng": -0.0910, "text": "Flour run"},
    )
    poll = post(
        ada,
        "poll",
        {"question": "Rye or spelt?", "options": ["Rye", "Spelt", "Both"], "votes": [0, 0, 0]},
    )
    poll_vote(post_id=poll.id, voter="bob", option=0)
    poll_vote(post_id=poll.id, voter="cyd", option=2)
    post(ada, "link", {"url": "https://example.org/crumb", "title": "Reading a crumb", "text": ""})
    post(ada, "status", {"text": "Tea at mine on Sunday, friends only"}, circles=["friends"])
    post(ada, "status", {"text": "Thanks for the recipe!"}, circles=[ALL_CIRCLES])
    # A long unbreakable URL, in a post and in a comment shown on feed cards,
    # must wrap inside its post, not widen every post and the page.
    long_url = "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/bucket-pattern/"
    linked = post(ada, "status", {"text": f"The bucket pattern: {long_url}"})
    comments.comment_create(
        post=Post._get_collection().find_one({"_id": linked.id}),
        author=bob,
        text=f"Here it is: {long_url}",
    )
    post(bob, "status", {"text": "Happy birthday, Ada!"}, to="ada")
    # A 400-character word, on the feed, the tag page and in search (the post)
    # and in a thread (a comment): it wraps, the page never scrolls sideways.
    long_word = "Sourdough" * 45
    post(
        bob,
        "status",
        {"text": f"Fresh rye bread from the corner bakery #Bread #baking {long_word}"},
    )
    thread = post(ada, "status", {"text": f"{THREAD_TEXT} Ask @bob about his."})

    stored = Post._get_collection().find_one({"_id": thread.id})
    rude = comments.comment_create(post=stored, author=cyd, text="Nobody cares about your bread")
    comments.comment_create(post=stored, author=cyd, text=f"{long_word} {long_url}")
    stored = Post._get_collection().find_one({"_id": thread.id})
    first = comments.comment_create(post=stored, author=bob, text="Mine is from my gran.")
    stored = Post._get_collection().find_one({"_id": thread.id})
    answer = comments.comment_create(
        post=stored, author=ada, text="@bob Bring some on Sunday?", parent_slug=first.slug
    )
    # Votes: bob's up vote pressed on ada's reply; the rude comment folded.
    comment_votes.comment_vote(post=stored, slug=answer.slug, voter=bob, direction="up")
    get_comment_store().tally(thread.id, rude.slug, ups=0, downs=5)
    report_create(
        reporter=bob,
        target=resolve_target("comment", f"{thread.id}/{rude.slug}"),
        reason="harassment",
        note="rude",
    )
    # Ads on the feed and on walls, and a campaign whose report has a day.
    make_user("root", "Ruth Admin", role="admin")
    make_user("roastery", "Corner Roastery", role="advertiser")
    campaign_id = ad_campaign("roastery", "feed", "Your first bag is on us", keywords=["baking"])
    ad_campaign("roastery", "profile", "Coffee for the baker", keywords=["baking"])
    for viewer in ("bob", "cyd"):
        choose_ads(site=settings.ADS_SITE_ID, zone="feed", viewer=viewer)
    exports.export_request(handle="ada")  # ready at once: the page links it
    # Keyword filters: a warned post folds on her feed and wall, and the
    # settings page lists both kinds.
    keyword_filters.keyword_filter_create(
        user=ada, phrase="recipe", contexts=["home", "public"], action="warn", expires_in=None
    )
    keyword_filters.keyword_filter_create(
        user=ada,
        phrase="spoiler",
        contexts=["thread"],
        action="hide",
        expires_in=timedelta(days=1),
    )
    # Messages (docs/messages.md): bob's new one-to-one is unread in ada's
    # inbox; her group with bob and cyd has a long link, a line saying dee
    # left, and a message of cyd's (with its report control).
    messaging.conversation_start(sender=bob, to=["ada"], text="Is Sunday still on?")
    make_user("dee", "Dee Dough")
    group = messaging.conversation_start(
        sender=ada, to=["bob", "cyd", "dee"], text="Who brings what on Sunday?"
    )
    messaging.message_send(
        conversation_id=group,
        sender=cyd,
        text=f"Rye, and the starter I promised. The recipe I used: {long_url}",
    )
    messaging.conversation_leave(conversation_id=group, member=User.objects.get(handle="dee"))
    messaging.message_send(conversation_id=group, sender=bob, text="Butter and jam.")
    # Ada changed her address: the old one's undo link asks before it acts.
    recovery.email_set(user=User.objects.get(handle="ada"), email="ada@example.org")
    _, undo = recovery.email_set(user=User.objects.get(handle="ada"), email="ada@new.example")
    # The client API (docs/api.md): an app ada authorized, listed on her
    # sessions page, and the consent page of another asking for her account.
    app, _ = api_services.app_create(
        name="Pocket Reader",
        redirect_uris=[APP_REDIRECT],
        scopes=["read", "write", "follow"],
        website="https://pocket.example",
    )
    api_services.token_create(token="e2e-token", app=app, user="ada", scopes=["read", "write"])
    return SimpleNamespace(
        client_id=app.client_id,
        thread_id=str(thread.id),
        campaign_id=campaign_id,
        conversation_id=str(group),
        undo_token=undo,
    )


# page name -> (who looks at it, where). Bob visits Ada's wall and post so the
# follow, circle, report and reply controls all render.
PAGES = {
    "landing": (None, lambda w: "/"),
    "feed": ("ada", lambda w: "/feed/"),
    # A new account's first feed: people to follow (alan follows nobody).
    "feed-new": ("alan", lambda w: "/feed/"),
    "wall": ("bob", lambda w: "/u/ada/"),
    "post": ("bob", lambda w: f"/posts/{w.thread_id}/"),
    "post-best": ("bob", lambda w: f"/posts/{w.thread_id}/?order=best"),
    "settings-index": ("ada", lambda w: "/settings/"),
    "settings": ("ada", lambda w: "/settings/profile/"),
    "circles": ("ada", lambda w: "/circles/"),
    "email": ("ada", lambda w: "/settings/email/"),
    "sessions": ("ada", lambda w: "/settings/sessions/"),
    "authorize": (
        "ada",
        lambda w: (
            "/oauth/authorize?"
            + urlencode(
                {
                    "response_type": "code",
                    "client_id": w.client_id,
                    "redirect_uri": APP_REDIRECT,
                    "scope": "read write follow",
                }
            )
        ),
    ),
    "two-factor": ("ada", lambda w: "/settings/2fa/"),
    "export": ("ada", lambda w: "/settings/export/"),
    "filters": ("ada", lambda w: "/settings/filters/"),
    "delete-account": ("ada", lambda w: "/settings/delete/"),
    "password-reset": (None, lambda w: "/accounts/password/reset/"),
    "dev-mail": ("root", lambda w: "/dev/mail/"),
    "email-undo": (None, lambda w: f"/accounts/email/undo/{w.undo_token}/"),
    "notifications": ("ada", lambda w: "/notifications/"),
    "inbox": ("ada", lambda w: "/messages/"),
    # "Message" from a profile: the new-message form open, its `to` filled.
    "inbox-compose": ("ada", lambda w: "/messages/?to=bob"),
    "conversation": ("ada", lambda w: f"/messages/{w.conversation_id}/"),
    "search": ("ada", lambda w: "/search/?q=a"),
    "search-posts": ("ada", lambda w: "/search/?q=rye+bread"),
    "tag": ("ada", lambda w: "/tags/bread/"),
    "explore": ("mod", lambda w: "/explore/"),
    "moderation": ("mod", lambda w: "/mod/reports/"),
    "not-found": ("ada", lambda w: "/u/nobody_here/"),
    "ads-manage": ("root", lambda w: "/ads/manage/"),
    "ads-new": ("root", lambda w: "/ads/manage/campaigns/new/"),
    "ads-campaign": ("root", lambda w: f"/ads/manage/campaigns/{w.campaign_id}/"),
    # The developer's lens (admins only): the switch, and a post page compared.
    "dev": ("root", lambda w: "/dev/"),
    "dev-compare": ("root", lambda w: f"/dev/compare/?path=/posts/{w.thread_id}/"),
}
# Pages whose ad slot static/ads/embed.js fills after load: checked once the ad is in.
WITH_AD = {"feed", "wall"}
# Issue 11: no ads on settings, moderation or ad-management pages.
NO_ADS = {
    "authorize",
    "settings-index",
    "settings",
    "email",
    "sessions",
    "two-factor",
    "export",
    "filters",
    "delete-account",
    "password-reset",
    "moderation",
    "ads-manage",
    "ads-new",
    "ads-campaign",
    "dev",
    "dev-compare",
    "dev-mail",
    # Private messages: no ads beside what people write to each other.
    "inbox",
    "inbox-compose",
    "conversation",
}


# The visible elements sticking out past the right edge of the viewport, in
# document order, for the assertion message when a page scrolls sideways.
OVERFLOWING_JS = """(width) => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!el.checkVisibility()) continue;
    const right = el.getBoundingClientRect().right;
    if (right > width + 0.5) {
      out.push(`${el.tagName.toLowerCase()}.${el.className} (right edge ${Math.round(right)})`);
    }
  }
  return out.slice(0, 8);
}"""


def load_lazy_images(page) -> None:
    """Scroll through the page so `loading=lazy` images load before the screenshot."""
    for image in page.locator("img[loading=lazy]").all():
        image.scroll_into_view_if_needed()
        # Polled from here: the site's CSP forbids the eval that wait_for_function needs.
        for _ in range(50):
            if image.evaluate("(img) => img.complete"):
                break
            page.wait_for_timeout(100)
    page.evaluate("window.scrollTo(0, 0)")


def assert_no_sideways_scroll(page, label: str) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    offenders = page.evaluate(OVERFLOWING_JS, PHONE) if scroll_width > PHONE else []
    assert scroll_width <= PHONE, (
        f"{label} scrolls sideways at {PHONE}px ({scroll_width}px wide): {offenders}"
    )


# For each control matching the selector (in `root`, leaving out those that
# hold a menu list): what Playwright's `is_visible()`, `to_be_in_viewport()`
# and `click(trial=True)` would find, read in one call rather than several
# round trips per control. Visible: a non-empty box, not `visibility:
# hidden`. In the viewport: an IntersectionObserver sees some of it.
# Clickable: scrolled into view if its centre is not, the element at its
# centre is itself or inside it (nothing covers it), and it is enabled. The
# site has no CSS transitions or animations: a box read once is stable.
CONTROLS_JS = """async ([root, selector]) => {
  const els = [...document.querySelector(root).querySelectorAll(selector)]
    .filter((el) => !el.querySelector(".menu__list"));
  const inViewport = await Promise.all(els.map((el) => new Promise((resolve) => {
    const io = new IntersectionObserver(([entry]) => {
      io.disconnect();
      resolve(entry.intersectionRatio > 0);
    });
    io.observe(el);
  })));
  const describe = (el) => el ? el.outerHTML.slice(0, 80) : "nothing";
  return els.map((el, i) => {
    let box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const visible = box.width > 0 && box.height > 0 && style.visibility !== "hidden";
    let hit = null;
    if (visible) {
      const centre = () => [box.left + box.width / 2, box.top + box.height / 2];
      let [x, y] = centre();
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
        el.scrollIntoView({block: "center", inline: "center"});
        box = el.getBoundingClientRect();
        [x, y] = centre();
      }
      hit = document.elementFromPoint(x, y);
    }
    return {
      name: el.innerText.trim() || el.textContent.trim() || el.getAttribute("aria-label")
        || el.outerHTML.slice(0, 60),
      path: el.pathname || "",
      in_menu: !!el.closest("ul.menu__list"),
      visible,
      in_viewport: inViewport[i],
      covered_by: visible && !(hit && el.contains(hit)) ? describe(hit) : null,
      disabled: el.matches(":disabled") || el.getAttribute("aria-disabled") === "true",
    };
  });
}"""


def _unusable(controls: list[dict]) -> list[str]:
    """What stops a person from reaching each visible control: out of the
    viewport, covered, or disabled."""
    problems = []
    for c in controls:
        if not c["in_viewport"]:
            problems.append(f"{c['name']!r} is outside the viewport")
        if c["covered_by"] is not None:
            problems.append(f"{c['name']!r} is covered by {c['covered_by']}")
        if c["disabled"]:
            problems.append(f"{c['name']!r} is disabled")
    return problems


def assert_header_usable(page) -> None:
    """Every link and button of the top bar is on screen and clickable, and so
    is every item of its menu once opened. On a phone the bar is one row: what
    it leaves out is in the menu (the same address)."""
    bar = page.locator("header.topbar")
    assert bar.bounding_box()["height"] <= 64, "a phone's header is one row"
    in_menu = set(bar.locator(".menu__list a").evaluate_all("(as) => as.map((a) => a.pathname)"))
    controls = page.evaluate(
        CONTROLS_JS, ["header.topbar", "a, button, input[type=search], summary"]
    )
    assert len(controls) >= 4
    # Menu items are checked below, with the menu open.
    in_bar = [c for c in controls if not c["in_menu"]]
    hidden = [c["name"] for c in in_bar if not c["visible"] and c["path"] not in in_menu]
    assert hidden == [], f"hidden in the top bar and not in its menu: {hidden}"
    problems = _unusable([c for c in in_bar if c["visible"]])
    assert problems == [], f"top bar controls a person cannot use: {problems}"
    expect(page.get_by_role("searchbox", name="Search people and posts")).to_be_in_viewport()
    menu = bar.locator("details.account-menu")
    if menu.count():
        menu.locator("summary").click()
        items = page.evaluate(CONTROLS_JS, ["header.topbar .menu__list", "a, button"])
        assert items, "the open menu lists nothing"
        hidden = [c["name"] for c in items if not c["visible"]]
        problems = _unusable(items)
        assert hidden == problems == [], f"the open menu: hidden {hidden}, {problems}"
        menu.locator("summary").click()


def violations_report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        targets = [" ".join(node["target"]) for node in v["nodes"]]
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} -> {targets}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def _one_context(browser, live_server):
    # One browser context for all the pages below: a new one per page costs
    # more than the page. Each test starts it signed out (no cookies; the
    # site keeps nothing else in the browser: no storage, no service worker).
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def shared_page(request, _one_context):
    """The module's browser page, signed out; saved as test-artifacts/<test
    name>.png when the test fails."""
    _one_context.clear_cookies()
    yield _one_context.pages[0] if _one_context.pages else _one_context.new_page()
    screenshot_if_failed(request, [_one_context])


@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_serious_accessibility_problem(
    page_name, world, shared_page, sign_in_by_cookie, axe, artifacts_dir
):
    """Each page at desktop width, then at phone width: one world, one
    sign-in, the page loaded again at the second width (as a phone would)."""
    viewer, url = PAGES[page_name]
    page = shared_page
    if viewer:
        sign_in_by_cookie(page.context, viewer)
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url(world))
        if page_name in WITH_AD:
            expect(page.locator("aside.ad")).to_have_count(1)
        if page_name in NO_ADS:
            expect(page.locator("[data-ad-zone], aside.ad")).to_have_count(0)
        load_lazy_images(page)
        page.screenshot(path=str(artifacts_dir / f"a11y-{page_name}-{width}.png"), full_page=True)

        results = axe.run(page)
        print(f"all axe violations on {page_name} at {width}px:")
        print(violations_report(results.response["violations"]))
        blocking = [v for v in results.response["violations"] if v["impact"] in BLOCKING]
        assert not blocking, f"{page_name} at {width}px:\n{violations_report(blocking)}"
        # One h1 names every page (a screen reader's first stop).
        expect(page.locator("h1")).to_have_count(1)

        if width == PHONE:
            assert_no_sideways_scroll(page, page_name)
            assert_header_usable(page)


def test_skip_link_is_the_first_stop_and_jumps_to_the_content(world, page, sign_in, artifacts_dir):
    sign_in(page, "ada")
    page.goto("/feed/")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).not_to_be_in_viewport()  # out of sight until a keyboard reaches it
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    page.screenshot(path=str(artifacts_dir / "a11y-skip-link-1280.png"))
    skip.press("Enter")
    expect(page).to_have_url(re.compile(r"#main$"))
    expect(page.locator("main#main")).to_be_focused()


def test_composer_works_at_phone_width(world, page, sign_in, artifacts_dir):
    page.set_viewport_size({"width": PHONE, "height": 800})
    sign_in(page, "ada")
    page.goto("/feed/")
    composer = page.locator("form.composer")
    text = composer.locator("textarea[name=text]")
    # One line until tapped, so the first post is on the first screen.
    expect(composer.locator("label.tab-radio").first).to_be_hidden()
    assert composer.bounding_box()["height"] < 90
    expect(page.locator("article.post").first).to_be_in_viewport()
    text.click()
    expect(composer.locator("label.tab-radio").first).to_be_visible()
    form_box = composer.bounding_box()
    assert text.bounding_box()["width"] >= form_box["width"] * 0.8

    composer.locator("label.tab-radio", has_text="Poll").click()
    options = composer.locator("textarea[name=options]")
    expect(options).to_be_visible()
    assert options.bounding_box()["width"] >= form_box["width"] * 0.8
    composer.locator("label.tab-radio", has_text="Check-in").click()
    expect(composer.locator("input[name=place]")).to_be_visible()
    expect(options).to_be_hidden()
    for radio in composer.locator("label.tab-radio").all():
        expect(radio).to_be_in_viewport()
    assert_no_sideways_scroll(page, "the composer")
    page.screenshot(path=str(artifacts_dir / "a11y-composer-390.png"), full_page=True)

    composer.locator("label.tab-radio", has_text="Poll").click()
    text.fill("Bread or cake?")
    options.fill("Bread\nCake")
    composer.get_by_role("button", name="Post", exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Posted.")
    expect(page.locator("article.post", has_text="Bread or cake?")).to_have_count(1)
