"""Comments in a real browser: a reply to a reply is indented one step further;
a vote shows on the comment and is taken back; Best lists conversations;
past COMMENTS_MAX_DEPTH "Continue this thread" leads to the permalink; the
author deletes a comment and sees "[deleted]" with its replies still there."""

import re

import pytest
from bson import ObjectId
from playwright.sync_api import Page, expect

from comments.stores import get_store
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from tests.conftest import PASSWORD


@pytest.fixture
def post_id(make_user):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    graph.follow_create(follower=bob, followee="ada")
    post = feeds.post_create(
        author=ada,
        type="status",
        detail={"text": "What should the analytical engine compute first?"},
        circles=[PUBLIC],
    )
    return str(post.id)


def log_in(page: Page, handle: str) -> None:
    page.goto("/accounts/login/")
    page.locator("[name=username]").fill(handle)
    page.locator("[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))
    # exact: the feed's "0 comments" links contain "me" too
    expect(page.get_by_role("link", name="Me", exact=True)).to_be_visible()


def comment(page: Page, text: str):
    """The one comment on the page with this text."""
    article = page.locator("article.comment", has_text=text)
    expect(article).to_have_count(1)
    return article


def reply(page: Page, to_text: str, text: str) -> None:
    """Open the no-JS reply form under a comment (<details>) and send it."""
    parent = comment(page, to_text)
    parent.locator("details.reply > summary", has_text="Reply").click()
    form = parent.locator("details.reply[open] form")
    form.locator("textarea[name=text]").fill(text)
    form.get_by_role("button", name="Reply").click()
    expect(page.locator("ul.messages")).to_contain_text("Comment posted.")
    expect(comment(page, text)).to_be_visible()


def test_reply_indent_continue_and_delete(post_id, new_page, settings, artifacts_dir):
    settings.COMMENTS_MAX_DEPTH = 8
    ada, bob = new_page(), new_page()
    log_in(ada, "ada")
    log_in(bob, "bob")
    url = f"/posts/{post_id}/"

    # Bob comments from the form at the top of the thread.
    bob.goto(url)
    expect(bob.locator("#comments")).to_contain_text("No comments yet.")
    top = bob.locator("form.comment-form--top")
    top.locator("textarea[name=text]").fill("Bernoulli numbers, obviously.")
    top.get_by_role("button", name="Comment").click()
    expect(bob).to_have_url(re.compile(rf"{re.escape(url)}#c-[a-z0-9]{{4}}$"))
    expect(bob.locator("ul.messages")).to_contain_text("Comment posted.")

    # Ada replies to Bob; Bob replies to Ada's reply.
    ada.goto(url)
    reply(ada, "Bernoulli numbers", "Agreed. Note G has the program.")
    bob.goto(url)
    reply(bob, "Note G", "Then let's run it!")

    bob.goto(url)
    articles = bob.locator("article.comment")
    expect(articles).to_have_count(3)
    depths = [a.get_attribute("data-depth") for a in articles.all()]
    assert depths == ["0", "1", "2"]
    xs = [a.bounding_box()["x"] for a in articles.all()]
    assert xs[0] < xs[1] < xs[2], xs
    slugs = [a.get_attribute("data-slug") for a in articles.all()]
    assert slugs[1].startswith(slugs[0] + "/") and slugs[2].startswith(slugs[1] + "/")
    bob.screenshot(path=str(artifacts_dir / "comments-thread.png"), full_page=True)

    # Bob votes Ada's reply up: its score shows, his button stays pressed,
    # and pressing it again takes the vote back.
    comment(bob, "Note G").get_by_role("button", name="▲ Up").click()
    expect(bob.locator("ul.messages")).to_contain_text("Voted up.")
    expect(comment(bob, "Note G")).to_have_attribute("data-score", "1")
    pressed = comment(bob, "Note G").get_by_role("button", name="▲ Up")
    expect(pressed).to_have_attribute("aria-pressed", "true")
    pressed.click()
    expect(bob.locator("ul.messages")).to_contain_text("Vote taken back.")
    expect(comment(bob, "Note G")).to_have_attribute("data-score", "0")
    # Best lists the conversations, each with its replies a link away.
    bob.goto(url + "?order=best")
    expect(bob.locator("article.comment")).to_have_count(1)
    expect(bob.locator('[data-replies="1"]')).to_have_text("1 reply →")

    # A chain past the depth limit: below it, a link to the permalink instead.
    settings.COMMENTS_MAX_DEPTH = 2
    store, parent = get_store(), slugs[2]
    for depth in (3, 4):
        made = store.post(
            ObjectId(post_id),
            author={"id": "ada", "name": "Ada Lovelace"},
            text=f"Deeper still, level {depth}",
            parent_slug=parent,
        )
        parent = made.slug
    bob.goto(url)
    expect(bob.locator("article.comment")).to_have_count(3)
    expect(bob.locator("#comments")).not_to_contain_text("Deeper still")
    bob.get_by_role("link", name="Continue this thread →").click()
    expect(bob).to_have_url(re.compile(rf"/posts/{post_id}/c/{re.escape(slugs[2])}/$"))
    expect(bob.locator("article.comment")).to_have_count(3)
    expect(comment(bob, "level 3")).to_have_attribute("data-depth", "3")
    expect(comment(bob, "level 4")).to_have_attribute("data-depth", "4")
    expect(bob.locator(".ancestors")).to_contain_text("Bernoulli numbers")
    expect(bob.locator(".ancestors")).to_contain_text("Note G")
    bob.screenshot(path=str(artifacts_dir / "comments-permalink.png"), full_page=True)

    # Bob deletes his own top-level comment; the replies stay.
    settings.COMMENTS_MAX_DEPTH = 8
    bob.goto(url)
    bob.on("dialog", lambda dialog: dialog.accept())
    first = bob.locator("article.comment").first
    first.get_by_role("button", name="Delete").click()
    expect(bob.locator("ul.messages")).to_contain_text("Comment deleted.")
    first = bob.locator("article.comment").first
    expect(first.locator(".comment__text")).to_have_text("[deleted]")
    expect(first).to_have_attribute("data-depth", "0")
    expect(bob.locator("#comments")).not_to_contain_text("Bernoulli numbers")
    expect(bob.locator("article.comment")).to_have_count(5)
    expect(comment(bob, "Note G")).to_have_attribute("data-depth", "1")
    expect(comment(bob, "run it")).to_have_attribute("data-depth", "2")
    expect(bob.locator(".post__comments")).to_contain_text("5 comments")
    bob.evaluate("window.scrollTo(0, 0)")
    bob.screenshot(path=str(artifacts_dir / "comments-deleted.png"), full_page=True)
