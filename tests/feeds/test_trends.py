"""Trending tags (docs/discovery.md#trends): distinct authors, not posts;
today against a decaying average of the days before; the viewer's blocks
and mutes; tags moderators hide."""

import re
from datetime import timedelta

import pytest
from django.test import Client

from explore import sweeps
from explore.documents import TagUse, TrendList
from explore.selectors import trends
from explore.services import tag_uses_record
from feeds.services import posts
from moderation.documents import AuditEntry
from profiles import services as graph
from profiles.services import mutes
from socialsite.clock import now
from tests.conftest import user

TREND = re.compile(r'<li class="trend" data-tag="([^"]+)" data-authors="(\d+)"')


def post(handle: str, text: str, circles=()):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=list(circles)
    )


def test_one_author_a_hundred_times_ranks_below_five_authors_once_each(make_user):
    for handle in ("solo", "aa1", "aa2", "aa3", "aa4", "aa5"):
        make_user(handle)
    for n in range(100):
        post("solo", f"again {n} #mine")
    for handle in ("aa1", "aa2", "aa3", "aa4", "aa5"):
        post(handle, "Look #ours")
    ranked = [(t.tag, t.authors) for t in trends.trending(user("solo"))]
    assert ranked == [("ours", 5), ("mine", 1)]
    # A hundred posts in one hour are one use.
    assert TagUse.objects(tag="mine").count() == 1


def test_a_tag_used_every_day_is_not_trending_and_circle_posts_do_not_count(make_user):
    at = now()
    for n in range(6):
        make_user(f"pp{n}")
    for day in range(1, 7):  # five people a day, every day before today
        for n in range(5):
            tag_uses_record(
                author=f"pp{n}", tags=["daily"], circles=["*public*"], ts=at - timedelta(days=day)
            )
    for n in range(5):  # and today as much as usual: no rise
        post(f"pp{n}", "as always #daily")
    for n in range(3):  # three people today, nobody before
        post(f"pp{n}", "something new #fresh")
    graph.circle_create(owner=user("pp5"), name="close")
    post("pp5", "circle only #fresh", circles=["close"])
    found = {t.tag: t for t in trends.trending(user("pp0"), at=at + timedelta(minutes=1))}
    assert list(found) == ["fresh"] and found["fresh"].authors == 3
    daily = TagUse.objects(tag="daily").first()
    assert daily.expires == daily.hour + timedelta(days=7)


@pytest.fixture(params=["ranked_by_the_page", "kept_by_the_job"])
def kept(request, settings):
    """Either the page ranks, or it reads the list the periodic job kept:
    call the fixture's value after writing, as the job would run."""
    if request.param == "ranked_by_the_page":
        return lambda: None
    settings.TRENDS_CACHE_SECONDS = 300
    return sweeps.trends_rank


def test_the_viewers_blocks_and_mutes_are_left_out_of_the_counts(make_user, login, kept):
    for handle in ("ada", "bb1", "bb2", "bb3", "rude", "loud", "fan"):
        make_user(handle)
    for handle in ("bb1", "bb2", "bb3", "rude", "loud"):
        post(handle, "Now #topic")
    for handle in ("rude", "loud"):
        post(handle, "Only us #noise")
    graph.block_create(blocker=user("ada"), blocked="rude")
    mutes.mute_create(user=user("ada"), handle="loud")
    kept()
    assert TREND.findall(login(user("ada")).get("/explore/").content.decode()) == [("topic", "3")]
    everyone = TREND.findall(Client().get("/explore/").content.decode())
    assert everyone == [("topic", "5"), ("noise", "2")]


def test_explore_reads_the_trends_in_one_read_of_the_kept_list(
    make_user, login, settings, round_trips
):
    settings.TRENDS_CACHE_SECONDS = 300
    for handle in ("bb1", "bb2"):
        make_user(handle)
        post(handle, "Now #topic")
    sweeps.trends_rank()
    with round_trips() as counter:
        page = Client().get("/explore/").content.decode()
    assert TREND.findall(page) == [("topic", "2")]
    # The trends are one read; the rest of the page (popular posts and people,
    # tests/feeds/test_discovery.py) never ranks tags.
    collections = [trip.collection for trip in counter.trips]
    assert collections.count("trend_list") == 1 and "tag_use" not in collections, collections
    # An hour later, with no job run since, the page ranks again itself.
    TrendList.objects(id="everyone").update_one(set__computed=now() - timedelta(hours=1))
    post("bb1", "Then #other")
    assert len(TREND.findall(Client().get("/explore/").content.decode())) == 2


def test_moderators_hide_a_tag_from_the_trends_and_show_it_again(make_user, login, kept):
    make_user("ada")
    mod = login(make_user("mod", role="moderator"))
    post("ada", "Buy now #spam")
    post("ada", "Also #fine")
    kept()
    assert [t for t, _ in TREND.findall(mod.get("/explore/").content.decode())] == [
        "fine",
        "spam",
    ]
    assert login(user("ada")).post("/mod/tags/spam/hide/").status_code == 403
    assert mod.post("/mod/tags/Spam/hide/", {"reason": "ads"}).status_code == 302
    page = mod.get("/explore/").content.decode()
    assert [t for t, _ in TREND.findall(page)] == ["fine"] and "Show again" in page
    assert [t for t, _ in TREND.findall(Client().get("/explore/").content.decode())] == ["fine"]
    assert Client().get("/tags/spam/").status_code == 200  # its page stays
    entry = AuditEntry.objects.get(action="tag.hide")
    assert (entry.target_type, entry.target_id, entry.moderator) == ("tag", "spam", "mod")
    again = mod.post("/mod/tags/spam/hide/")
    assert again.status_code == 302 and AuditEntry.objects(action="tag.hide").count() == 1
    assert mod.post("/mod/tags/spam/show/").status_code == 302
    kept()
    assert len(TREND.findall(Client().get("/explore/").content.decode())) == 2
    assert mod.post("/mod/tags/123/hide/").status_code == 404
