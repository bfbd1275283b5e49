"""Direct messages in a real browser (docs/messages.md): ann writes to bob and
cyd from her inbox; bob's header counts one unread conversation, his inbox
marks it, and opening it reads it; he reports her message from its
Report link (the page's one report dialog) and replies; cyd opens it and leaves
(confirming the dialog), and it is closed to her; ann's header counts bob's
reply, and she sees it with the line saying cyd left. The inbox and the
conversation are saved at 1280 and 390 px as test-artifacts/messages-*.png."""

import re

import pytest
from playwright.sync_api import Page, expect

DESKTOP, PHONE = 1280, 390
CONVERSATION = re.compile(r"/messages/[0-9a-f]{24}/#latest$")


@pytest.fixture
def cast(make_user):
    for handle, name in (("ann", "Ann Example"), ("bob", "Bob Kahn"), ("cyd", "Cyd Charisse")):
        make_user(handle, name)


def unread(page: Page):
    """The header's messages link, whose data-unread is the count."""
    return page.locator("header a.messages")


def message(page: Page, text: str):
    return page.locator("ol.message-list li.dm", has_text=text)


def shoot(page: Page, artifacts_dir, name: str) -> None:
    """The page at desktop and phone width; at phone width it must not
    scroll sideways."""
    for width in (DESKTOP, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(artifacts_dir / f"messages-{name}-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE, name
    page.set_viewport_size({"width": DESKTOP, "height": 900})


def test_ann_writes_to_bob_and_cyd_bob_replies_cyd_leaves(
    cast, new_page, sign_in_by_cookie, artifacts_dir
):
    ann, bob, cyd = new_page(), new_page(), new_page()
    for page, handle in ((ann, "ann"), (bob, "bob"), (cyd, "cyd")):
        sign_in_by_cookie(page.context, handle)
        page.goto("/feed/")

    # Ann starts it from her inbox's "New message", to two people in one field.
    ann.goto("/messages/")
    expect(unread(ann)).to_have_attribute("data-unread", "0")
    expect(ann.locator(".messages-page")).to_contain_text("No conversations yet.")
    ann.locator("details.compose > summary", has_text="New message").click()
    ann.get_by_label("To", exact=True).fill("bob, cyd")
    ann.get_by_label("Message", exact=True).fill("Lunch on Friday?")
    ann.get_by_role("button", name="Send").click()
    expect(ann).to_have_url(CONVERSATION)
    url = ann.url.split("#")[0]
    expect(ann.get_by_role("heading", level=1)).to_have_text("Bob Kahn, Cyd Charisse")
    expect(message(ann, "Lunch on Friday?")).to_have_class(re.compile(r"\bdm--mine\b"))

    # Bob: one unread conversation in the header and in his inbox; opening it reads it.
    bob.reload()
    expect(unread(bob)).to_have_attribute("data-unread", "1")
    expect(unread(bob)).to_contain_text("1")
    unread(bob).click()
    expect(bob).to_have_url(re.compile(r"/messages/$"))
    row = bob.locator("li.conversation-row")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-unread", "true")
    expect(row).to_contain_text("Ann Example: Lunch on Friday?")
    row.get_by_role("link").click()
    expect(bob).to_have_url(CONVERSATION)
    expect(message(bob, "Lunch on Friday?")).to_have_attribute("data-by", "ann")
    expect(unread(bob)).to_have_attribute("data-unread", "0")
    # Bob reports Ann's message: its Report link opens the page's one report
    # dialog aimed at that message (docs/moderation.md#reports); Escape
    # closes it and gives the focus back to the link.
    report = message(bob, "Lunch on Friday?").get_by_role(
        "link", name="Report the message from Ann Example"
    )
    report.click()
    dialog = bob.get_by_role("dialog", name="Report")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Reporting the message from Ann Example.")
    expect(dialog.get_by_label("Reason")).to_be_focused()
    bob.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(report).to_be_focused()
    report.click()
    dialog.get_by_label("Reason").select_option("harassment")
    dialog.get_by_label("Note (optional)").fill("not nice")
    dialog.get_by_role("button", name="Send report").click()
    expect(bob.locator("ul.messages")).to_contain_text("A moderator will look at it.")
    expect(bob).to_have_url(re.compile(r"/messages/[0-9a-f]{24}/$"))
    bob.get_by_label("Your message").fill("Friday works for me.")
    bob.get_by_role("button", name="Send").click()
    expect(message(bob, "Friday works for me.")).to_have_class(re.compile(r"\bdm--mine\b"))
    bob.goto("/messages/")
    expect(bob.locator("li.conversation-row")).to_have_attribute("data-unread", "false")

    # Cyd had it unread (once, however many messages); she reads it and leaves.
    cyd.reload()
    expect(unread(cyd)).to_have_attribute("data-unread", "1")
    cyd.goto(url)
    expect(message(cyd, "Friday works for me.")).to_be_visible()
    cyd.once("dialog", lambda dialog: dialog.accept())
    cyd.get_by_role("button", name="Leave the conversation").click()
    expect(cyd).to_have_url(re.compile(r"/messages/$"))
    expect(cyd.locator("ul.messages")).to_contain_text("You left the conversation.")
    expect(cyd.locator("li.conversation-row")).to_have_count(0)
    expect(unread(cyd)).to_have_attribute("data-unread", "0")
    assert cyd.goto(url).status == 404  # closed to her now

    # Ann: bob's reply is one unread conversation; she sees it and cyd's leaving.
    ann.goto("/feed/")
    expect(unread(ann)).to_have_attribute("data-unread", "1")
    unread(ann).click()
    row = ann.locator("li.conversation-row")
    expect(row).to_have_attribute("data-unread", "true")
    expect(row.locator(".conversation-row__who")).to_have_text(re.compile(r"New\s+Bob Kahn$"))
    shoot(ann, artifacts_dir, "inbox")
    row.get_by_role("link").click()
    expect(message(ann, "Friday works for me.")).to_have_attribute("data-by", "bob")
    left = ann.locator("ol.message-list li.message-line")
    expect(left).to_have_count(1)
    expect(left).to_contain_text(re.compile(r"^Cyd Charisse left the conversation"))
    expect(ann.get_by_role("heading", level=1)).to_have_text("Bob Kahn")
    expect(unread(ann)).to_have_attribute("data-unread", "0")
    shoot(ann, artifacts_dir, "conversation")
