"""Issue 23's discovery in a real browser: a search that finds people and
posts, a tag followed from its page whose posts then reach the news feed,
at desktop and phone widths; Explore's popular posts and people to follow."""

import re

from playwright.sync_api import expect

from feeds.documents import PUBLIC
from feeds.services import likes, posts


def test_search_then_follow_a_tag_into_the_feed(make_user, new_page, sign_in, artifacts_dir):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Baker")
    rye = posts.post_create(
        author=bob, type="status", detail={"text": "Rye bread, fresh #Bread"}, circles=[PUBLIC]
    )
    likes.like_create(post_id=rye.id, user=make_user("cyd", "Cyd Crumb"))
    posts.post_create(author=ada, type="status", detail={"text": "Reading"}, circles=[PUBLIC])
    page = new_page()
    sign_in(page, "ada")

    page.get_by_role("searchbox").first.fill("bread rye")
    page.keyboard.press("Enter")
    results = page.locator("section.post-results")
    expect(results.locator("article.post")).to_have_count(1)
    expect(results).to_contain_text("Rye bread, fresh")
    page.set_viewport_size({"width": 390, "height": 900})
    page.screenshot(path=str(artifacts_dir / "discovery-search-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    results.get_by_role("link", name="#Bread").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("#bread")
    page.get_by_role("button", name="Follow #bread").click()
    expect(page.get_by_role("button", name="Unfollow #bread")).to_be_visible()
    page.screenshot(path=str(artifacts_dir / "discovery-tag-1280.png"), full_page=True)

    # Ada does not follow bob, yet his tagged post is in her feed now.
    page.goto("/feed/")
    expect(page.locator("article.post").filter(has_text="Rye bread, fresh")).to_be_visible()

    # Explore: bob's liked post is popular, and bob is someone to follow.
    page.goto("/explore/")
    expect(page.locator("section.explore-posts article.post")).to_contain_text("Rye bread")
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts_dir / "discovery-explore-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    people = page.locator("section.explore-people")
    people.get_by_role("button", name="Follow Bob Baker").click()
    expect(page).to_have_url(re.compile(r"/explore/$"))
    expect(page.locator("section.explore-people li[data-handle=bob]")).to_have_count(0)


def test_a_warned_post_opens_on_request_and_a_photo_is_described(
    make_user, new_page, sign_in, artifacts_dir
):
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    from feeds.services import photos

    ada = make_user("ada", "Ada Lovelace")
    posts.post_create(
        author=ada,
        type="status",
        detail={"text": "The butler did it.", "cw": "book spoilers"},
        circles=[PUBLIC],
    )
    buffer = io.BytesIO()
    Image.new("RGB", (80, 60), (200, 120, 40)).save(buffer, "PNG")
    photo = photos.process_upload(SimpleUploadedFile("loaf.png", buffer.getvalue(), "image/png"))
    posts.post_create(
        author=ada,
        type="photo",
        detail={"text": "Fresh", "alt": "A golden loaf cooling on a rack"},
        circles=[PUBLIC],
        photo=photo,
    )
    page = new_page()
    sign_in(page, "ada")
    warned = page.locator("details.cw")
    expect(warned.locator("summary")).to_contain_text("book spoilers")
    expect(page.get_by_text("The butler did it.")).to_be_hidden()
    warned.locator("summary").click()
    expect(page.get_by_text("The butler did it.")).to_be_visible()
    expect(page.get_by_role("img", name="A golden loaf cooling on a rack")).to_be_visible()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"discovery-cw-{width}.png"), full_page=True)
