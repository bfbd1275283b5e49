"""Issue 22 in a real browser: a person verifies their address, forgets their
password, finishes the reset from the mail the demo's mailbox kept on
/dev/mail/, and every session they had before is over; and a person turns on
two-factor login and logs in with a code, then with a recovery code."""

import re
import time

import pyotp
import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD

NEW_PASSWORD = "a fresh secret for ada 7"


@pytest.fixture
def mailbox(settings):
    """The demo's mail backend: what is sent is listed on /dev/mail/."""
    settings.MAILERS = {"default": {"BACKEND": "socialsite.mail.MailboxBackend"}}


def newest_link(staff_page, subject: str) -> str:
    """The link in the newest mail with this subject, read as an admin on /dev/mail/."""
    staff_page.goto("/dev/mail/")
    mail = staff_page.locator("article.mail").filter(has_text=subject).first
    expect(mail).to_be_visible()
    return mail.locator(".mail__body a").first.get_attribute("href")


def test_forgot_password_reset_from_dev_mail_ends_the_old_sessions(
    mailbox, make_user, new_page, sign_in, artifacts_dir
):
    make_user("ada", "Ada Lovelace")
    make_user("mod", "Ad Ministrator", role="admin")
    laptop, phone, staff = new_page(), new_page(), new_page()
    sign_in(laptop, "ada")
    sign_in(phone, "ada")
    sign_in(staff, "mod")

    # Ada gives her address and opens the link the mail carries.
    laptop.goto("/settings/profile/")
    laptop.get_by_role("link", name="Email", exact=True).click()
    laptop.get_by_label("Email address").fill("ada@example.org")
    laptop.get_by_label("Password").fill(PASSWORD)
    laptop.get_by_role("button", name="Save and verify").click()
    expect(laptop.locator("ul.messages")).to_contain_text("We sent a link to ada@example.org")
    expect(laptop.locator(".email-state")).to_have_attribute("data-verified", "false")
    laptop.goto(newest_link(staff, "Verify your email address"))
    expect(laptop.locator(".email-state")).to_have_attribute("data-verified", "true")

    # Later, signed out somewhere else, she has forgotten her password.
    anonymous = new_page()
    anonymous.goto("/accounts/login/")
    anonymous.get_by_role("link", name="Forgot your password?").click()
    anonymous.get_by_label("Email address").fill("ada@example.org")
    anonymous.get_by_role("button", name="Send the link").click()
    expect(anonymous.get_by_role("heading", name="Check your email")).to_be_visible()

    staff.goto("/dev/mail/")
    staff.screenshot(path=str(artifacts_dir / "accounts-dev-mail.png"), full_page=True)
    anonymous.goto(newest_link(staff, "Reset your password"))
    expect(anonymous.get_by_role("heading", name="Choose a new password")).to_be_visible()
    anonymous.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    anonymous.get_by_label("New password again").fill(NEW_PASSWORD)
    anonymous.get_by_role("button", name="Set the new password").click()
    expect(anonymous).to_have_url(re.compile(r"/accounts/login/$"))
    expect(anonymous.locator("ul.messages")).to_contain_text("every session was logged out")

    # Her two old sessions are over; the old password no longer opens a new one.
    for old in (laptop, phone):
        old.goto("/feed/")
        expect(old).to_have_url(re.compile(r"/accounts/login/"))
    anonymous.locator("[name=username]").fill("ada")
    anonymous.locator("[name=password]").fill(PASSWORD)
    anonymous.get_by_role("button", name="Log in").click()
    expect(anonymous.locator(".errorlist")).to_contain_text("don't match")
    anonymous.locator("[name=password]").fill(NEW_PASSWORD)
    anonymous.get_by_role("button", name="Log in").click()
    expect(anonymous).to_have_url(re.compile(r"/feed/$"))

    # The sessions page lists where she is logged in now: here only.
    anonymous.goto("/settings/sessions/")
    expect(anonymous.locator("li.session")).to_have_count(1)
    expect(anonymous.locator('li.session[data-current="true"]')).to_have_count(1)
    anonymous.screenshot(path=str(artifacts_dir / "accounts-sessions.png"), full_page=True)


def test_two_factor_login_from_enrolment_to_a_recovery_code(make_user, new_page, sign_in):
    """Enrol with a code computed from the secret the page shows, log out,
    log in again with a code, then with a recovery code, which works once."""
    make_user("ada", "Ada Lovelace")
    page = new_page()
    sign_in(page, "ada")
    page.goto("/settings/profile/")
    page.get_by_role("link", name="Two-factor login").click()
    expect(page.locator(".qr svg")).to_be_visible()
    secret = page.locator(".secret").get_attribute("data-secret")
    totp = pyotp.TOTP(secret)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Code").fill(totp.now())
    page.get_by_role("button", name="Turn on").click()
    expect(page.get_by_role("heading", name="Two-factor login is on")).to_be_visible()
    codes = page.locator(".recovery-codes code").all_inner_texts()
    assert len(codes) == 10

    def password_step(browser_page):
        browser_page.goto("/accounts/login/")
        browser_page.locator("[name=username]").fill("ada")
        browser_page.locator("[name=password]").fill(PASSWORD)
        browser_page.get_by_role("button", name="Log in").click()
        expect(browser_page).to_have_url(re.compile(r"/accounts/login/2fa/$"))

    page.locator("details.account-menu > summary").click()  # the header's menu
    page.get_by_role("button", name="Log out").click()
    password_step(page)
    # Not logged in until the code passes.
    page.goto("/feed/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    password_step(page)
    # The code of the next step: the enrolment spent this one.
    page.get_by_label("Code").fill(totp.generate_otp(int(time.time()) // totp.interval + 1))
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/feed/$"))

    # Phone lost: a recovery code, once.
    other = new_page()
    password_step(other)
    other.get_by_label("Code").fill(codes[0])
    other.get_by_role("button", name="Log in").click()
    expect(other).to_have_url(re.compile(r"/feed/$"))
    third = new_page()
    password_step(third)
    third.get_by_label("Code").fill(codes[0])
    third.get_by_role("button", name="Log in").click()
    expect(third.locator(".errorlist")).to_contain_text("does not work")
    page.goto("/settings/2fa/")
    expect(page.get_by_text("9 unused recovery codes left.")).to_be_visible()


def test_a_person_takes_their_data_and_leaves(make_user, new_page, sign_in, artifacts_dir):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Babbage")
    from comments import services as comments
    from feeds.documents import Post
    from feeds.services import posts

    post = posts.post_create(author=bob, type="status", detail={"text": "Bread?"}, circles=[])
    stored = Post._get_collection().find_one({"_id": post.id})
    said = comments.comment_create(post=stored, author=ada, text="Rye, always.")
    stored = Post._get_collection().find_one({"_id": post.id})
    comments.comment_create(post=stored, author=bob, text="Noted!", parent_slug=said.slug)
    page = new_page()
    sign_in(page, "ada")

    page.goto("/settings/profile/")
    page.get_by_role("link", name="Your data").click()
    page.get_by_role("button", name="Ask for a new export").click()
    expect(page.locator(".export")).to_have_attribute("data-state", "ready")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download your export").click()
    assert download.value.suggested_filename.startswith("socialsite-ada-")
    page.screenshot(path=str(artifacts_dir / "accounts-export.png"), full_page=True)

    page.goto("/settings/delete/")
    page.get_by_label("Password").fill(PASSWORD)
    page.on("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete my account").click()
    expect(page.locator("ul.messages")).to_contain_text("Your account is deleted")
    page.goto(f"/posts/{post.id}/")
    expect(page.locator("[data-erased]")).to_have_text("[deleted account]")
    expect(page.locator(".comment").filter(has_text="Noted!")).to_be_visible()
    page.goto("/accounts/login/")
    page.get_by_label("Handle").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".errorlist")).to_be_visible()
