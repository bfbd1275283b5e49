"""Moderation in a real browser.

Bob reports Cyd's comment on Ada's post; Mo, a moderator, finds it in the
queue and removes it; Bob then sees the placeholder and Mo sees the report
resolved. Then Mo suspends Cyd, and Cyd's open browser session is sent to
the login page on its next request.
"""

import re

import pytest
from playwright.sync_api import Page, expect

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from profiles import services as graph
from tests.conftest import PASSWORD

PLACEHOLDER = "[removed by a moderator]"
RUDE = "You are all idiots and this post is garbage"


@pytest.fixture
def scene(make_user):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    cyd = make_user("cyd", "Cyd Charisse")
    make_user("mod", "Mo Derator", role="moderator")
    for reader in (bob, cyd):
        graph.follow_create(follower=reader, followee="ada")
    post = feeds.post_create(
        author=ada, type="status", detail={"text": "Sourdough attempt #14"}, circles=[PUBLIC]
    )
    stored = Post._get_collection().find_one({"_id": post.id})
    comments.comment_create(post=stored, author=cyd, text=RUDE)
    comments.comment_create(post=stored, author=bob, text="Looks great, Ada!")
    return str(post.id)


def log_in(page: Page, handle: str) -> None:
    page.goto("/accounts/login/")
    page.locator("[name=username]").fill(handle)
    page.locator("[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))


def test_report_a_comment_then_a_moderator_removes_it(new_page, scene, artifacts_dir):
    post_id = scene
    bob, mod = new_page(), new_page()
    log_in(bob, "bob")
    log_in(mod, "mod")

    # Bob reports Cyd's comment from the small control under it.
    bob.goto(f"/posts/{post_id}/")
    comment = bob.locator("article.comment", has_text=RUDE)
    expect(comment).to_have_count(1)
    form = comment.locator("details.report-control")
    expect(form.locator("select[name=reason]")).to_be_hidden()
    form.locator("summary", has_text="Report").click()
    form.locator("select[name=reason]").select_option("harassment")
    form.locator("input[name=note]").fill("insulting everyone")
    form.get_by_role("button", name="Send report").click()
    expect(bob).to_have_url(re.compile(rf"/posts/{post_id}/$"))
    expect(bob.locator("ul.messages")).to_contain_text("Thanks. A moderator will look at it.")
    # His own comment has no report control.
    own = bob.locator("article.comment", has_text="Looks great, Ada!")
    expect(own.locator("details.report-control")).to_have_count(0)

    # Mo sees it in the queue, with its excerpt, author and link.
    mod.goto("/mod/reports/")
    row = mod.locator("tr.report-item", has_text=RUDE)
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-status", "open")
    expect(row).to_contain_text("@cyd")
    expect(row).to_contain_text("harassment")
    expect(row.get_by_role("link", name=RUDE)).to_have_attribute(
        "href", re.compile(rf"^/posts/{post_id}/c/[a-z0-9/]+/$")
    )
    row.locator("input[name=keys]").check()
    mod.locator("#bulk-reason").fill("insults")
    mod.screenshot(path=str(artifacts_dir / "moderation-queue.png"), full_page=True)
    mod.get_by_role("button", name="Remove selected").click()
    expect(mod.locator("ul.messages")).to_contain_text("Removed: 1 item.")
    expect(mod.locator("tr.report-item", has_text=RUDE)).to_have_count(0)

    # Bob reloads the post: the placeholder, and the reply-free thread intact.
    bob.reload()
    comment = bob.locator("article.comment").first
    expect(bob.locator("article.comment")).to_have_count(2)
    expect(comment.locator(".comment__text")).to_have_text(PLACEHOLDER)
    expect(bob.locator("main")).not_to_contain_text(RUDE)
    expect(bob.locator("article.comment", has_text="Looks great, Ada!")).to_have_count(1)

    # The report shows as resolved in the queue's "resolved" view.
    mod.locator("select[name=status]").select_option("resolved")
    mod.get_by_role("button", name="Filter").click()
    expect(mod).to_have_url(re.compile(r"/mod/reports/\?status=resolved"))
    row = mod.locator("tr.report-item", has_text=RUDE)
    expect(row).to_have_attribute("data-status", "resolved")
    expect(row.locator(".status")).to_have_text("resolved")

    # And the audit log has the removal, by Mo, with the reason.
    mod.goto("/mod/log/")
    entry = mod.locator("tr.log-entry")
    expect(entry).to_have_count(1)
    expect(entry).to_have_attribute("data-action", "comment.remove")
    expect(entry).to_contain_text("@mod")
    expect(entry).to_contain_text("insults")


def test_a_suspended_users_open_session_ends(new_page, scene, artifacts_dir):
    cyd, mod = new_page(), new_page()
    log_in(cyd, "cyd")
    log_in(mod, "mod")
    cyd.goto("/feed/")
    expect(cyd.get_by_role("link", name="Me", exact=True)).to_be_visible()

    mod.goto("/mod/users/")
    mod.locator("#mod-q").fill("cyd")
    mod.get_by_role("button", name="Search").click()
    mod.get_by_role("link", name="Cyd Charisse").click()
    expect(mod).to_have_url(re.compile(r"/mod/users/cyd/$"))
    expect(mod.locator("[data-user-status]")).to_have_text("active")
    mod.locator("#suspend-reason").fill("abusive comments")
    mod.get_by_role("button", name="Suspend").click()
    expect(mod.locator("ul.messages")).to_contain_text("@cyd is suspended.")
    expect(mod.locator("[data-user-status]")).to_have_text("suspended")
    expect(mod.get_by_role("button", name="Unsuspend")).to_be_visible()
    mod.screenshot(path=str(artifacts_dir / "moderation-user.png"), full_page=True)

    # Cyd's next request: the session is gone, and so is the way back in.
    cyd.reload()
    expect(cyd).to_have_url(re.compile(r"/accounts/login/\?next=%2Ffeed%2F$"))
    cyd.locator("[name=username]").fill("cyd")
    cyd.locator("[name=password]").fill(PASSWORD)
    cyd.get_by_role("button", name="Log in").click()
    expect(cyd.locator(".errorlist")).to_be_visible()
    expect(cyd).to_have_url(re.compile(r"/accounts/login/"))
