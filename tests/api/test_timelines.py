"""Timelines, bookmarks and favourites through Mastodon.py
(docs/api.md#timelines): the pages' selectors, walked with fetch_next and
fetch_previous while new statuses arrive, none lost and none repeated."""

import pytest
from bson import ObjectId
from mastodon import MastodonNotFoundError

from api.entities import checks
from feeds.documents import PUBLIC
from feeds.services import bookmarks, likes
from feeds.services import posts as post_services
from profiles.documents import User
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client
from timelines.selectors.pages import news_page


def _post(author: str, text: str, **kwargs) -> str:
    post = post_services.post_create(
        author=User.objects.get(handle=author),
        type="status",
        detail={"text": text},
        circles=kwargs.pop("circles", [PUBLIC]),
        **kwargs,
    )
    return str(post.id)


def _texts(statuses) -> list[str]:
    return [s.content for s in statuses]


def _walk_down(api, first) -> list:
    seen, page = list(first), first
    while (page := api.fetch_next(page)) is not None and len(page):
        seen += page
    return seen


def test_home_walked_both_ways_while_new_statuses_arrive(ann_api, ann, bob):
    ann_api.account_follow("bob")
    ids = [_post("bob", f"old {n}") for n in range(7)]
    first = ann_api.timeline_home(limit=3)
    assert [s.id for s in first] == ids[::-1][:3]
    raw_page = raw(ann_api, "GET", "/api/v1/timelines/home?limit=3")
    assert all(checks.problems(s, checks.STATUS) == [] for s in raw_page.json())
    link = raw_page.headers["Link"]
    assert f'max_id={ids[4]}>; rel="next"' in link and f'min_id={ids[6]}>; rel="prev"' in link
    assert "limit=3" in link

    # New statuses arrive between pages: walking down neither skips nor repeats.
    newer = [_post("bob", "new 0")]
    second = ann_api.fetch_next(first)
    newer.append(_post("bob", "new 1"))
    rest = _walk_down(ann_api, second)
    walked = [s.id for s in first] + [s.id for s in rest]
    assert walked == ids[::-1]

    # Walking up from the first page: the page just above it, oldest-adjacent
    # first (min_id), newest first within the page, and then nothing more.
    newer += [_post("bob", f"new {n}") for n in range(2, 6)]
    above = ann_api.fetch_previous(first)
    assert [s.id for s in above] == newer[:3][::-1]
    above_that = ann_api.fetch_previous(above)
    assert [s.id for s in above_that] == newer[3:6][::-1]
    assert len(ann_api.fetch_previous(above_that) or []) == 0

    # since_id: the newest above the id (a gap may remain, as in Mastodon).
    since = ann_api.timeline_home(since_id=ids[-1], limit=2)
    assert [s.id for s in since] == newer[::-1][:2]
    # min_id with max_id: the page between them, adjacent to min_id.
    between = ann_api.timeline_home(min_id=ids[2], max_id=ids[6], limit=2)
    assert [s.id for s in between] == [ids[4], ids[3]]

    # Limits: 20 by default, at most 40, junk is the default, negative is clamped.
    more = [_post("bob", f"bulk {n}") for n in range(30)]
    assert len(ann_api.timeline_home()) == 20
    assert len(ann_api.timeline_home(limit=1000)) == 40
    for junk, expected in (("abc", 20), ("-1", 1), ("0", 1), ("1e9", 20)):
        answer = raw(ann_api, "GET", f"/api/v1/timelines/home?limit={junk}")
        assert answer.status_code == 200 and len(answer.json()) == expected, junk
    assert more


def test_home_costs_the_page_plus_the_token(ann_web, ann_api, ann, bob, round_trips):
    ann_api.account_follow("bob")
    for n in range(5):
        _post("bob", f"hello {n}")
    raw(ann_api, "GET", "/api/v1/timelines/home")  # the token's last use written
    ann_web.get("/feed/")  # the page's caches warm, as the API's are
    reader = User.objects.get(handle="ann")
    with round_trips() as selector:
        news_page(reader, None, 20)
    with round_trips() as page:
        assert ann_web.get("/feed/").status_code == 200
    with round_trips() as api:
        answer = raw(ann_api, "GET", "/api/v1/timelines/home")
    assert answer.status_code == 200 and len(answer.json()) == 5
    # The news feed page's budget (its session with the person, and the
    # selector's read) plus one (docs/api.md#timelines): the token comes
    # with its person, as the page's session does, and the Status entity
    # reads the page's accounts once (api/entities/status.py), where the
    # page's cards carry their authors' names.
    assert page.total == selector.total + 1 == 2, page.commands
    assert api.total == page.total + 1 == selector.total + 2, api.commands


def test_public_tag_and_list_timelines(ann_api, ann, bob, make_user, app_api):
    make_user("cat")
    ann_api.account_follow("bob")
    ann_api.account_follow("cat")
    tagged = [_post("bob", f"tea #Tea {n}") for n in range(3)]
    plain = _post("cat", "coffee")
    friends = ann_api.list_create("Tea people")
    ann_api.list_accounts_add(friends.id, ["bob"])

    public = ann_api.timeline_public(limit=3)
    assert [s.id for s in public] == [plain, *tagged[::-1][:2]]
    assert [s.id for s in ann_api.fetch_next(public)] == tagged[:1]
    assert ann_api.timeline_public(remote=True) == []
    assert [s.id for s in ann_api.timeline_public(local=True, limit=1)] == [plain]
    assert ann_api.timeline_public(only_media=True) == []
    # An app's token reads the public timeline, and the tag timeline.
    assert [s.id for s in app_api.timeline_public(limit=1)] == [plain]
    assert [s.id for s in app_api.timeline_hashtag("TEA")] == tagged[::-1]

    by_tag = ann_api.timeline_hashtag("tea", limit=2)
    assert [s.id for s in by_tag] == tagged[::-1][:2]
    assert [s.id for s in ann_api.fetch_next(by_tag)] == tagged[:1]
    assert [s.id for s in ann_api.fetch_previous(ann_api.fetch_next(by_tag))] == tagged[1:][::-1]
    assert raw(ann_api, "GET", "/api/v1/timelines/tag/no%20tag").status_code == 404

    listed = ann_api.timeline_list(friends.id, limit=2)
    assert [s.id for s in listed] == tagged[::-1][:2]
    assert [s.id for s in ann_api.fetch_next(listed)] == tagged[:1]
    newest = _post("bob", "fresh")
    assert [s.id for s in ann_api.fetch_previous(listed)] == [newest]
    with pytest.raises(MastodonNotFoundError):
        ann_api.timeline_list("0" * 24)
    bob_api = logged_in(login_client(User.objects.get(handle="bob")))
    with pytest.raises(MastodonNotFoundError):
        bob_api.timeline_list(friends.id)


def test_bookmarks_and_favourites_page_with_opaque_ids(ann_api, ann, bob):
    ids = [_post("bob", f"keep {n}") for n in range(5)]
    reader = User.objects.get(handle="ann")

    def bookmark(post_id: str) -> None:
        bookmarks.bookmark_create(owner="ann", post_id=ObjectId(post_id))

    def like(post_id: str) -> None:
        likes.like_create(post_id=ObjectId(post_id), user=reader)

    for post_id in ids[:3]:
        bookmark(post_id)
        like(post_id)
    for read, mark in ((ann_api.bookmarks, bookmark), (ann_api.favourites, like)):
        first = read(limit=2)
        assert [s.id for s in first] == ids[:3][::-1][:2]
        assert all(s.favourited and s.bookmarked for s in first)
        for post_id in ids[3:]:  # marked while the reader walks
            mark(post_id)
        assert [s.id for s in _walk_down(ann_api, first)] == ids[:3][::-1]
        # Up from the first page: the marks made since, the adjacent page first.
        assert [s.id for s in ann_api.fetch_previous(first)] == ids[3:][::-1]
    answer = raw(ann_api, "GET", "/api/v1/favourites?limit=2")
    link = answer.headers["Link"]
    assert 'rel="next"' in link and 'rel="prev"' in link
    # The ids are the marks' cursors, not status ids (as Mastodon's are the marks' own).
    assert f"max_id={ids[3]}" not in link and "max_id=" in link
    for junk in ("junk", ids[0], "1_" + "f" * 24 + "[$ne]"):
        assert raw(ann_api, "GET", f"/api/v1/bookmarks?max_id={junk}").status_code == 400
    likes.like_delete(post_id=ObjectId(ids[0]), user=reader)
    assert [s.id for s in ann_api.favourites()] == ids[1:][::-1]


def test_timelines_refuse_as_documented(ann_api, ann_web, app_api):
    reader = logged_in(ann_web, scopes=["read:accounts"])
    for path in ("/api/v1/timelines/home", "/api/v1/bookmarks", "/api/v1/favourites"):
        assert raw(ann_api, "GET", path, headers={"Authorization": ""}).status_code == 401
        assert raw(app_api, "GET", path).status_code == 422
        assert raw(reader, "GET", path).status_code == 403
    for path in ("/api/v1/timelines/public", "/api/v1/timelines/tag/tea"):
        assert raw(ann_api, "GET", path, headers={"Authorization": ""}).status_code == 401
        assert raw(reader, "GET", path).status_code == 403
    for query in ("max_id=nope", "since_id[$ne]=x&max_id=1", "min_id=" + "f" * 25):
        answer = raw(ann_api, "GET", f"/api/v1/timelines/home?{query}")
        assert answer.status_code == 400 and answer.json()["error"], query
