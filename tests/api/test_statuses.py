"""Statuses through Mastodon.py (docs/api.md#statuses): posting, replies,
edits, deletes and the marks, by the same services and selectors as the
post page, answered as Mastodon's entities."""

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError

from api.entities import checks
from comments.stores import get_store
from feeds.documents import Bookmark, Post, PostLike, PostRepost
from feeds.services import removals
from profiles.documents import User
from profiles.services import block_create, circle_create, follow_create
from profiles.services.filters import keyword_filter_create
from tests.api.conftest import BASE, logged_in, raw
from tests.conftest import login_client


def _shape(data: dict) -> None:
    assert checks.problems(data, checks.STATUS) == []
    assert checks.problems(data["account"], checks.ACCOUNT) == []


def test_post_read_edit_and_delete(ann_api, bob):
    posted = ann_api.status_post("Hello @bob, tea? #Tea <b>", spoiler_text="drinks")
    raw_status = raw(ann_api, "GET", f"/api/v1/statuses/{posted.id}").json()
    _shape(raw_status)
    assert checks.problems(raw_status, checks.STATUS_VIEWER) == []
    assert raw_status["pinned"] is False  # the reader's own post
    stored = Post.objects.get(id=posted.id)
    assert stored.detail == {"text": "Hello @bob, tea? #Tea <b>", "cw": "drinks"}
    assert stored.circles == ["*public*"] and stored.mentions == ["bob"]
    assert posted.spoiler_text == "drinks" and posted.sensitive is True
    assert posted.visibility == "public" and posted.account.acct == "ann"
    assert f'href="{BASE}/u/bob/" class="mention">@bob</a>' in posted.content
    assert "&lt;b&gt;" in posted.content and "<b>" not in posted.content
    assert [t.name for t in posted.tags] == ["tea"] and posted.mentions[0].acct == "bob"
    assert posted.url == f"{BASE}/posts/{posted.id}/"

    edited = ann_api.status_update(posted.id, "Coffee instead")
    assert "Coffee instead" in edited.content and edited.edited_at is not None
    history = ann_api.status_history(posted.id)
    assert ["Hello" in h.content for h in history] == [True, False]
    assert all(
        checks.problems(raw_h, checks.STATUS_EDIT) == []
        for raw_h in raw(ann_api, "GET", f"/api/v1/statuses/{posted.id}/history").json()
    )
    source = ann_api.status_source(posted.id)
    assert source.text == "Coffee instead" and source.spoiler_text == "drinks"

    gone = ann_api.status_delete(posted.id)
    assert gone.text == "Coffee instead"
    assert not Post.objects(id=posted.id)
    with pytest.raises(MastodonNotFoundError):
        ann_api.status(posted.id)


def test_private_posts_and_direct_and_validation(ann_api):
    private = ann_api.status_post("circles only", visibility="private")
    assert private.visibility == "private"
    assert Post.objects.get(id=private.id).circles == ["*circles*"]
    direct = raw(
        ann_api, "POST", "/api/v1/statuses", data={"status": "hi", "visibility": "direct"}
    )
    assert direct.status_code == 422 and "/api/v1/conversations" in direct.json()["error"]
    for data in (
        {"status": ""},
        {"status": "x" * 2001},
        {"status": "x", "visibility": "everyone"},
        {"status": "x", "spoiler_text": "y" * 101},
        {"status": "q", "poll[options][]": ["only one"], "poll[expires_in]": "3600"},
        {"status": "q", "poll[options][]": ["a", "b"], "poll[expires_in]": "10"},
        {"status": "q", "poll[options][]": ["a", "b"], "poll[multiple]": "true"},
        {"status": "x", "media_ids[]": ["0" * 24]},
    ):
        answer = raw(ann_api, "POST", "/api/v1/statuses", data=data)
        assert answer.status_code == 422, (data, answer.text)
        assert answer.json()["error"].startswith("Validation failed")
    assert Post.objects.count() == 1


def test_idempotency_key_makes_one_post(ann_api):
    first = ann_api.status_post("Once only", idempotency_key="key-12345678")
    again = ann_api.status_post("Once only", idempotency_key="key-12345678")
    assert first.id == again.id and Post.objects.count() == 1
    other = ann_api.status_post("Once only", idempotency_key="key-87654321")
    assert other.id != first.id and Post.objects.count() == 2


def test_replies_are_comments_and_the_context_shows_them(ann_api, bob, make_user):
    bob_api = logged_in(login_client(bob))
    post = ann_api.status_post("A question")
    reply = bob_api.status_reply(post, "An answer @ann")
    _shape(raw(bob_api, "GET", f"/api/v1/statuses/{reply.id}").json())
    assert reply.in_reply_to_id == post.id and reply.in_reply_to_account_id == "ann"
    assert reply.id.startswith(post.id + "-")
    deeper = ann_api.status_reply(reply, "Thanks")
    assert deeper.in_reply_to_id == reply.id
    comments = get_store().page(Post.objects.get(id=post.id).id, order="oldest").comments
    # Mastodon.py names the person replied to first, as Mastodon's apps do.
    assert [c.text for c in comments] == ["@ann An answer @ann", "@bob Thanks"]
    context = ann_api.status_context(post.id)
    assert context.ancestors == [] and [s.id for s in context.descendants] == [reply.id, deeper.id]
    around = ann_api.status_context(deeper.id)
    assert [s.id for s in around.ancestors] == [post.id, reply.id] and around.descendants == []
    assert (
        checks.problems(
            raw(ann_api, "GET", f"/api/v1/statuses/{post.id}/context").json(), checks.CONTEXT
        )
        == []
    )
    assert Post.objects.get(id=post.id).comments_count == 2
    # A reply's text is edited and deleted as the thread's comment is.
    assert "Fixed" in bob_api.status_update(reply.id, "Fixed").content
    assert bob_api.status_delete(reply.id).text == "Fixed"
    assert get_store().get(Post.objects.get(id=post.id).id, reply.id.split("-")[1]).deleted


def test_favourite_reblog_bookmark_pin_and_undo(ann_api, bob, round_trips):
    bob_api = logged_in(login_client(bob))
    post = ann_api.status_post("Mark me")
    assert bob_api.status_favourite(post.id).favourited is True
    assert PostLike.objects(post=post.id, by="bob").count() == 1
    reblogged = bob_api.status_reblog(post.id)
    assert reblogged.reblog.id == post.id and reblogged.reblog.reblogged is True
    assert reblogged.id == str(PostRepost.objects.get(post=post.id).id)
    assert reblogged.account.id == "bob"
    assert bob_api.status_bookmark(post.id).bookmarked is True
    seen = bob_api.status(post.id)
    assert (seen.favourited, seen.reblogged, seen.bookmarked) == (True, True, True)
    assert (seen.favourites_count, seen.reblogs_count) == (1, 1)
    assert "pinned" not in raw(bob_api, "GET", f"/api/v1/statuses/{post.id}").json()
    # Bob's wall shows his repost: its own id, Bob's, the original inside.
    on_wall = bob_api.account_statuses("bob")[0]
    _shape(raw(bob_api, "GET", "/api/v1/accounts/bob/statuses").json()[0])
    assert on_wall.account.id == "bob" and on_wall.reblog.id == post.id
    assert on_wall.id == str(PostRepost.objects.get(post=post.id).id) != post.id
    assert on_wall.reblog.favourited is True and on_wall.reblog.account.id == "ann"
    # A repost's id reads the repost (a client refreshing a timeline's reblog).
    assert bob_api.status(on_wall.id).reblog.id == post.id
    assert (
        raw(ann_api, "PUT", f"/api/v1/statuses/{on_wall.id}", data={"status": "x"}).status_code
        == 404
    )
    assert raw(ann_api, "DELETE", f"/api/v1/statuses/{on_wall.id}").status_code == 404
    assert [a.id for a in ann_api.status_favourited_by(post.id)] == ["bob"]
    assert [a.id for a in ann_api.status_reblogged_by(post.id)] == ["bob"]
    assert ann_api.status_pin(post.id).pinned is True
    assert [s.id for s in ann_api.account_statuses("ann", pinned=True)] == [post.id]
    with pytest.raises(MastodonNotFoundError):  # only one's own
        bob_api.status_pin(post.id)
    assert ann_api.status_unpin(post.id).pinned is False
    assert bob_api.status_unfavourite(post.id).favourited is False
    assert bob_api.status_unreblog(post.id).reblogged is False
    assert bob_api.status_unbookmark(post.id).bookmarked is False
    assert not PostLike.objects and not PostRepost.objects and not Bookmark.objects
    # Deleting one's repost by its id undoes it, as Mastodon's apps do.
    again = bob_api.status_reblog(post.id)
    assert bob_api.status_delete(again.id).reblog.id == post.id
    assert not PostRepost.objects and Post.objects(id=post.id).count() == 1
    with pytest.raises(MastodonAPIError):  # one's own post is not reposted
        ann_api.status_reblog(post.id)


def test_account_statuses_page_with_link_headers(ann_api, bob, round_trips):
    ids = [ann_api.status_post(f"post {n}").id for n in range(7)]
    first = ann_api.account_statuses("ann", limit=3)
    assert [s.id for s in first] == ids[::-1][:3]
    second = ann_api.fetch_next(first)
    assert [s.id for s in second] == ids[::-1][3:6]
    third = ann_api.fetch_next(second)
    assert [s.id for s in third] == ids[:1]
    newer = ann_api.account_statuses("ann", min_id=ids[4])
    assert {str(s.id) for s in newer} == {str(i) for i in ids[5:]}
    assert ann_api.account_statuses("ann", exclude_replies=True, limit=1)[0].id == ids[-1]
    assert ann_api.account_statuses("ann", only_media=True) == []
    with round_trips() as trips:
        page = raw(ann_api, "GET", "/api/v1/accounts/ann/statuses?limit=40")
    assert page.status_code == 200 and len(page.json()) == 7
    small = trips.total
    for n in range(14):
        ann_api.status_post(f"more {n}")
    with round_trips() as trips:
        page = raw(ann_api, "GET", "/api/v1/accounts/ann/statuses?limit=40")
    # Flat in the page's length: the token, the wall's one aggregate (its
    # likes, votes and bookmarks looked up beside it), the accounts.
    assert len(page.json()) == 20 and trips.total == small and trips.total <= 5
    assert 'rel="next"' in page.headers["Link"]


def test_one_status_costs_a_bounded_number_of_round_trips(ann, ann_api, bob, round_trips):
    bob_api = logged_in(login_client(bob))
    ann_api.status_post("Warming up")
    with round_trips() as posting:
        post = ann_api.status_post("Counted")
    web = login_client(ann)
    with round_trips() as on_the_page:
        assert web.post("/posts/", {"text": "Counted too"}).status_code == 302
    # Posting costs what the composer's post costs: the token's read for the
    # session's, the status built from what was written.
    assert posting.total == on_the_page.total
    bob_api.status_favourite(post.id)
    bob_api.status_reblog(post.id)
    bob_api.status_bookmark(post.id)
    with round_trips() as trips:
        answer = raw(bob_api, "GET", f"/api/v1/statuses/{post.id}")
    assert answer.status_code == 200 and answer.json()["favourited"] is True
    # The token; the post; whether its author blocked the reader; the
    # reader's likes, reposts and bookmarks on it; the author's account.
    assert trips.total <= 7, [(t.name, t.collection) for t in trips.trips]


def test_what_the_reader_may_not_see_is_404(ann, ann_api, bob, make_user):
    bob_api = logged_in(login_client(bob))
    circle_create(owner=User.objects.get(handle="ann"), name="close")
    secret = ann_api.status_post("for my circle", visibility="private")
    public = ann_api.status_post("for everyone")
    poll_like = ann_api.status_post("removed soon")
    removals.post_removal_set(post_id=Post.objects.get(id=poll_like.id).id, by="mod", reason="x")
    for status_id in (secret.id, poll_like.id, "0" * 24, "nothex", "%7B%22$ne%22:1%7D"):
        for method, path in (
            ("GET", ""),
            ("GET", "/context"),
            ("POST", "/favourite"),
            ("POST", "/reblog"),
            ("POST", "/bookmark"),
            ("GET", "/favourited_by"),
            ("DELETE", ""),
        ):
            answer = raw(bob_api, method, f"/api/v1/statuses/{status_id}{path}")
            assert answer.status_code == 404, (status_id, path, answer.text)
            assert answer.json() == {"error": "Record not found"}
        reply = raw(
            bob_api, "POST", "/api/v1/statuses", data={"status": "hi", "in_reply_to_id": status_id}
        )
        assert reply.status_code == 404
    assert bob_api.status(public.id).id == public.id
    # Blocked either way: gone.
    block_create(blocker=User.objects.get(handle="ann"), blocked="bob")
    assert raw(bob_api, "GET", f"/api/v1/statuses/{public.id}").status_code == 404
    assert bob_api.account_statuses("ann") == []
    # Someone else's post cannot be edited or deleted by them.
    carol = make_user("carol")
    carol_api = logged_in(login_client(carol))
    assert (
        raw(carol_api, "PUT", f"/api/v1/statuses/{public.id}", data={"status": "x"}).status_code
        == 404
    )
    assert raw(carol_api, "DELETE", f"/api/v1/statuses/{public.id}").status_code == 404
    follow_create(
        follower=User.objects.get(handle="carol"),
        followee="ann",
        circles=[],
        target=User.objects.get(handle="ann"),
    )
    assert raw(carol_api, "GET", f"/api/v1/statuses/{secret.id}").status_code == 404


def test_keyword_filters_and_mutes_as_on_the_pages(ann_api, bob):
    """A "thread" filter marks the status (`filtered`, a client folds or
    hides it, as the post page does); a "public" hide filter takes it off
    the wall's statuses; a mute hides in the news feed only, so the muted
    person's statuses stay readable (docs/privacy.md)."""
    bob_api = logged_in(login_client(bob))
    post = ann_api.status_post("All about durian fruit")
    other = ann_api.status_post("Nothing to see")
    bob_doc = User.objects.get(handle="bob")
    keyword_filter_create(
        user=bob_doc, phrase="durian", contexts=["thread"], action="warn", expires_in=None
    )
    seen = raw(bob_api, "GET", f"/api/v1/statuses/{post.id}").json()
    assert seen["filtered"][0]["keyword_matches"] == ["durian"]
    assert seen["filtered"][0]["filter"]["filter_action"] == "warn"
    assert raw(bob_api, "GET", f"/api/v1/statuses/{other.id}").json()["filtered"] == []
    keyword_filter_create(
        user=User.objects.get(handle="bob"),
        phrase="durian",
        contexts=["public"],
        action="hide",
        expires_in=None,
    )
    assert [s.id for s in bob_api.account_statuses("ann")] == [other.id]
    bob_api.account_mute("ann")
    assert bob_api.status(post.id).id == post.id


def test_tokens_and_scopes(ann_web, ann_api, app_api, bob):
    post = ann_api.status_post("Scoped")
    reader = logged_in(ann_web, scopes=["read"])
    assert reader.status(post.id).id == post.id
    for method, path in (
        ("POST", "/api/v1/statuses"),
        ("POST", f"/api/v1/statuses/{post.id}/favourite"),
        ("PUT", f"/api/v1/statuses/{post.id}"),
        ("DELETE", f"/api/v1/statuses/{post.id}"),
        ("POST", "/api/v2/media"),
    ):
        answer = raw(reader, method, path, data={"status": "x"})
        assert answer.status_code == 403, (method, path)
        assert raw(app_api, method, path, data={"status": "x"}).status_code in (403, 422)
        nobody = ann_api.session.request(method, BASE + path, data={"status": "x"})
        assert nobody.status_code == 401 and "error" in nobody.json()
    # Public reads need no person: a public status and its context.
    assert raw(app_api, "GET", f"/api/v1/statuses/{post.id}").status_code == 200
    anonymous = ann_api.session.get(f"{BASE}/api/v1/statuses/{post.id}")
    assert anonymous.status_code == 200 and "favourited" not in anonymous.json()


def test_hostile_parameters(ann_api, bob):
    post = ann_api.status_post("Hostile")
    for path in (
        f"/api/v1/statuses/{post.id}/favourited_by?limit=99999999999",
        f"/api/v1/statuses/{post.id}/favourited_by?max_id[$ne]=1",
        "/api/v1/accounts/ann/statuses?limit=-5&only_media[$ne]=1",
    ):
        answer = raw(ann_api, "GET", path)
        assert answer.status_code == 200, path
    for path in (
        "/api/v1/accounts/ann/statuses?max_id=junk",
        f"/api/v1/statuses/{post.id}/favourited_by?max_id=%00",
    ):
        answer = raw(ann_api, "GET", path)
        assert answer.status_code == 400 and "error" in answer.json(), path
    answer = raw(ann_api, "POST", "/api/v1/statuses", json={"status": {"$ne": 1}})
    assert answer.status_code == 422
