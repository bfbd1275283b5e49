"""Discovery and the reader's settings through Mastodon.py
(docs/api.md#tags-and-trends, #search, #filters, #markers, #reports): the
tag page's follow services, the explore page's trends, the `/search/`
selectors, the settings page's keyword filters, read markers and the
report page's service, each in Mastodon's entity shapes."""

import threading

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError

from api.entities import checks
from api.services import markers_save
from moderation.documents import Report
from profiles.documents import User
from tests.api.conftest import BASE, logged_in, raw
from tests.conftest import login_client


def test_tags_follow_unfollow_and_followed_tags(ann_api, bob):
    bob_api = logged_in(login_client(bob))
    bob_api.status_post("Morning #coffee and #tea")
    shown = ann_api.tag("coffee")
    assert (
        checks.problems(raw(ann_api, "GET", "/api/v1/tags/coffee").json(), checks.TAG_VIEWER) == []
    )
    assert shown.name == "coffee" and shown.following is False
    assert shown.url == f"{BASE}/tags/coffee/"
    today = shown.history[0]
    assert (
        checks.problems(
            raw(ann_api, "GET", "/api/v1/tags/Coffee").json()["history"][0], checks.TAG_HISTORY
        )
        == []
    )
    assert (int(today.uses), int(today.accounts)) == (1, 1) and len(shown.history) == 7
    assert ann_api.tag_follow("Coffee").following is True
    for name in ("tea", "zebra", "art"):
        ann_api.tag_follow(name)
    assert User.objects.get(handle="ann").followed_tags == ["coffee", "tea", "zebra", "art"]
    first = ann_api.followed_tags(limit=2)
    assert [t.name for t in first] == ["art", "coffee"] and all(t.following for t in first)
    second = ann_api.fetch_next(first)
    assert [t.name for t in second] == ["tea", "zebra"]
    assert ann_api.fetch_next(second) is None
    assert [t.name for t in ann_api.fetch_previous(second)] == ["art", "coffee"]
    assert ann_api.tag_unfollow("coffee").following is False
    assert "coffee" not in User.objects.get(handle="ann").followed_tags
    # No token: a tag still reads, without `following`.
    anonymous = ann_api.session.get(f"{BASE}/api/v1/tags/coffee").json()
    assert checks.problems(anonymous, checks.TAG) == [] and "following" not in anonymous
    for path in ("/api/v1/tags/%24ne", "/api/v1/tags/1234", "/api/v1/tags/a%20b"):
        answer = raw(ann_api, "GET", path)
        assert answer.status_code == 404 and answer.json() == {"error": "Record not found"}


def test_trends_are_the_explore_pages(ann_api, bob, make_user, settings):
    settings.TRENDS_CACHE_SECONDS = 0
    bob_api = logged_in(login_client(bob))
    carol_api = logged_in(login_client(make_user("carol")))
    bob_api.status_post("Big news #launch")
    carol_api.status_post("Watching the #launch")
    carol_api.status_post("#knitting again")
    trending = ann_api.trending_tags()
    assert [t.name for t in trending] == ["launch", "knitting"]
    assert checks.problems(raw(ann_api, "GET", "/api/v1/trends/tags").json()[0], checks.TAG) == []
    assert int(trending[0].history[0].accounts) == 2
    assert [t.name for t in ann_api.trending_tags(limit=1, offset=1)] == [
        t.name for t in trending[1:2]
    ]
    assert ann_api.trending_tags(offset=50) == []
    # The reader's blocks and mutes are taken out, as on /explore/.
    ann_api.account_mute("carol")
    after = ann_api.trending_tags()
    assert [t.name for t in after] == ["launch"]
    assert ann_api.trending_links() == []
    assert isinstance(ann_api.trending_statuses(), list)
    assert raw(ann_api, "GET", "/api/v1/trends/tags?offset=junk").status_code == 400
    assert ann_api.session.get(f"{BASE}/api/v1/trends/tags").status_code == 200


def test_search_finds_people_tags_and_posts(ann_api, bob, make_user):
    make_user("bobby", name="Roberta Tables")
    bob_api = logged_in(login_client(bob))
    first = bob_api.status_post("Fresh bread recipe #baking")
    second = bob_api.status_post("Another bread loaf")
    mine = ann_api.status_post("My bread too")
    found = ann_api.search_v2("bob")
    answer = raw(ann_api, "GET", "/api/v2/search?q=bob").json()
    assert checks.problems(answer, checks.SEARCH) == []
    assert [a.acct for a in found.accounts] == ["bob", "bobby"]
    assert [checks.problems(a, checks.ACCOUNT) for a in answer["accounts"]] == [[], []]
    assert [t.name for t in found.hashtags] == ["bob"]
    posts = ann_api.search_v2("bread", result_type="statuses")
    assert [s.id for s in posts.statuses] == [mine.id, second.id, first.id]
    shapes = raw(ann_api, "GET", "/api/v2/search?q=bread&type=statuses").json()["statuses"]
    assert [checks.problems(s, checks.STATUS) for s in shapes] == [[], [], []]
    assert posts.accounts == [] and posts.hashtags == []
    # account_id, limit and offset, max_id.
    only_bob = ann_api.search_v2("bread", result_type="statuses", account_id="bob")
    assert [s.id for s in only_bob.statuses] == [second.id, first.id]
    paged = ann_api.search_v2("bread", result_type="statuses", limit=1, offset=1)
    assert [s.id for s in paged.statuses] == [second.id]
    older = ann_api.search_v2("bread", result_type="statuses", max_id=second.id)
    assert [s.id for s in older.statuses] == [first.id]
    tags = ann_api.search_v2("#baking", result_type="hashtags").hashtags
    assert [(t.name, t.following) for t in tags] == [("baking", False)]
    # Following only, and the accounts search of v1.
    assert [a.acct for a in ann_api.account_search("bob")] == ["bob", "bobby"]
    assert [a.acct for a in ann_api.account_search("rob", limit=1)] == ["bobby"]
    assert ann_api.account_search("bob", following=True) == []
    ann_api.account_follow("bob")
    assert [a.acct for a in ann_api.account_search("bob", following=True)] == ["bob"]
    assert ann_api.account_search("") == [] and ann_api.search_v2("").statuses == []
    # No token: posts and people still found, public ones only.
    anonymous = ann_api.session.get(f"{BASE}/api/v2/search?q=bread&type=statuses").json()
    assert [s["id"] for s in anonymous["statuses"]] == [mine.id, second.id, first.id]
    assert "favourited" not in anonymous["statuses"][0]
