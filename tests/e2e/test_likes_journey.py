"""Likes in a real browser: with JavaScript the button, its count and the
post's `data-likes` change in place (no navigation); without it the same
form posts and the page comes back with the new state."""

import re

import pytest
from playwright.sync_api import expect

from feeds.documents import PUBLIC
from feeds.services import posts as services
from profiles import services as graph


@pytest.fixture
def post(make_user):
    ada, bob = make_user("ada", "Ada Lovelace"), make_user("bob", "Bob Kahn")
    graph.follow_create(follower=bob, followee="ada")
    return services.post_create(
        author=ada, type="status", detail={"text": "like this"}, circles=[PUBLIC]
    )


def test_like_and_unlike_in_place(post, page, sign_in, artifacts_dir):
    sign_in(page, "bob")
    article = page.locator(f'article.post[data-post-id="{post.id}"]')
    button = article.get_by_role("button", name="Like")
    expect(article).to_have_attribute("data-likes", "0")
    expect(button).to_have_attribute("aria-pressed", "false")

    page.evaluate("window.stayed = true")  # gone if the page navigates
    button.click()
    expect(article).to_have_attribute("data-likes", "1")
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(article.locator(".like__count")).to_have_text("1 like")
    assert page.evaluate("window.stayed") is True
    page.screenshot(path=str(artifacts_dir / "likes-liked.png"))

    page.reload()
    expect(article).to_have_attribute("data-likes", "1")
    expect(button).to_have_attribute("aria-pressed", "true")
    button.click()
    expect(article).to_have_attribute("data-likes", "0")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(article.locator(".like__count")).to_have_text("")  # no count at zero


def test_the_button_works_without_javascript(post, browser, live_server, sign_in):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        sign_in(page, "bob")
        article = page.locator(f'article.post[data-post-id="{post.id}"]')
        article.get_by_role("button", name="Like").click()
        expect(page).to_have_url(re.compile(rf"/feed/#post-{post.id}$"))
        expect(article).to_have_attribute("data-likes", "1")
        expect(article.get_by_role("button", name="Like")).to_have_attribute(
            "aria-pressed", "true"
        )
    finally:
        context.close()
