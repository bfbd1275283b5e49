"""Hybrid fan-out (docs/performance.md#celebrities-are-pulled): an author past
FEED_PULL_THRESHOLD followers is pulled. Their public posts go to no
follower's timeline, and every news page, under each stored model, linking or
embedding, shows what the read model shows: the posts merged at read time,
page after page, with blocks, mutes, unfollows, deletions and removals
applied when read."""

from datetime import timedelta

import pytest
from django.test import Client

from feeds.documents import PUBLIC
from feeds.services import likes, reposts
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.services import circles, mutes
from socialsite import active
from socialsite.clock import now
from socialsite.cursors import EPOCH, Cursor
from tests.conftest import user
from tests.feeds.test_shadow_models import (
    READ_MODELS,
    STORED,
    assert_parity,
    shown,
    stored_ids,
)
from timelines.delivery import pulled as pulling
from timelines.documents import PulledAuthor
from timelines.selectors import newposts, pulled
from timelines.selectors import pages as selectors


def say(author: str, text: str, circles_=(PUBLIC,), **fields):
    return services.post_create(
        author=user(author),
        type="status",
        detail={"text": text},
        circles=list(circles_),
        **fields,
    )


@pytest.fixture(params=[*STORED, "read"])
def configured(request, settings):
    """Shadows on, under each configured model, as in test_shadow_models."""
    settings.FEED_MODEL = request.param
    settings.FEED_SHADOW_MODELS = "all"
    settings.FEED_EMBED = False
    settings.FEED_BUCKET_SIZE = 2
    settings.FEED_MONTH_CAP = 2
    return request.param


@pytest.fixture
def pull_at_three(settings):
    settings.FEED_PULL_THRESHOLD = 3
    settings.FEED_PULL_GRACE_SECONDS = 0  # pulled as soon as marked (one process)


def test_past_the_threshold_posts_are_read_not_pushed_under_every_model(
    configured, pull_at_three, make_user
):
    star = make_user("star")
    fans = [make_user(f"fan{i}") for i in range(4)]
    make_user("other")
    boss = make_user("boss", role="moderator")
    circles.circle_create(owner=star, name="inner")
    for fan in fans:
        graph.follow_create(follower=fan, followee="star")
    graph.follow_create(follower=user("other"), followee="fan0")

    first = say("star", "pushed: the delivery that counts 4 followers marks star")
    assert PulledAuthor.objects(handle="star").count() == 1
    later = [say("star", f"pulled {i}") for i in range(4)]
    # A circle post reaches few readers: still pushed to its members.
    graph.follow_create(follower=user("star"), followee="fan1", circles=["inner"])
    inner = say("star", "inner circle", circles_=["inner"])
    own = say("fan0", "a pushed post among the pulled ones")

    if configured != "read":
        for model in STORED:
            news = stored_ids(model, "fan0", "news")
            assert first.id in news and own.id in news, model
            assert not {p.id for p in later} & set(news), model
            assert inner.id in stored_ids(model, "fan1", "news"), model
            # The author's own news and wall hold everything of theirs.
            assert {p.id for p in later} <= set(stored_ids(model, "star", "news")), model
            assert {p.id for p in later} <= set(stored_ids(model, "star", "wall")), model
    assert_parity("star", "fan0", "fan1", "other")
    news = [post_id for post_id, _ in shown("fan0", "read", False)[0]]
    assert news[:2] == [own.id, later[3].id] and first.id in news

    reposts.repost_create(post_id=later[0].id, user=user("fan0"))  # reposts are pushed
    likes.like_create(post_id=later[1].id, user=user("fan2"))
    services.post_edit(post_id=later[2].id, actor=user("star"), changes={"text": "edited"})
    assert_parity("fan0", "fan2", "other")
    services.post_delete(post_id=later[2].id, actor=user("star"))
    moderation.post_remove(moderator=boss, target=Target("post", str(later[3].id)))
    assert_parity("star", "fan0", "fan2", "other")

    # A new follower's backfill leaves the pulled posts out: read when shown.
    graph.follow_create(follower=make_user("late"), followee="star")
    if configured != "read":
        for model in STORED:
            news = stored_ids(model, "late", "news")
            assert first.id not in news and later[0].id not in news, model
    assert_parity("late")
    assert first.id in [post_id for post_id, _ in shown("late", "read", False)[0]]

    # The reader's own hiding, decided when read: a mute, a block, an unfollow.
    mutes.mute_create(user=user("fan1"), handle="star")
    graph.block_create(blocker=user("fan2"), blocked="star")
    graph.follow_delete(follower="fan3", followee="star")
    assert_parity("fan1", "fan2", "fan3")
    for fan in ("fan1", "fan2", "fan3"):
        for model, embed in READ_MODELS:
            posts = shown(fan, model, embed)[0]
            assert not {p.id for p in later} & {post_id for post_id, _ in posts}, (fan, model)
    # The author blocks a follower: the edge goes, and the posts with it.
    graph.block_create(blocker=user("star"), blocked="fan0")
    assert_parity("fan0")
    assert later[1].id not in [post_id for post_id, _ in shown("fan0", "read", False)[0]]


@pytest.mark.parametrize("embed", [False, True])
@pytest.mark.parametrize("model", STORED)
def test_paging_interleaves_pulled_and_stored_posts_as_the_read_model_does(
    model, embed, settings, make_user
):
    """Pulled posts older than a stored chunk's last entry wait for the next
    chunk; a page boundary inside a run of either kind skips and repeats
    nothing."""
    settings.FEED_MODEL, settings.FEED_EMBED = model, embed
    settings.FEED_SHADOW_MODELS = ""
    settings.FEED_PAGE_SIZE = 3
    settings.FEED_BUCKET_SIZE, settings.FEED_MONTH_CAP = 2, 2
    for handle in ("reader", "star", "mid", "also"):
        make_user(handle)
    pulling.mark("star", since=EPOCH)
    pulling.mark("also", since=EPOCH)
    for author in ("star", "mid", "also"):
        graph.follow_create(follower=user("reader"), followee=author)
    order = ["star", "star", "mid", "star", "mid", "mid", "mid", "also", "star", "also", "mid"]
    made = [say(author, f"{author} {i}").id for i, author in enumerate(order)]
    mutes.mute_create(user=user("reader"), handle="also")  # never crowds a page
    expected = [made[i] for i in reversed(range(len(order))) if order[i] != "also"]

    def walk(timeline_model: str) -> list:
        seen, cursor = [], None
        for _ in range(10):
            with active.override(timeline_model=timeline_model, embed=embed):
                page = selectors.news_page(user("reader"), cursor)
            seen += [p["_id"] for p in page.posts]
            if page.next_cursor is None:
                return seen
            cursor = Cursor.decode(page.next_cursor)
        raise AssertionError("the pages never ended")

    assert walk("read") == expected
    assert walk(model) == expected


def test_pushing_stops_only_after_the_grace_and_the_mark_is_kept(settings, make_user):
    settings.FEED_PULL_THRESHOLD = 1
    settings.FEED_PULL_GRACE_SECONDS = 30
    make_user("star")
    for handle in ("ann", "bob"):
        graph.follow_create(follower=make_user(handle), followee="star")
    first = say("star", "counted: marks star")
    since = PulledAuthor.objects.get(handle="star").since
    second = say("star", "inside the grace: every process may not merge it yet")
    assert {first.id, second.id} <= set(stored_ids("cache", "ann", "news"))
    # A second mark (a racing delivery) keeps the first time.
    pulling.mark("star")
    assert PulledAuthor.objects.get(handle="star").since == since
    PulledAuthor.objects(handle="star").update_one(set__since=now() - timedelta(seconds=31))
    pulled.forget()
    third = say("star", "past the grace: pulled")
    assert third.id not in stored_ids("cache", "ann", "news")
    news = [p["_id"] for p in selectors.news_page(user("ann")).posts]
    assert news == [third.id, second.id, first.id]


@pytest.mark.parametrize("model", [*STORED, "read"])
def test_new_posts_counts_the_pulled_posts_above_the_cursor(model, settings, make_user):
    settings.FEED_MODEL = model
    for handle in ("reader", "star", "mid", "muted"):
        make_user(handle)
    for author in ("star", "mid", "muted"):
        graph.follow_create(follower=user("reader"), followee=author)
    pulling.mark("star", since=EPOCH)
    pulling.mark("muted", since=EPOCH)
    say("mid", "seen")
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    say("star", "new, pulled")
    say("mid", "new, pushed")
    say("muted", "new, pulled, muted")
    mutes.mute_create(user=user("reader"), handle="muted")
    assert newposts.new_posts(user("reader"), Cursor.decode(since)).count == 2
    assert len(selectors.news_page(user("reader")).posts) == 3


def test_the_feed_card_says_which_posts_were_pulled(make_user, login):
    make_user("star")
    reader = make_user("reader")
    graph.follow_create(follower=reader, followee="star")
    pulling.mark("star", since=EPOCH)
    pulled_post = say("star", "read when shown")
    html = login(reader).get("/feed/").content.decode()
    assert f'id="post-{pulled_post.id}"' in html
    assert 'data-pulled="1"' in html
    # A signed-out visitor reads the author's wall, where it was pushed.
    wall = Client().get("/u/star/").content.decode()
    assert f'id="post-{pulled_post.id}"' in wall and 'data-pulled="1"' not in wall
