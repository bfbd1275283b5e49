"""Search, trends and reports through the client API hold the visibility
rules (docs/privacy.md, the matrix in tests/feeds/test_visibility.py): a
blocked person (either way), a muted author, a circle post seen only by
its circle, a removed post and a filtered word, each checked on
`/api/v2/search`, `/api/v1/accounts/search`, `/api/v1/trends/*` and
`/api/v1/reports`."""

from api.entities.status import parse_status_id
from feeds.documents import Post
from feeds.services import removals
from profiles.documents import User
from profiles.services import block_create, circle_create, follow_create
from tests.api.conftest import logged_in, raw
from tests.conftest import login_client


def _search(api, q, kind="statuses"):
    answer = raw(api, "GET", f"/api/v2/search?q={q}&type={kind}")
    assert answer.status_code == 200, answer.text
    return answer.json()[kind]


def test_search_never_shows_what_the_reader_may_not_see(ann_api, bob, make_user, settings):
    settings.TRENDS_CACHE_SECONDS = 0
    carol, dan = make_user("carol"), make_user("dan")
    bob_api = logged_in(login_client(bob))
    carol_api = logged_in(login_client(carol))
    dan_api = logged_in(login_client(dan))
    ann = User.objects.get(handle="ann")
    # A circle post by ann, whose circle holds bob but not carol.
    circle_create(owner=ann, name="close")
    follow_create(
        follower=ann, followee="bob", circles=["close"], target=User.objects.get(handle="bob")
    )
    secret = ann_api.status_post("walrus circle news", visibility="private")
    public = ann_api.status_post("walrus public news")
    removed = ann_api.status_post("walrus removed news #walrus")
    removals.post_removal_set(post_id=parse_status_id(removed.id)[0], by="mod", reason="x")
    dan_post = dan_api.status_post("walrus by dan #walrus")
    assert [s["id"] for s in _search(ann_api, "walrus")] == [dan_post.id, public.id, secret.id]
    # The circle post: bob (in it) cannot find it by search either, as on
    # the site's search (public posts and one's own); carol neither.
    for api in (bob_api, carol_api):
        assert [s["id"] for s in _search(api, "walrus")] == [dan_post.id, public.id]
    # A block, either way: no account, no posts; reports of them 404.
    block_create(blocker=User.objects.get(handle="carol"), blocked="dan")
    assert [s["id"] for s in _search(carol_api, "walrus")] == [public.id]
    assert [a["id"] for a in _search(carol_api, "dan", "accounts")] == []
    assert [a["id"] for a in _search(dan_api, "carol", "accounts")] == []
    assert raw(carol_api, "GET", "/api/v1/accounts/search?q=dan").json() == []
    assert [s["id"] for s in _search(dan_api, "walrus")] == [dan_post.id, public.id]
    answer = raw(
        dan_api, "POST", "/api/v1/reports", data={"account_id": "ann", "status_ids[]": secret.id}
    )
    assert answer.status_code == 404
    answer = raw(
        dan_api, "POST", "/api/v1/reports", data={"account_id": "ann", "status_ids[]": removed.id}
    )
    assert answer.status_code == 404
    # Trends: the blocked author's tag goes for carol, as on /explore/.
    assert "walrus" in [t["name"] for t in raw(ann_api, "GET", "/api/v1/trends/tags").json()]
    assert "walrus" not in [t["name"] for t in raw(carol_api, "GET", "/api/v1/trends/tags").json()]
    # A mute: the author's posts leave the reader's search.
    ann_api.account_mute("dan")
    assert [s["id"] for s in _search(ann_api, "walrus")] == [public.id, secret.id]
    # A filtered word ("public" context: walls, tags and search).
    bob_api.create_filter_v2(
        "public news",
        ["public"],
        "hide",
        keywords_attributes=[{"keyword": "public news", "whole_word": True}],
    )
    assert [s["id"] for s in _search(bob_api, "walrus")] == [dan_post.id]
    # The author of the removed post still never finds it.
    assert removed.id not in [s["id"] for s in _search(ann_api, "walrus")]
    assert Post.objects.get(id=parse_status_id(removed.id)[0]).removed is not None
    # Popular statuses hold the same rules.
    trending = raw(carol_api, "GET", "/api/v1/trends/statuses").json()
    assert {s["id"] for s in trending} <= {public.id}
