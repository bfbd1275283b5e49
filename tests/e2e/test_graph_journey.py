"""Issue 2 in a real browser: sign up, make a circle, follow into it, block and unblock."""

import re

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery 9"


def sign_up(page: Page, handle: str, name: str) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sign up").first.click()
    expect(page).to_have_url(re.compile(r"/accounts/signup/$"))
    page.locator("[name=username]").fill(handle)
    page.locator("[name=name]").fill(name)
    page.locator("[name=password1]").fill(PASSWORD)
    page.locator("[name=password2]").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.locator("ul.messages")).to_contain_text(f"Welcome to Socialsite, {name}!")
    expect(page.get_by_role("link", name="Me", exact=True)).to_be_visible()


def counts(page: Page, which: str):
    return page.locator(f'#profile [data-count="{which}"]')


def test_follow_into_a_circle_then_block_and_unblock(new_page, artifacts_dir):
    ada, bob, cyd = new_page(), new_page(), new_page()
    sign_up(ada, "ada", "Ada Lovelace")
    sign_up(bob, "bob", "Bob Kahn")
    sign_up(cyd, "cyd", "Cyd Charisse")

    # Ada makes a circle on the circles page, from the header's menu.
    ada.locator("details.account-menu > summary").click()
    ada.get_by_role("link", name="Circles").click()
    expect(ada.get_by_role("heading", name="Your circles")).to_be_visible()
    ada.get_by_label("New circle").fill("friends")
    ada.get_by_role("button", name="Create circle").click()
    expect(ada.locator("ul.messages")).to_contain_text("Circle “friends” created.")
    friends = ada.locator('[data-circle="friends"]')
    expect(friends).to_contain_text("Nobody in this circle yet.")

    # ... and follows Bob into it from his profile.
    ada.goto("/u/bob/")
    expect(ada.get_by_role("heading", name="Bob Kahn")).to_be_visible()
    expect(counts(ada, "followers")).to_have_text("0")
    follow_form = ada.locator("form.follow-form")
    follow_form.get_by_label("friends").check()
    follow_form.get_by_role("button", name="Follow", exact=True).click()
    expect(ada.locator("ul.messages")).to_contain_text("You follow Bob Kahn in friends.")
    expect(counts(ada, "followers")).to_have_text("1")
    expect(ada.locator("#profile")).to_contain_text("1 follower")
    expect(ada.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(ada.locator("form.circles-edit").get_by_label("friends")).to_be_checked()

    ada.get_by_role("link", name="Me", exact=True).click()
    expect(ada.get_by_role("heading", name="Ada Lovelace")).to_be_visible()
    expect(counts(ada, "following")).to_have_text("1")
    expect(counts(ada, "followers")).to_have_text("0")

    ada.locator("details.account-menu > summary").click()
    ada.get_by_role("link", name="Circles").click()
    expect(friends.locator(".count")).to_have_text("1")
    expect(friends.locator(".person")).to_have_count(1)
    expect(friends.locator(".person")).to_contain_text("Bob Kahn")
    expect(friends.locator(".person")).to_contain_text("@bob")

    # Bob, in his own browser, sees that Ada follows him (but not her circles).
    bob.goto("/u/ada/")
    expect(bob.locator("#profile .badge")).to_have_text("Follows you")
    expect(bob.locator("#profile")).not_to_contain_text("friends")
    bob.get_by_role("link", name="Me", exact=True).click()
    expect(counts(bob, "followers")).to_have_text("1")

    # Ada blocks Cyd, sees "Unblock", unblocks and can follow again.
    ada.goto("/u/cyd/")
    expect(ada.get_by_role("button", name="Follow", exact=True)).to_be_visible()
    # Blocking asks first: it ends the follows both ways.
    ada.locator("details.confirm-action > summary", has_text="Block").click()
    ada.get_by_role("button", name="Block @cyd").click()
    expect(ada.locator("ul.messages")).to_contain_text("You blocked Cyd Charisse.")
    expect(ada.get_by_role("button", name="Unblock")).to_be_visible()
    expect(ada.get_by_role("button", name="Follow", exact=True)).to_have_count(0)
    expect(ada.locator("details.confirm-action > summary", has_text="Block")).to_have_count(0)

    ada.get_by_role("button", name="Unblock").click()
    expect(ada.locator("ul.messages")).to_contain_text("You unblocked Cyd Charisse.")
    expect(ada.get_by_role("button", name="Follow", exact=True)).to_be_visible()
    expect(ada.locator("details.confirm-action > summary", has_text="Block")).to_be_visible()
    expect(ada.get_by_role("button", name="Unblock")).to_have_count(0)

    # For people to look at, not asserted.
    ada.goto("/u/bob/")
    ada.screenshot(path=str(artifacts_dir / "profile-page.png"), full_page=True)
