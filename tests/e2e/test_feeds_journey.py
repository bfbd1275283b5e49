"""Issue 3 in a real browser: a circle-only post, a photo post and a poll.

Ada posts to her circle "friends". Bob, who is in it, sees the post in his
feed; Cyd, who follows Ada but is in no circle, does not, and gets a 404 on
the post's URL. A photo post renders its image. A poll vote changes the results.
"""

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from profiles import services as graph
from tests.conftest import PASSWORD


@pytest.fixture
def people(make_user):
    """Ada has a circle "friends" holding Bob; she follows Cyd outside any circle.
    Bob and Cyd both follow Ada, so her public posts reach both their feeds."""
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    cyd = make_user("cyd", "Cyd Charisse")
    graph.circle_create(owner=ada, name="friends")
    graph.follow_create(follower=ada, followee="bob", circles=["friends"])
    graph.follow_create(follower=ada, followee="cyd")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=cyd, followee="ada")
    return ada, bob, cyd


def log_in(page: Page, handle: str) -> None:
    page.goto("/accounts/login/")
    page.locator("[name=username]").fill(handle)
    page.locator("[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))
    expect(page.get_by_role("link", name="Me", exact=True)).to_be_visible()


def compose(page: Page, kind: str, text: str, circles: tuple[str, ...] = ()):
    """Fill Ada's composer on /feed/ up to (not including) the Post click."""
    page.goto("/feed/")
    composer = page.locator("form.composer")
    composer.locator(f'input[name=type][value="{kind}"]').check()
    composer.locator("textarea[name=text]").fill(text)
    if circles:
        # "Public" is ticked by default; choose exactly the circles asked for.
        for box in composer.locator("input[name=circles]:checked").all():
            box.uncheck()
        for circle in circles:
            composer.locator(f'input[name=circles][value="{circle}"]').check()
    return composer


def post(page: Page, composer, text: str):
    """Click Post and return the new article in the author's feed."""
    composer.get_by_role("button", name="Post", exact=True).click()
    expect(page).to_have_url(re.compile(r"/feed/$"))
    expect(page.locator("ul.messages")).to_contain_text("Posted.")
    article = page.locator("article.post", has_text=text)
    expect(article).to_have_count(1)
    return article


def png_bytes(width: int = 64, height: int = 48) -> bytes:
    image = Image.new("RGB", (width, height), (210, 90, 40))
    for x in range(width // 2):
        for y in range(height):
            image.putpixel((x, y), (40, 90, 210))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def option(article, index: int):
    return article.locator(f'li.poll__option[data-option="{index}"]')


def vote(page: Page, article, label: str, button: str) -> None:
    article.locator(".poll").get_by_label(label, exact=True).check()
    article.get_by_role("button", name=button, exact=True).click()
    expect(page.locator("ul.messages")).to_contain_text("Vote counted.")


def test_circle_post_photo_and_poll(people, new_page, artifacts_dir):
    ada, bob, cyd = new_page(), new_page(), new_page()
    log_in(ada, "ada")
    log_in(bob, "bob")
    log_in(cyd, "cyd")

    # --- A status for "friends" only ---------------------------------------------
    secret = "Tea at mine on Sunday, friends only"
    composer = compose(ada, "status", secret, circles=("friends",))
    # Only "friends" is ticked: no Public, no All my circles.
    expect(composer.locator("input[name=circles]:checked")).to_have_count(1)
    mine = post(ada, composer, secret)
    expect(mine.locator(".vis")).to_have_text("friends")
    # Back brings the composer back with the words (and its one-time key):
    # Post again makes no second post (socialsite/once.py).
    ada.go_back()
    expect(ada.locator("form.composer textarea[name=text]")).to_have_value(secret)
    ada.locator("form.composer").get_by_role("button", name="Post", exact=True).click()
    expect(ada.locator("ul.messages")).to_contain_text("That was posted already.")
    expect(ada.locator("article.post", has_text=secret)).to_have_count(1)

    bob.goto("/feed/")
    seen = bob.locator("article.post", has_text=secret)
    expect(seen).to_have_count(1)
    expect(seen.locator(".post__author")).to_have_text("Ada Lovelace")
    # Circle names are private to their owner: a recipient sees "Circles".
    expect(seen.locator(".vis")).to_have_text("Circles")
    post_id = seen.get_attribute("data-post-id")
    assert post_id and re.fullmatch(r"[0-9a-f]{24}", post_id)
    assert seen.get_attribute("id") == f"post-{post_id}"

    cyd.goto("/feed/")
    expect(cyd.locator("form.composer")).to_be_visible()  # the feed page did load
    expect(cyd.locator("article.post", has_text=secret)).to_have_count(0)
    expect(cyd.locator("main")).not_to_contain_text(secret)
    response = cyd.goto(f"/posts/{post_id}/")
    assert response is not None and response.status == 404
    expect(cyd.locator("body")).to_contain_text("There is nothing here")
    expect(cyd.locator("body")).not_to_contain_text(secret)
    # Bob can open it.
    response = bob.goto(f"/posts/{post_id}/")
    assert response is not None and response.status == 200
    expect(bob.locator(f"article#post-{post_id}")).to_contain_text(secret)

    # --- A public photo -----------------------------------------------------------
    caption = "Sunset over the Thames"
    composer = compose(ada, "photo", caption)
    photo_input = composer.locator("input[name=photo]")
    expect(photo_input).to_be_visible()  # the composer's JS shows the photo field
    expect(composer.locator("textarea[name=options]")).to_be_hidden()
    photo_input.set_input_files(
        {"name": "sunset.png", "mimeType": "image/png", "buffer": png_bytes()}
    )
    # Public is the default audience, and the only box ticked.
    expect(composer.locator("input[name=circles]:checked")).to_have_count(1)
    expect(composer.locator('input[name=circles][value="*public*"]')).to_be_checked()
    mine = post(ada, composer, caption)
    expect(mine).to_have_class(re.compile(r"\bpost--photo\b"))
    expect(mine.locator(".vis")).to_have_text("Public")

    for viewer in (bob, cyd):
        viewer.goto("/feed/")
        article = viewer.locator("article.post", has_text=caption)
        img = article.locator("img")
        img.scroll_into_view_if_needed()
        expect(img).to_be_visible()
        expect(img).to_have_attribute("alt", caption)
        img.element_handle().wait_for_element_state("stable")
        viewer.wait_for_function("img => img.complete", arg=img.element_handle())
        assert img.evaluate("img => img.naturalWidth > 0 && img.naturalHeight > 0")
        assert img.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [64, 48]
        for url in (img.get_attribute("src"), article.locator("a.photo").get_attribute("href")):
            fetched = viewer.request.get(url)
            assert fetched.status == 200, url
            assert fetched.headers["content-type"].startswith("image/"), fetched.headers
            assert Image.open(io.BytesIO(fetched.body())).size == (64, 48)

    # --- A poll -------------------------------------------------------------------
    question = "Which colour for the new kitchen?"
    composer = compose(ada, "poll", question)
    options_box = composer.locator("textarea[name=options]")
    expect(options_box).to_be_visible()
    expect(composer.locator("input[name=photo]")).to_be_hidden()
    options_box.fill("Red\nBlue\nGreen")
    expect(composer.get_by_label("Poll ends in")).to_have_value("86400")  # a day
    composer.get_by_label("Poll ends in").select_option(label="3 days")
    mine = post(ada, composer, question)
    expect(mine.locator("li.poll__option")).to_have_count(3)
    # The author sees the results at once; the end is 3 days ahead.
    expect(mine.locator(".poll__meta")).to_have_text(re.compile(r"^0 votes · Ends in 3 days$"))
    expect(option(mine, 0)).to_have_attribute("data-count", "0")

    bob.goto("/feed/")
    poll = bob.locator("article.post", has_text=question)
    # Before bob votes: the options, no counts (docs/features.md#polls).
    expect(poll.locator(".poll")).to_have_attribute("data-results", "hidden")
    for index, label in enumerate(["Red", "Blue", "Green"]):
        expect(option(poll, index)).to_contain_text(label)
        expect(option(poll, index)).not_to_have_attribute("data-count", re.compile(".*"))
    expect(poll.locator(".poll__count")).to_have_count(0)

    vote(bob, poll, "Blue", "Vote")
    expect(bob).to_have_url(re.compile(r"/feed/#post-[0-9a-f]{24}$"))
    expect(option(poll, 1)).to_have_attribute("data-count", "1")
    expect(option(poll, 1).locator(".poll__count")).to_contain_text("100%")
    expect(option(poll, 1)).to_have_class(re.compile(r"\bpoll__option--chosen\b"))
    expect(option(poll, 1).locator("input[type=radio]")).to_be_checked()
    expect(option(poll, 0)).to_have_attribute("data-count", "0")
    expect(option(poll, 2)).to_have_attribute("data-count", "0")
    expect(poll.locator(".poll")).to_have_attribute("data-total", "1")
    expect(poll.locator(".poll__meta")).to_have_text(re.compile(r"^1 vote · Ends"))

    vote(bob, poll, "Green", "Change vote")
    expect(option(poll, 1)).to_have_attribute("data-count", "0")
    expect(option(poll, 2)).to_have_attribute("data-count", "1")
    expect(option(poll, 2).locator(".poll__count")).to_contain_text("100%")
    expect(option(poll, 1).locator(".poll__count")).to_have_text(re.compile(r"^0% "))
    expect(poll.locator(".poll")).to_have_attribute("data-total", "1")

    cyd.goto("/feed/")
    cyd_poll = cyd.locator("article.post", has_text=question)
    vote(cyd, cyd_poll, "Red", "Vote")
    expect(cyd_poll.locator(".poll")).to_have_attribute("data-total", "2")
    expect(cyd_poll.locator(".poll__meta")).to_have_text(re.compile(r"^2 votes · Ends"))
    expect(option(cyd_poll, 0)).to_have_attribute("data-count", "1")
    expect(option(cyd_poll, 1)).to_have_attribute("data-count", "0")
    expect(option(cyd_poll, 2)).to_have_attribute("data-count", "1")
    expect(option(cyd_poll, 0).locator(".poll__count")).to_contain_text("50%")

    bob.goto("/feed/")
    expect(poll.locator(".poll")).to_contain_text("2 votes")
    expect(option(poll, 2)).to_have_class(re.compile(r"\bpoll__option--chosen\b"))
    # Cyd still does not see the friends-only post; Bob sees all three.
    expect(bob.locator("article.post")).to_have_count(3)
    expect(cyd.locator("article.post")).to_have_count(2)

    # For people to look at, not asserted.
    bob.locator("article.post img").scroll_into_view_if_needed()
    bob.evaluate("window.scrollTo(0, 0)")
    bob.screenshot(path=str(artifacts_dir / "feed-page.png"), full_page=True)


def test_a_post_typed_as_the_session_ends_survives_the_login_and_is_posted(
    people, page: Page, artifacts_dir
):
    """The session ends while Ada writes (another tab logged out, or it
    expired): Post takes her to the login page, and after logging in she is
    back on her feed with her words in the composer, and posts them."""
    log_in(page, "ada")
    words = "A long thought I would hate to type twice"
    composer = compose(page, "status", words)
    # The session ends; the CSRF cookie stays, as it does when a session expires.
    kept = [c for c in page.context.cookies() if c["name"] != "sessionid"]
    page.context.clear_cookies()
    page.context.add_cookies(kept)
    composer.get_by_role("button", name="Post", exact=True).click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=%2Ffeed%2F$"))
    page.locator("[name=username]").fill("ada")
    page.locator("[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))
    composer = page.locator("form.composer")
    expect(composer.locator("textarea[name=text]")).to_have_value(words)
    page.screenshot(path=str(artifacts_dir / "draft-after-login-1280.png"))
    article = post(page, composer, words)
    expect(article).to_contain_text(words)
    # A POST-only URL opened by GET is its page, never a 405.
    response = page.goto("/posts/")
    assert response is not None and response.status == 200
    expect(page).to_have_url(re.compile(r"/feed/$"))
