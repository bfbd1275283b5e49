"""Following a hashtag (docs/discovery.md#following-a-tag): its public posts
join the follower's news feed when it is read, under every timeline model,
linked or embedded, with blocks (both ways) and mutes applied, paged without
gaps or repeats, counted by "n new posts", inside the page's round trips."""

import re
from datetime import timedelta

import pytest

from feeds.services import posts
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.services import mutes, tags
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests.conftest import user
from timelines.selectors import newposts
from timelines.selectors import pages as selectors

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"')


def post(handle, text, circles=(), **kwargs):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=list(circles), **kwargs
    )


@pytest.fixture
def world(make_user):
    """ada follows #bread and bob; cyd, dee and hater are strangers to her;
    hater blocked ada, ada muted noisy."""
    for handle in ("ada", "bob", "cyd", "dee", "hater", "noisy", "mod"):
        make_user(handle, role="moderator" if handle == "mod" else "user")
    graph.follow_create(follower=user("ada"), followee="bob")
    graph.block_create(blocker=user("hater"), blocked="ada")
    mutes.mute_create(user=user("ada"), handle="noisy")
    tags.tag_follow_create(user=user("ada"), tag="bread")


def test_a_followed_tag_brings_public_posts_into_the_news_under_every_model(model, world, login):
    graph.circle_create(owner=user("cyd"), name="close")
    from_bob = post("bob", "Bob's day")
    tagged = post("cyd", "A loaf #Bread")
    circle = post("cyd", "Circle #bread", circles=["close"])
    by_hater = post("hater", "Hater #bread")
    by_noisy = post("noisy", "Noisy #bread")
    removed = post("dee", "Spam #bread")
    other_tag = post("dee", "Cakes #cake")
    moderation.post_remove(moderator=user("mod"), target=resolve_target(f"post:{removed.id}"))

    ada = login(user("ada"))
    shown = ARTICLE.findall(ada.get("/feed/").content.decode())
    assert shown == [str(tagged.id), str(from_bob.id)]
    for hidden in (circle, by_hater, by_noisy, removed, other_tag):
        assert str(hidden.id) not in shown
    # A post both by someone she follows and tagged shows once.
    both = post("bob", "Bob bakes #bread")
    assert ARTICLE.findall(ada.get("/feed/").content.decode()).count(str(both.id)) == 1

    tags.tag_follow_delete(user=user("ada"), tag="bread")
    shown = ARTICLE.findall(ada.get("/feed/").content.decode())
    assert str(tagged.id) not in shown and str(both.id) in shown


def test_tag_posts_page_with_the_timeline_without_gaps_or_repeats(model, world, settings):
    settings.FEED_PAGE_SIZE = 3
    start = now() - timedelta(hours=2)
    made = []
    for n in range(10):
        author, text = ("bob", f"bob {n}") if n % 3 else ("cyd", f"cyd {n} #bread")
        made.append(post(author, text, ts=start + timedelta(minutes=n)))
    seen, cursor = [], None
    while True:
        page = selectors.news_page(user("ada"), cursor)
        seen += [str(p["_id"]) for p in page.posts]
        post("dee", "arriving #bread")  # new posts while she pages back
        if not page.next_cursor:
            break
        cursor = Cursor.decode(page.next_cursor)
    assert seen == [str(p.id) for p in reversed(made)]


def test_new_posts_counts_the_tag_posts_the_page_would_show(model, world):
    post("bob", "first")
    since = newposts.since_of(selectors.news_page(user("ada")).posts)
    post("cyd", "new #bread")
    post("bob", "new from bob")
    post("hater", "blocked #bread")
    post("noisy", "muted #bread")
    count = newposts.new_posts(user("ada"), Cursor.decode(since)).count
    assert count == 2 == len(selectors.news_page(user("ada")).posts) - 1


@pytest.mark.parametrize("feed_model", ["cache"])
def test_a_feed_with_followed_tags_is_three_round_trips(
    feed_model, settings, world, login, round_trips
):
    """The session, who blocked the reader (one read on the `user.blocked`
    index, which the followed tags' query leaves out before its limit), and
    the page's one aggregate (docs/performance.md#round-trip-budgets)."""
    settings.FEED_MODEL = feed_model
    for n in range(6):
        post("cyd", f"loaf {n} #bread")
        post("bob", f"bob {n}")
    ada = login(user("ada"))
    ada.get("/feed/")
    with round_trips() as trips:
        page = ada.get("/feed/").content.decode()
    assert "loaf 5" in page and "bob 5" in page
    sent = [(t.name, t.collection) for t in trips.trips]
    assert sent == [("aggregate", "session"), ("find", "user"), ("aggregate", "timeline_cache")]
    # Without followed tags nothing is read for them: 2, as every news page.
    tags.tag_follow_delete(user=user("ada"), tag="bread")
    ada.get("/feed/")
    with round_trips() as trips:
        ada.get("/feed/")
    assert trips.total == 2, [(t.name, t.collection) for t in trips.trips]


def test_following_a_tag_from_its_page(world, login, settings):
    cyd = login(user("cyd"))
    page = cyd.get("/tags/Bread/").content.decode()
    assert 'data-following="false"' in page and "Follow #bread" in page
    assert cyd.post("/tags/Bread/follow/").status_code == 302
    assert user("cyd").followed_tags == ["bread"]
    assert 'data-following="true"' in cyd.get("/tags/bread/").content.decode()
    assert cyd.post("/tags/bread/unfollow/").status_code == 302
    assert user("cyd").followed_tags == []
    assert cyd.post("/tags/123/follow/").status_code == 404
    assert cyd.get("/tags/bread/follow/")["Location"] == "/tags/bread/"  # a GET never acts
    settings.RATELIMIT_FOLLOW = "2/300"  # two spent above
    limited = cyd.post("/tags/bread/follow/")
    assert limited.status_code == 429 and user("cyd").followed_tags == []
    assert "Too many attempts" in limited.content.decode()


def test_a_person_follows_at_most_a_hundred_tags(world):
    cyd = user("cyd")
    for n in range(tags.MAX_FOLLOWED_TAGS):
        tags.tag_follow_create(user=cyd, tag=f"t{n}")
    with pytest.raises(graph.GraphError, match="at most 100 tags"):
        tags.tag_follow_create(user=user("cyd"), tag="one_more")
    assert len(user("cyd").followed_tags) == tags.MAX_FOLLOWED_TAGS


def test_a_pulled_author_and_a_followed_tag_page_together_without_gaps(model, world, settings):
    """Both read beside the timeline, each up to the page's size: neither
    side's unread posts may fall between two pages."""
    from socialsite.cursors import EPOCH
    from timelines.delivery import pulled as pulling
    from timelines.selectors import pulled

    settings.FEED_PAGE_SIZE = 3
    pulling.mark("bob", since=EPOCH)
    pulled.forget()
    start = now() - timedelta(hours=3)
    made = []
    for n in range(14):  # bob's run, then cyd's tagged run, then mixed
        author, text = ("bob", f"bob {n}") if n < 5 or n % 2 else ("cyd", f"cyd {n} #bread")
        made.append(post(author, text, ts=start + timedelta(minutes=n)))
    seen, cursor = [], None
    while True:
        page = selectors.news_page(user("ada"), cursor)
        seen += [str(p["_id"]) for p in page.posts]
        if not page.next_cursor:
            break
        cursor = Cursor.decode(page.next_cursor)
    assert seen == [str(p.id) for p in reversed(made)]


def test_the_readers_like_shows_on_a_tag_post(world, login):
    from feeds.services import likes

    tagged = post("cyd", "liked loaf #bread")
    likes.like_create(post_id=tagged.id, user=user("ada"))
    page = login(user("ada")).get("/feed/").content.decode()
    card = page[page.index(f'id="post-{tagged.id}"') :]
    assert 'aria-pressed="true"' in card[: card.index("</article>")]
