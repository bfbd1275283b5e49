"""Discovery and the reader's settings through Mastodon.py
(docs/api.md#tags-and-trends, #search, #filters, #markers, #reports): the
tag page's follow services, the explore page's trends, the `/search/`
selectors, the settings page's keyword filters, read markers and the
report page's service, each in Mastodon's entity shapes."""

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError
from pymongo.errors import DuplicateKeyError

from api.documents import ReadMarker
from api.entities import checks
from api.selectors import markers
from api.services import markers_erase, markers_save
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
    assert [a.acct for a in ann_api.account_search("@bob@testserver")] == ["bob", "bobby"]
    assert ann_api.account_search("bob@elsewhere.example") == []
    assert [a.acct for a in ann_api.account_search("rob", limit=1)] == ["bobby"]
    assert ann_api.account_search("bob", following=True) == []
    ann_api.account_follow("bob")
    assert [a.acct for a in ann_api.account_search("bob", following=True)] == ["bob"]
    assert ann_api.account_search("") == [] and ann_api.search_v2("").statuses == []
    # No token: posts and people still found, public ones only.
    anonymous = ann_api.session.get(f"{BASE}/api/v2/search?q=bread&type=statuses").json()
    assert [s["id"] for s in anonymous["statuses"]] == [mine.id, second.id, first.id]
    assert "favourited" not in anonymous["statuses"][0]


def test_filters_v2_are_our_keyword_filters(ann, ann_api, bob):
    made = ann_api.create_filter_v2(
        "Spoilers",
        ["home", "public"],
        "hide",
        expires_in=3600,
        keywords_attributes=[{"keyword": "spoilers", "whole_word": True}],
    )
    assert made.title == "spoilers" and made.filter_action == "hide"
    assert sorted(made.context) == ["account", "home", "public"]
    assert [(k.id, k.keyword, k.whole_word) for k in made.keywords] == [
        (made.id, "spoilers", True)
    ]
    stored = User.objects.get(handle="ann").filters
    assert [(f.phrase, f.contexts, f.action) for f in stored] == [
        ("spoilers", ["home", "public"], "hide")
    ]
    assert stored[0].expires is not None
    listed = raw(ann_api, "GET", "/api/v2/filters").json()
    assert [checks.problems(f, checks.FILTER) for f in listed] == [[]]
    assert checks.problems(listed[0]["keywords"][0], checks.FILTER_KEYWORD) == []
    assert ann_api.filter_v2(made.id).id == made.id
    assert [k.keyword for k in ann_api.filter_keywords_v2(made.id)] == ["spoilers"]
    v1 = raw(ann_api, "GET", "/api/v1/filters").json()
    assert [checks.problems(f, checks.FILTER_V1) for f in v1] == [[]] and v1[0]["irreversible"]
    # The filter applies when read, as on the pages: bob's post is hidden.
    bob_api = logged_in(login_client(bob))
    bob_api.status_post("No spoilers please")
    assert ann_api.search_v2("please", result_type="statuses").statuses == []
    # Update: context, action, the keyword itself (by the filter's id), expiry cleared.
    changed = ann_api.update_filter_v2(
        made.id,
        context=["thread"],
        filter_action="warn",
        keywords_attributes=[{"id": made.id, "keyword": "leaks", "whole_word": True}],
    )
    assert (changed.title, changed.context, changed.filter_action) == ("leaks", ["thread"], "warn")
    answer = raw(ann_api, "PUT", f"/api/v2/filters/{made.id}", data={"expires_in": ""})
    assert answer.status_code == 200 and answer.json()["expires_at"] is None
    keyword = raw(
        ann_api, "PUT", f"/api/v2/filters/keywords/{made.id}", data={"keyword": "plot twists"}
    )
    assert keyword.json() == {"id": made.id, "keyword": "plot twists", "whole_word": True}
    assert raw(ann_api, "GET", f"/api/v2/filters/{made.id}/statuses").json() == []
    # What our filters cannot hold: 422 with a reason, nothing stored.
    refused = [
        ("POST", "/api/v2/filters", {"title": "x", "context[]": ["home"]}),
        (
            "POST",
            "/api/v2/filters",
            {
                "title": "cats",
                "context[]": ["home"],
                "keywords_attributes[][keyword]": ["cats", "dogs"],
            },
        ),
        (
            "POST",
            "/api/v2/filters",
            {"title": "Pets", "context[]": ["home"], "keywords_attributes[0][keyword]": "cats"},
        ),
        (
            "POST",
            "/api/v2/filters",
            {
                "context[]": ["home"],
                "keywords_attributes[0][keyword]": "cats",
                "keywords_attributes[0][whole_word]": "false",
            },
        ),
        (
            "POST",
            "/api/v2/filters",
            {
                "context[]": ["home"],
                "filter_action": "blur",
                "keywords_attributes[0][keyword]": "a",
            },
        ),
        (
            "POST",
            "/api/v2/filters",
            {"context[]": ["nowhere"], "keywords_attributes[0][keyword]": "cats"},
        ),
        ("POST", "/api/v2/filters", {"keywords_attributes[0][keyword]": "cats"}),
        ("POST", f"/api/v2/filters/{made.id}/keywords", {"keyword": "more"}),
        ("DELETE", f"/api/v2/filters/keywords/{made.id}", {}),
        (
            "PUT",
            f"/api/v2/filters/{made.id}",
            {"title": "x", "keywords_attributes[0][keyword]": "y"},
        ),
    ]
    for method, path, data in refused:
        answer = raw(ann_api, method, path, data=data)
        assert answer.status_code == 422, (method, path, data, answer.text)
        assert set(answer.json()) == {"error"}
    with pytest.raises(MastodonAPIError):
        ann_api.add_filter_keyword_v2(made.id, "again", whole_word=True)
    with pytest.raises(MastodonAPIError):
        ann_api.delete_filter_keyword_v2(made.id)
    assert len(User.objects.get(handle="ann").filters) == 1
    # A JSON body, as Mastodon.py sends it, and a repeat refused by the service.
    answer = raw(
        ann_api,
        "POST",
        "/api/v2/filters",
        json={
            "title": "Plot twists",
            "context": ["thread"],
            "keywords_attributes": [{"keyword": "plot twists"}],
        },
    )
    assert answer.status_code == 422 and "already" in answer.json()["error"]
    # Another's filter is not found; delete.
    bob_filter = bob_api.create_filter_v2(
        "ads", ["home"], "warn", keywords_attributes=[{"keyword": "ads", "whole_word": True}]
    )
    for method in ("GET", "PUT", "DELETE"):
        assert raw(ann_api, method, f"/api/v2/filters/{bob_filter.id}").status_code == 404
    ann_api.delete_filter_v2(made.id)
    assert ann_api.filters_v2() == [] and User.objects.get(handle="ann").filters == []
    with pytest.raises(MastodonNotFoundError):
        ann_api.filter_v2(made.id)


def test_markers_are_kept_per_person_and_timeline(ann_api, bob):
    assert ann_api.markers_get(["home", "notifications"]) == {}
    saved = ann_api.markers_set(["home", "notifications"], ["65f0a1b2c3d4e5f601234567", "n1"])
    assert saved.home.last_read_id == "65f0a1b2c3d4e5f601234567" and saved.home.version == 1
    again = ann_api.markers_set("home", "65f0a1b2c3d4e5f601234568")
    assert again.home.version == 2 and "notifications" not in again
    kept = raw(ann_api, "GET", "/api/v1/markers?timeline[]=home&timeline[]=notifications").json()
    assert {name: checks.problems(m, checks.MARKER) for name, m in kept.items()} == {
        "home": [],
        "notifications": [],
    }
    assert kept["home"]["last_read_id"] == "65f0a1b2c3d4e5f601234568"
    assert kept["notifications"]["version"] == 1
    assert raw(ann_api, "GET", "/api/v1/markers").json() == {}
    bob_api = logged_in(login_client(bob))
    assert bob_api.markers_get(["home"]) == {}
    for data in ({}, {"home[last_read_id]": "x" * 200}, {"home[last_read_id][$ne]": "1"}):
        answer = raw(ann_api, "POST", "/api/v1/markers", data=data)
        assert answer.status_code == 422 and "error" in answer.json()


def test_racing_first_markers_both_land(make_user, monkeypatch):
    """Two first saves at once: the other's insert lands between our
    upsert's match and its insert, which then fails with E11000 (as on a
    real MongoDB), and is retried once as an update
    (docs/performance.md: real MongoDB semantics)."""
    make_user("racer")
    real = ReadMarker._get_collection()
    raced = []

    class Racing:
        def find_one_and_update(self, *args, **kwargs):
            if not raced:
                raced.append(True)
                real.insert_one({"_id": "racer", "home": {"last_read_id": "theirs", "version": 1}})
                raise DuplicateKeyError("E11000 duplicate key error")
            return real.find_one_and_update(*args, **kwargs)

    monkeypatch.setattr(ReadMarker, "_get_collection", classmethod(lambda cls: Racing()))
    saved = markers_save(handle="racer", last_read={"home": "ours"})
    assert raced == [True]
    assert saved["home"]["last_read_id"] == "ours" and saved["home"]["version"] == 2
    monkeypatch.undo()
    assert markers("racer")["home"]["version"] == 2
    assert markers_erase("racer", 10) == 1 and markers("racer") == {}


def test_reports_go_to_the_moderators_queue(ann_api, bob, make_user):
    bob_api = logged_in(login_client(bob))
    post = bob_api.status_post("Buy cheap stuff")
    filed = ann_api.report("bob", status_ids=[post.id], comment="spam links", category="spam")
    answer_shape = raw(
        ann_api,
        "POST",
        "/api/v1/reports",
        data={"account_id": "bob", "comment": "rude", "category": "violation"},
    ).json()
    assert checks.problems(answer_shape, checks.REPORT) == []
    assert answer_shape["category"] == "violation" and answer_shape["status_ids"] is None
    assert filed.category == "spam" and filed.status_ids == [post.id]
    assert filed.target_account.acct == "bob" and filed.forwarded is False
    kept = {(r.target_type, r.target_id, r.reason, r.note) for r in Report.objects(reporter="ann")}
    assert kept == {("post", post.id, "spam", "spam links"), ("user", "bob", "harassment", "rude")}
    refused = [
        {"account_id": "ann"},
        {"account_id": "bob", "category": "nonsense"},
        {"account_id": "bob", "rule_ids[]": "1"},
        {"account_id": "bob", "comment": "x" * 501},
        {"account_id": "carol", "status_ids[]": post.id},
    ]
    make_user("carol")
    for data in refused:
        answer = raw(ann_api, "POST", "/api/v1/reports", data=data)
        assert answer.status_code == 422, (data, answer.text)
    for data in (
        {"account_id": "nobody"},
        {"account_id[$ne]": "x"},
        {"account_id": "bob", "status_ids[]": "0" * 24},
        {"account_id": "bob", "status_ids[]": "junk"},
    ):
        answer = raw(ann_api, "POST", "/api/v1/reports", data=data)
        assert answer.status_code == 404 and answer.json() == {"error": "Record not found"}


PERSON_ROUTES = [
    # (method, path, a scope that does not cover it)
    ("POST", "/api/v1/tags/coffee/follow", "read"),
    ("POST", "/api/v1/tags/coffee/unfollow", "read"),
    ("GET", "/api/v1/followed_tags", "write"),
    ("GET", "/api/v1/accounts/search?q=bob", "write"),
    ("GET", "/api/v2/filters", "write"),
    ("POST", "/api/v2/filters", "read"),
    ("GET", f"/api/v2/filters/{'a' * 24}", "write"),
    ("PUT", f"/api/v2/filters/{'a' * 24}", "read"),
    ("DELETE", f"/api/v2/filters/{'a' * 24}", "read"),
    ("GET", f"/api/v2/filters/{'a' * 24}/keywords", "write"),
    ("POST", f"/api/v2/filters/{'a' * 24}/keywords", "read"),
    ("GET", f"/api/v2/filters/keywords/{'a' * 24}", "write"),
    ("PUT", f"/api/v2/filters/keywords/{'a' * 24}", "read"),
    ("GET", "/api/v1/filters", "write"),
    ("GET", "/api/v1/markers?timeline[]=home", "write"),
    ("POST", "/api/v1/markers", "read"),
    ("POST", "/api/v1/reports", "read"),
]


def test_tokens_scopes_and_app_tokens(ann_web, ann_api, app_api):
    scoped = {scope: logged_in(ann_web, scopes=[scope]) for scope in ("read", "write")}
    for method, path, other in PERSON_ROUTES:
        nobody = ann_api.session.request(method, BASE + path)
        assert nobody.status_code == 401 and nobody.json() == {
            "error": "The access token is invalid"
        }, (method, path)
        answer = raw(scoped[other], method, path)
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json() == {"error": "This action is outside the authorized scopes"}
        answer = raw(app_api, method, path)
        assert answer.status_code == 422, (method, path, answer.text)
        assert answer.json() == {"error": "This method requires an authenticated user"}
    # Public reads: no token, or an app's, will do; a search or tag needs `read`.
    for path in ("/api/v1/tags/coffee", "/api/v2/search?q=x", "/api/v1/trends/tags"):
        assert ann_api.session.get(BASE + path).status_code == 200, path
        assert raw(app_api, "GET", path).status_code == 200, path
    assert raw(scoped["write"], "GET", "/api/v2/search?q=x").status_code == 403


def test_hostile_parameters_answer_json(ann_api):
    for path, status in (
        ("/api/v2/search?q[$ne]=1", 200),
        ("/api/v2/search?q=a&limit=99999999999&type=accounts", 200),
        ("/api/v2/search?q=a&offset=99999999999", 400),
        ("/api/v2/search?q=a&offset=-1", 400),
        ("/api/v2/search?q=a&type[$ne]=x", 200),
        ("/api/v2/search?q=a&type=everything", 400),
        ("/api/v2/search?q=a&account_id[$ne]=x&type=statuses", 200),
        ("/api/v2/search?q=a&account_id=%00&type=statuses", 400),
        ("/api/v2/search?q=a&max_id=junk&type=statuses", 400),
        ("/api/v2/search?q=a&min_id=65f0a1b2c3d4e5f601234567&type=statuses", 422),
        ("/api/v1/accounts/search?q=%7B%22$gt%22:%22%22%7D&limit=-3", 200),
        ("/api/v1/followed_tags?max_id=%24ne&limit=99999", 400),
        ("/api/v1/followed_tags?limit=99999", 200),
        ("/api/v1/trends/tags?limit=99999&offset=999999999", 400),
        ("/api/v2/filters/%7B%24ne%7D", 404),
        ("/api/v2/filters/keywords/zz", 404),
        ("/api/v1/markers?timeline[][$ne]=home", 200),
    ):
        answer = raw(ann_api, "GET", path)
        assert answer.status_code == status, (path, answer.text)
        body = answer.json()
        if status >= 400:
            assert set(body) == {"error"}, path
    operator = raw(ann_api, "GET", "/api/v2/search?q[$ne]=1").json()
    assert operator == {"accounts": [], "statuses": [], "hashtags": []}
    answer = raw(
        ann_api, "POST", "/api/v2/filters", data=b"{", headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400 and "error" in answer.json()
    answer = raw(ann_api, "POST", "/api/v2/filters", json={"keywords_attributes": [1, 2]})
    assert answer.status_code == 422 and "error" in answer.json()


def test_round_trips_stay_bounded(ann_api, bob, make_user, round_trips, settings):
    """Each read is the token and a few indexed reads, whatever the lists
    hold; a write adds its own update (docs/performance.md)."""
    settings.TRENDS_CACHE_SECONDS = 0
    bob_api = logged_in(login_client(bob))
    for n in range(5):
        bob_api.status_post(f"Bread {n} #baking #bread{n}")
        make_user(f"bobby{n}")
    for name in ("baking", "bread1", "bread2"):
        ann_api.tag_follow(name)
    made = ann_api.create_filter_v2(
        "ads", ["home"], "warn", keywords_attributes=[{"keyword": "ads", "whole_word": True}]
    )
    budgets = [
        ("GET", "/api/v1/tags/baking", {}, 2),
        ("GET", "/api/v1/followed_tags", {}, 2),
        ("GET", "/api/v1/trends/tags", {}, 4),
        # The token; the page's one aggregate; who of its authors blocked
        # the reader; their accounts.
        ("GET", "/api/v2/search?q=bread&type=statuses", {}, 4),
        ("GET", "/api/v2/search?q=bob&type=accounts", {}, 4),
        ("GET", "/api/v1/accounts/search?q=bob&following=true", {}, 4),
        ("GET", "/api/v2/filters", {}, 1),
        # A filter change is announced as on the settings page (the unread
        # notifications it hides are counted again): three more.
        ("PUT", f"/api/v2/filters/{made.id}", {"filter_action": "hide"}, 6),
        ("POST", "/api/v1/markers", {"home[last_read_id]": made.id}, 2),
        ("GET", "/api/v1/markers?timeline[]=home", {}, 2),
    ]
    for method, path, data, budget in budgets:
        with round_trips() as trips:
            answer = raw(ann_api, method, path, data=data)
        assert answer.status_code == 200, (path, answer.text)
        assert trips.total <= budget, (path, [(t.name, t.collection) for t in trips.trips])
