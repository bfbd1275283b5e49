"""Followed tags and the people who blocked the reader (issue 32, item 4):
their posts leave the followed-tags read in the query itself, before its
sort and limit (docs/discovery.md#following-a-tag), so however many of them
post the followed tag, the posts that should show still fill the page and
the "n new posts" count, under every timeline model."""

import re
from datetime import timedelta

import pytest

from feeds.services import posts
from profiles import services as graph
from profiles.services import tags
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests.conftest import user
from timelines.selectors import newposts

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"')
BLOCKERS = 30
# Each blocker's recent #bread posts: 90 in all, more than the followed-tags
# read took before filtering them out (three times its window of
# FEED_PAGE_SIZE + 2), which is how they pushed the older post off the page.
POSTS_EACH = 3


def post(handle, text, **kwargs):
    return posts.post_create(
        author=user(handle), type="status", detail={"text": text}, circles=[], **kwargs
    )


@pytest.mark.parametrize("feed_model", ["cache", "month", "size", "read"])
def test_people_who_blocked_the_reader_never_crowd_a_followed_tag_out(
    feed_model, settings, monkeypatch, make_user, login
):
    settings.FEED_MODEL = feed_model
    # The count's window is COUNT_CAP + 1: smaller, so that 90 blockers'
    # posts outnumber what the old read took for it too (3 x 26).
    monkeypatch.setattr(newposts, "COUNT_CAP", 25)
    start = now() - timedelta(hours=3)
    for handle in ("ada", "cyd"):
        make_user(handle)
    tags.tag_follow_create(user=user("ada"), tag="bread")
    # Her own post: her timeline exists, and its place is the count's cursor.
    own = post("ada", "my first loaf", ts=start)
    older = post("cyd", "An older loaf #bread", ts=start + timedelta(minutes=30))
    blocked_ids = []
    for n in range(BLOCKERS):
        make_user(f"hater{n}")
        graph.block_create(blocker=user(f"hater{n}"), blocked="ada")
        for m in range(POSTS_EACH):
            ts = start + timedelta(hours=1, minutes=n * POSTS_EACH + m)
            blocked_ids.append(str(post(f"hater{n}", f"hate {n}.{m} #bread", ts=ts).id))

    ada = login(user("ada"))
    shown = ARTICLE.findall(ada.get("/feed/").content.decode())
    assert shown == [str(older.id), str(own.id)]
    assert not set(blocked_ids) & set(shown)

    since = Cursor(own.ts, own.id).encode()
    response = ada.get("/feed/new/", {"since": since})
    assert response.json() == {"count": 1, "more": False}
