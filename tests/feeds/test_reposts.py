"""Reposts (issue 12, item 2; docs/features.md#interactions): delivered through the same
fan-out and timeline models, each post once per reader, gone on undo, on
deletion or removal of the original and for readers who mute or block the
reposter; public posts only; unknown ids 404; rate limited."""

import math
import re
from datetime import timedelta

import pytest
from bson import ObjectId

from feeds.documents import ALL_CIRCLES, PUBLIC, Post, PostRepost
from feeds.services import posts as services
from feeds.services import reposts
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests.conftest import user
from tests.feeds.test_fanout import bulk_followers
from timelines.delivery import fanout, retry
from timelines.selectors import pages as selectors
from timelines.stores import get_store

DUMMY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


def shown(handle: str) -> list[tuple]:
    """(post id, reposted by) of every post of the reader's news, all pages."""
    seen, cursor = [], None
    while True:
        page = selectors.news_page(user(handle), cursor)
        seen += [(p["_id"], p.get("reposted_by")) for p in page.posts]
        if not page.next_cursor:
            return seen
        cursor = Cursor.decode(page.next_cursor)


def wall(handle: str, viewer: str | None = None) -> list[tuple]:
    page = selectors.wall_page(user(handle), user(viewer or handle))
    return [(p["_id"], p.get("reposted_by")) for p in page.posts]


def repost_entries(owner: str, repost_id, kind: str = "news") -> int:
    """How many entries of one repost the owner's timeline holds (stored models)."""
    chunk = get_store().entries(kind, owner, None, 1000)
    return sum(1 for e in chunk.entries if e["id"] == repost_id)


def everywhere(repost_id) -> int:
    """Entries of the repost in every stored timeline, counted in the collection."""
    store = get_store()
    if not store.stores_entries:
        return 0
    rows = store.collection().find({"entries.id": repost_id}, {"entries": 1})
    return sum(1 for row in rows for e in row["entries"] if e["id"] == repost_id)


@pytest.fixture
def people(make_user):
    """ann writes; rex reposts; fay follows rex; gus follows rex and ann;
    hal follows rex and ray, who reposts too."""
    for handle in ("ann", "rex", "ray", "fay", "gus", "hal"):
        make_user(handle)
    for follower, followee in [
        ("fay", "rex"),
        ("gus", "rex"),
        ("gus", "ann"),
        ("hal", "rex"),
        ("hal", "ray"),
    ]:
        graph.follow_create(follower=user(follower), followee=followee)
    return user


def ann_posts(text: str = "hello", circles=(PUBLIC,), **kwargs):
    return services.post_create(
        author=user("ann"), type="status", detail={"text": text}, circles=list(circles), **kwargs
    )


def test_a_repost_reaches_each_follower_once_and_shows_as_the_original(model, people):
    post = ann_posts()
    state = reposts.repost_create(post_id=post.id, user=user("rex"))
    assert state.changed and state.reposts == 1
    reposts.repost_create(post_id=post.id, user=user("ray"))
    assert reposts.repost_create(post_id=post.id, user=user("rex")).changed is False
    assert Post.objects.get(id=post.id).reposts_count == 2
    rex = PostRepost.objects.get(post=post.id, by="rex")
    assert rex.delivery.state == "done"
    # fay sees it once, as rex's repost; gus follows ann too and sees it once;
    # hal follows both reposters and sees it once, at the newest repost.
    assert shown("fay") == [(post.id, "rex")]
    assert [p for p, _ in shown("gus")] == [post.id]
    assert shown("hal") == [(post.id, "ray")]
    assert wall("rex") == [(post.id, "rex")]
    assert wall("rex", "fay") == [(post.id, "rex")]
    if get_store().stores_entries:
        for reader in ("fay", "gus", "hal", "rex"):
            assert repost_entries(reader, rex.id) == 1, reader
        assert repost_entries("rex", rex.id, "wall") == 1
        assert repost_entries("ann", rex.id) == 0  # ann does not follow rex
    # Delivering again, even from the middle, never duplicates an entry.
    PostRepost.objects(post=post.id, by="rex").update_one(set__delivery__state="delivering")
    fanout.deliver_repost(post.id, "rex")
    fanout.deliver_repost(post.id, "rex")
    if get_store().stores_entries:
        assert everywhere(rex.id) == 5  # rex's wall and news, fay, gus, hal
    assert shown("fay") == [(post.id, "rex")]


def test_the_page_marks_the_repost(model, people, login):
    post = ann_posts("marked")
    reposts.repost_create(post_id=post.id, user=user("rex"))
    for client, url in ((login(user("fay")), "/feed/"), (login(user("fay")), "/u/rex/")):
        html = client.get(url).content.decode()
        assert html.count(f'id="post-{post.id}"') == 1, url
        assert 'data-reposted-by="rex"' in html, url
        assert re.search(r"Reposted by\s*<a[^>]*>@rex</a>", html), url
    # ann's own wall lists her post, not rex's repost of it.
    html = login(user("fay")).get("/u/ann/").content.decode()
    assert f'id="post-{post.id}"' in html and "data-reposted-by" not in html


def test_undo_takes_it_out_everywhere(model, people):
    post = ann_posts()
    reposts.repost_create(post_id=post.id, user=user("rex"))
    rex_id = PostRepost.objects.get(post=post.id, by="rex").id
    state = reposts.repost_delete(post_id=post.id, user=user("rex"))
    assert state.changed and not state.reposted and state.reposts == 0
    assert reposts.repost_delete(post_id=post.id, user=user("rex")).changed is False
    assert shown("fay") == [] and wall("rex") == []
    assert [p for p, _ in shown("gus")] == [post.id]  # gus still follows ann
    assert everywhere(rex_id) == 0
    assert Post.objects.get(id=post.id).reposts_count == 0
    # Reposting again is a new repost, delivered again.
    reposts.repost_create(post_id=post.id, user=user("rex"))
    assert shown("fay") == [(post.id, "rex")]


def test_deleting_the_original_removes_every_repost(model, people):
    post = ann_posts()
    for handle in ("rex", "ray"):
        reposts.repost_create(post_id=post.id, user=user(handle))
    ids = [r.id for r in PostRepost.objects(post=post.id)]
    services.post_delete(post_id=post.id, actor=user("ann"))
    for reader in ("fay", "gus", "hal", "rex"):
        assert shown(reader) == [], reader
    assert wall("rex") == [] and wall("ray") == []
    assert PostRepost.objects(post=post.id).count() == 0
    assert sum(everywhere(i) for i in ids) == 0


def test_a_moderator_removal_removes_reposts_and_a_restore_brings_them_back(
    model, people, make_user
):
    mod = make_user("mod", role="moderator")
    post = ann_posts()
    reposts.repost_create(post_id=post.id, user=user("rex"))
    rex_id = PostRepost.objects.get(post=post.id, by="rex").id
    target = resolve_target(f"post:{post.id}")
    moderation.post_remove(moderator=mod, target=target, reason="spam")
    assert shown("fay") == [] and wall("rex", "fay") == []
    assert everywhere(rex_id) == 0
    with pytest.raises(reposts.NoSuchPost):
        reposts.repost_create(post_id=post.id, user=user("ray"))
    moderation.post_restore(moderator=mod, target=target, reason="fine")
    assert shown("fay") == [(post.id, "rex")]


def test_a_reader_who_mutes_or_blocks_the_reposter_no_longer_sees_it(model, people):
    post = ann_posts()
    reposts.repost_create(post_id=post.id, user=user("rex"))
    graph.mute_create(user=user("fay"), handle="rex")
    assert shown("fay") == []
    graph.mute_delete(user=user("fay"), handle="rex")
    assert shown("fay") == [(post.id, "rex")]
    # hal mutes rex, but ray's repost still reaches hal.
    reposts.repost_create(post_id=post.id, user=user("ray"))
    graph.mute_create(user=user("hal"), handle="ray")
    assert shown("hal") == [(post.id, "rex")]
    # gus mutes rex: the post is still in gus's feed as ann's own.
    graph.mute_create(user=user("gus"), handle="rex")
    assert shown("gus") == [(post.id, None)]
    graph.block_create(blocker=user("fay"), blocked="rex")
    assert shown("fay") == []


def test_a_block_undoes_the_reposts_between_the_two(people):
    post = ann_posts()
    reposts.repost_create(post_id=post.id, user=user("rex"))
    rex_post = services.post_create(
        author=user("rex"), type="status", detail={"text": "rex"}, circles=[PUBLIC]
    )
    reposts.repost_create(post_id=rex_post.id, user=user("ann"))
    graph.block_create(blocker=user("ann"), blocked="rex")
    assert PostRepost.objects.count() == 0
    assert shown("fay") == [(rex_post.id, None)]
    assert Post.objects.get(id=post.id).reposts_count == 0


def test_a_reader_who_blocked_the_original_author_does_not_see_the_repost(model, people):
    post = ann_posts()
    graph.block_create(blocker=user("fay"), blocked="ann")
    reposts.repost_create(post_id=post.id, user=user("rex"))
    assert shown("fay") == []


def test_paging_neither_repeats_nor_skips(model, people, settings):
    """hal follows ann, rex and ray. Older pages leave out what a newer page
    showed through a repost, and skip nothing else."""
    settings.FEED_PAGE_SIZE = 3
    graph.follow_create(follower=user("hal"), followee="ann")
    start = now() - timedelta(hours=1)
    posts = [ann_posts(f"p{i}", ts=start + timedelta(minutes=i)).id for i in range(10)]
    reposts.repost_create(post_id=posts[2], user=user("rex"))
    reposts.repost_create(post_id=posts[2], user=user("ray"))
    reposts.repost_create(post_id=posts[5], user=user("rex"))
    expected = [
        (posts[5], "rex"),
        (posts[2], "ray"),
        *[(posts[i], None) for i in (9, 8, 7, 6, 4, 3, 1, 0)],
    ]
    assert shown("hal") == expected


def test_only_public_posts_of_others_can_be_reposted(people, make_user, login):
    graph.circle_create(owner=user("ann"), name="close")
    graph.follow_create(follower=user("ann"), followee="rex", circles=["close"])
    secret = ann_posts("secret", circles=(ALL_CIRCLES,))
    client = login(user("rex"))
    response = client.post(f"/posts/{secret.id}/repost/", {"next": "/feed/"}, follow=True)
    assert "Only public posts can be reposted" in response.content.decode()
    assert PostRepost.objects.count() == 0 and Post.objects.get(id=secret.id).reposts_count == 0
    assert shown("fay") == []
    mine = services.post_create(
        author=user("rex"), type="status", detail={"text": "mine"}, circles=[PUBLIC]
    )
    with pytest.raises(reposts.RepostError, match="your own post"):
        reposts.repost_create(post_id=mine.id, user=user("rex"))
    # The author's block applies.
    public = ann_posts("public")
    graph.block_create(blocker=user("ann"), blocked="fay")
    with pytest.raises(reposts.RepostError, match="can't repost @ann"):
        reposts.repost_create(post_id=public.id, user=user("fay"))
    assert PostRepost.objects.count() == 0


def test_routes_answer_405_to_get_and_404_to_unknown_or_hidden_posts(people, login):
    graph.circle_create(owner=user("ann"), name="close")
    secret = ann_posts("secret", circles=("close",))
    public = ann_posts("public")
    client = login(user("rex"))
    for action in ("repost", "unrepost"):
        assert client.get(f"/posts/{public.id}/{action}/")["Location"] == f"/posts/{public.id}/"
        for bad in ("nope", str(ObjectId()), str(secret.id), "%24ne"):
            assert client.post(f"/posts/{bad}/{action}/").status_code == 404, (action, bad)
    response = client.post(f"/posts/{public.id}/repost/", {"next": "/feed/"})
    assert response.status_code == 302 and response["Location"] == "/feed/"
    assert PostRepost.objects(post=public.id, by="rex").count() == 1
    response = client.post(f"/posts/{public.id}/unrepost/", HTTP_ACCEPT="application/json")
    assert response.json() == {"reposted": False, "reposts": 0}
    services.post_delete(post_id=public.id, actor=user("ann"))
    assert client.post(f"/posts/{public.id}/repost/").status_code == 404


def test_reposts_are_rate_limited(people, login, settings):
    settings.RATELIMIT_REPOST = "2/60"
    post = ann_posts()
    client = login(user("rex"))
    assert client.post(f"/posts/{post.id}/repost/").status_code == 302
    assert client.post(f"/posts/{post.id}/unrepost/").status_code == 302
    response = client.post(f"/posts/{post.id}/repost/")
    assert response.status_code == 429 and "Retry-After" in response
    assert PostRepost.objects.count() == 0


@pytest.mark.parametrize("model_name", ["cache", "month", "size"])
def test_repost_fanout_round_trips_grow_with_batches_not_followers(
    model_name, settings, make_user, round_trips
):
    settings.FEED_MODEL = model_name
    make_user("ann")
    make_user("star")
    bulk_followers("star", 250)
    settings.TASKS = DUMMY
    for n, batch in enumerate((500, 100)):
        settings.FEED_FANOUT_BATCH = batch
        post = ann_posts(f"p{n}")
        reposts.repost_create(post_id=post.id, user=user("star"))
        with round_trips() as c:
            readers = fanout.deliver_repost(post.id, "star")
        assert readers == 251
        # Claim, the original, the wall, two re-checks, done (6); per batch
        # (star joins the first): followers, active readers, the write (3).
        assert c.total == 6 + 3 * math.ceil(250 / batch), c.commands
    assert repost_entries("fan00249", PostRepost.objects.get(post=post.id).id) == 1


@pytest.mark.parametrize("model_name", ["cache", "month", "size"])
def test_a_crashed_repost_delivery_is_swept_up_once(model_name, settings, make_user, monkeypatch):
    settings.FEED_MODEL, settings.FEED_FANOUT_BATCH = model_name, 10
    make_user("ann")
    make_user("star")
    fans = bulk_followers("star", 35)
    post = ann_posts()
    store_class = type(get_store())
    real_deliver = store_class.deliver
    calls = {"n": 0}

    def dying_deliver(self, kind, owners, entry):
        if kind == "news":
            calls["n"] += 1
            if calls["n"] == 2:
                real_deliver(self, kind, owners[: len(owners) // 2], entry)
                raise RuntimeError("worker died")
        return real_deliver(self, kind, owners, entry)

    monkeypatch.setattr(store_class, "deliver", dying_deliver)
    # The worker dies in the second batch; the repost itself stands.
    assert reposts.repost_create(post_id=post.id, user=user("star")).changed
    repost = PostRepost.objects.get(post=post.id, by="star")
    assert repost.delivery.state == "delivering"
    assert 0 < sum(repost_entries(f, repost.id) for f in fans) < len(fans)
    monkeypatch.setattr(store_class, "deliver", real_deliver)
    PostRepost.objects(post=post.id, by="star").update_one(
        set__delivery__started=now() - timedelta(hours=1)
    )
    assert retry.redeliver_pending(older_than_seconds=60) == 1
    assert PostRepost.objects.get(post=post.id, by="star").delivery.state == "done"
    assert {repost_entries(f, repost.id) for f in [*fans, "star"]} == {1}


def test_a_feed_page_with_reposts_costs_no_more_round_trips(settings, people, round_trips):
    """`cache`, linking: the timeline, then one `$in` for the links and the
    reposted originals together, as without reposts."""
    settings.FEED_MODEL, settings.FEED_EMBED, settings.FEED_PAGE_SIZE = "cache", False, 5
    graph.follow_create(follower=user("fay"), followee="ann")
    for i in range(4):
        ann_posts(f"plain {i}")
    fay = user("fay")
    with round_trips() as c:
        selectors.news_page(fay)
    without = c.total
    # fay follows ann and rex: each shared post is in her timeline twice.
    for i in range(4):
        reposts.repost_create(post_id=ann_posts(f"shared {i}").id, user=user("rex"))
    fay = user("fay")
    with round_trips() as c:
        page = selectors.news_page(fay)
    assert [p.get("reposted_by") for p in page.posts] == ["rex"] * 4 + [None]
    assert c.total == without <= 2, c.commands
