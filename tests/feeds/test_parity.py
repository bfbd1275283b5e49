"""All four timeline models, linking or embedding, give the same pages."""

import pytest

from profiles.documents import User
from socialsite.cursors import Cursor
from tests.conftest import sized
from tests.feeds import world
from timelines.selectors import pages as selectors

MODELS = ["read", "cache", "month", "size"]


def signature(post: dict) -> tuple:
    return (post["by"]["id"], post.get("to"), post["detail"]["text"], post["ts"])


def three_pages(fetch) -> list[list[tuple]]:
    pages, cursor = [], None
    for _ in range(3):
        page = fetch(cursor)
        pages.append([signature(p) for p in page.posts])
        if not page.next_cursor:
            break
        cursor = Cursor.decode(page.next_cursor)
    return pages


def snapshot(handles) -> dict:
    result = {}
    users = {u.handle: u for u in User.objects}
    guest = users[handles[-1]]
    for h in handles:
        user = users[h]
        result[("news", h)] = three_pages(lambda c, u=user: selectors.news_page(u, c))
        result[("wall", h)] = three_pages(lambda c, u=user: selectors.wall_page(u, u, c))
        result[("wall-seen-by", h)] = three_pages(
            lambda c, u=user: selectors.wall_page(u, guest, c)
        )
        result[("incoming", h)] = three_pages(lambda c, u=user: selectors.incoming_page(u, c))
    return result


@pytest.fixture
def small_pages(settings):
    settings.FEED_PAGE_SIZE = 4
    settings.FEED_BUCKET_SIZE = 5  # several buckets per timeline under `size`


# Two of the world's 30 authors are pulled (docs/performance.md#celebrities-are-pulled):
# their public posts are in no follower's timeline, and every stored model
# merges them when read; the other 28 are pushed. One world covers both ways
# (it is the suite's slowest test through a driver: not built twice).
PULLED = ("user03", "user11")


def test_every_model_reads_the_same_pages_from_one_world_written_to_all(settings, small_pages):
    """One world, written to every stored model at once (shadow models,
    docs/storage-models.md#shadow-models, which also store the copies that
    embedding reads), then read under each model, linking and embedding:
    the pages agree with the read model's. The reads, the part a driver
    changes (aggregates, `getMore`), run for all eight. (A world built once
    per model, eight builds, checked nothing more: a store is written by the
    same code whether it is the chosen model or a shadow, and it cost 36 s.)"""
    settings.FEED_SHADOW_MODELS = "all"
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", False
    # 30 people and 120 posts on mongomock; fewer through a driver (writing
    # seven stores costs the wire server minutes), still three pages of some
    # news feeds.
    handles = world.build(pulled=PULLED, n_users=sized(30, 16), n_posts=sized(120, 50))
    snapshots = {}
    for model in MODELS:
        for embed in (False, True):
            settings.FEED_MODEL, settings.FEED_EMBED = model, embed
            snapshots[(model, embed)] = snapshot(handles)
    reference = snapshots[("read", False)]
    # The world is rich enough that the comparison means something.
    assert sum(len(p) for pages in reference.values() for p in pages) > sized(400, 120)
    assert any(len(pages) == 3 for key, pages in reference.items() if key[0] == "news")
    for key, snap in snapshots.items():
        for page_key, pages in reference.items():
            assert snap[page_key] == pages, (key, page_key)
