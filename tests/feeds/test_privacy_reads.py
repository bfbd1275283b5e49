"""Reads that privacy rules shape (docs/privacy.md) beyond the visibility matrix:
feed-card comment previews hide the people the viewer blocked, and deciding
visibility at read time costs at most one query per page, only when the
page holds circle posts by others."""

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.services import posts as services
from profiles import services as graph
from tests.conftest import user
from timelines.selectors import pages as selectors


def test_no_comment_previews_by_people_the_viewer_blocked(model, make_user, login):
    ada, fan, pal = make_user("ada"), make_user("fan"), make_user("pal")
    for reader in (fan, pal):
        graph.follow_create(follower=reader, followee="ada")
    post = services.post_create(
        author=ada, type="status", detail={"text": "what do you think?"}, circles=[PUBLIC]
    )
    fan_client, pal_client = login(fan), login(pal)
    fan_client.post(f"/posts/{post.id}/comments/", {"text": "fan was here"})
    pal_client.post(f"/posts/{post.id}/comments/", {"text": "pal agrees"})
    card = f'data-post-id="{post.id}"'
    for page in ("/feed/", "/u/ada/"):
        html = pal_client.get(page).content.decode()
        assert card in html and "fan was here" in html and "pal agrees" in html, page

    graph.block_create(blocker=user("pal"), blocked="fan")

    for page in ("/feed/", "/u/ada/"):
        html = pal_client.get(page).content.decode()
        assert card in html and "pal agrees" in html, page
        assert "fan was here" not in html, page
        # The author, who blocked nobody, still sees both.
        html = login(ada).get(page).content.decode()
        assert "fan was here" in html and "pal agrees" in html, page


def test_the_read_time_check_costs_one_query_only_for_circle_posts(
    model, settings, make_user, round_trips
):
    """Same page size, same authors: a page of their circle posts costs at
    most one graph query more than a page of their public posts (none more
    under `read`, whose query applies the graph already), and the reader's
    own circle posts cost nothing more."""
    settings.FEED_PAGE_SIZE = 10
    reader = make_user("reader")
    graph.circle_create(owner=reader, name="close")
    authors = [make_user(f"author{i}") for i in range(4)]
    for author in authors:
        graph.circle_create(owner=author, name="close")
        graph.follow_create(follower=user("reader"), followee=author.handle)
        graph.follow_create(follower=user(author.handle), followee="reader", circles=["close"])

    def page_trips(circles, by) -> int:
        for i in range(12):
            services.post_create(
                author=user(by[i % len(by)]), type="status", detail={"text": "t"}, circles=circles
            )
        viewer = user("reader")
        with round_trips() as c:
            page = selectors.news_page(viewer)
        assert len(page.posts) == 10 and {p["circles"][0] for p in page.posts} == {circles[0]}
        return c.total

    others = [a.handle for a in authors]
    public = page_trips([PUBLIC], others)
    circles = page_trips([ALL_CIRCLES], others)
    named = page_trips(["close"], others)
    own = page_trips([ALL_CIRCLES], ["reader"])
    extra = 0 if model[0] == "read" else 1
    assert circles <= public + extra and named <= public + extra
    assert own == public
