"""Whole-page round-trip budgets (docs/performance.md#one-read-for-a-page).

A signed-in feed, wall or incoming page under the `cache` model costs at most
2 round trips in all, whatever its posts: the session with its user (one
aggregate), and one aggregate for the page that looks up the linked posts,
the reader's likes and votes, the circle edges, a wall's guests and a news
page's pulled authors' posts beside the entries; mentions were resolved when
the posts were written. Flat from
5 to 1,000 followings. Counted on the demo database and, with
MONGODB_TEST_URI, on a wire server through the command listener (where a
`find_one` is a `find`)."""

import pytest
from django.test import Client

from feeds.documents import PUBLIC
from feeds.services import likes, posts, reposts
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as accounts
from profiles.documents import FollowerEdge, FollowingEdge, User
from profiles.services import circles, graph
from socialsite import sessions
from socialsite.clock import now
from socialsite.cursors import EPOCH
from socialsite.documents import SessionRecord
from tests.conftest import PASSWORD, sized, user
from timelines.delivery import pulled as pulling
from timelines.selectors import pulled

# Bulk inserts go in slices: the wire server answers one command at a time.
SLICE = 250
AUTHORS_WHO_POST = 4
PULLED = "author0002"  # whose liked post mentioning the reader tops the feed


def _insert(collection, documents: list[dict]) -> None:
    for start in range(0, len(documents), SLICE):
        collection.insert_many(documents[start : start + SLICE], ordered=False)


def _author(handle: str, t) -> dict:
    """A stored user document, as `user_create` writes one (minus the hashing)."""
    return {
        "_id": handle,
        "name": handle.title(),
        "name_terms": [handle],
        "profile": {"bio": "", "location": "", "interests": [], "website": ""},
        "password": "md5$unused$unused",
        "role": "user",
        "circles": [],
        "blocked": [],
        "muted": [],
        "followers_count": 1,
        "following_count": 0,
        "posts_count": 0,
        "notifications_unread": 0,
        "created": t,
        "last_seen": t,
        "status": "active",
    }


@pytest.fixture
def reader_of(settings, make_user):
    """`reader_of(n)`: a reader following n authors, a news feed and a wall
    full of public posts and reposts, and posts on the incoming page."""
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", False
    settings.FEED_PAGE_SIZE = 10
    # No `last_seen` write in the middle of a counted page.
    settings.LAST_SEEN_RESOLUTION = 24 * 3600

    def build(n: int) -> User:
        make_user("reader")
        t = now()
        handles = [f"author{i:04d}" for i in range(n)]
        # Those who post are made as sign-up makes them (their timelines
        # exist); the rest in bulk.
        for handle in handles[:AUTHORS_WHO_POST]:
            make_user(handle)
        # One of them is pulled (docs/performance.md#celebrities-are-pulled): the
        # feed reads their public posts with its entries, in the same aggregate.
        pulling.mark(PULLED, since=EPOCH)
        _insert(User._get_collection(), [_author(h, t) for h in handles[AUTHORS_WHO_POST:]])
        edge = {"_g": [], "state": "active", "since": t, "changed": t}
        _insert(
            FollowingEdge._get_collection(), [{"_f": "reader", "_t": h, **edge} for h in handles]
        )
        _insert(
            FollowerEdge._get_collection(),
            [{"_f": h, "_t": "reader", "since": t} for h in handles],
        )
        User._get_collection().update_one({"_id": "reader"}, {"$set": {"following_count": n}})
        theirs = []
        for round_ in range(3):
            for handle in handles[:AUTHORS_WHO_POST]:
                say = {"type": "status", "circles": [PUBLIC], "author": user(handle)}
                theirs.append(posts.post_create(detail={"text": f"{handle} {round_}"}, **say))
                posts.post_create(detail={"text": f"to you {round_}"}, to="reader", **say)
        # The reader's wall begins with their own posts and reposts: a page
        # of guests' posts also asks whether the owner follows them.
        for round_ in range(6):
            reposts.repost_create(post_id=theirs[round_].id, user=user("reader"))
            posts.post_create(
                author=user("reader"), type="status", detail={"text": "mine"}, circles=[PUBLIC]
            )
        every_kind_of_post(handles[:AUTHORS_WHO_POST], theirs)
        pulled.authors()  # each process reads the list every FEED_PULL_GRACE_SECONDS
        return user("reader")

    return build


def every_kind_of_post(authors: list[str], theirs: list) -> None:
    """On top of every page: a circle post of an author who put the reader in
    a circle, a poll the reader voted on, a mention of the reader and of
    someone else, a post the reader liked, a repost by someone the reader
    follows, a guest's post on the reader's wall, and the same on the
    incoming page."""
    first, second, third, fourth = (user(handle) for handle in authors)
    circles.circle_create(owner=first, name="friends")
    graph.follow_create(follower=user(first.handle), followee="reader", circles=["friends"])
    say = {"type": "status", "circles": [PUBLIC]}
    posts.post_create(
        author=user(first.handle),
        detail={"text": "friends only"},
        type="status",
        circles=["friends"],
    )
    poll = posts.post_create(
        author=second,
        type="poll",
        detail={"question": "tea or @reader?", "options": ["tea", "coffee"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    posts.poll_vote(post_id=poll.id, voter=user("reader"), option=1)
    liked = posts.post_create(author=third, detail={"text": "hi @reader and @author0001"}, **say)
    likes.like_create(post_id=liked.id, user=user("reader"))
    reposts.repost_create(post_id=theirs[0].id, user=fourth)
    graph.follow_create(follower=user("reader"), followee=second.handle)
    wall_poll = posts.post_create(
        author=second,
        to="reader",
        type="poll",
        detail={"question": "on your wall?", "options": ["yes", "no"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    posts.poll_vote(post_id=wall_poll.id, voter=user("reader"), option=0)
    for_you = posts.post_create(author=third, to="reader", detail={"text": "for @reader"}, **say)
    likes.like_create(post_id=for_you.id, user=user("reader"))


def _listing(counter) -> str:
    """The commands of a count, with their collections when the counter knows them."""
    details = getattr(counter, "details", None)
    if details:
        return ", ".join(f"{d.name} {d.collection} {d.shape}" for d in details)
    return ", ".join(counter.commands)


def _page(client, round_trips, path: str):
    with round_trips() as counter:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response, counter


# page: (path, what its first page must show). Each is 2 round trips: the
# session with its user, and one aggregate for the page with everything its
# cards show (feeds/selectors/lookups.py).
SIGNED_IN_PAGES = {
    "feed": (
        "/feed/",
        ["friends only", "tea or", "hi ", 'data-reposted-by="author0003"', 'data-pulled="1"'],
    ),
    "own wall": ("/u/reader/", ["on your wall?", "mine"]),
    "incoming": ("/incoming/", ["on your wall?", "for "]),
}


# 1,000 followings on mongomock; 300 through a driver (past the 200 a branch
# of the read model's `$in` holds, tests/conftest.py `sized`).
MANY = sized(1000, 300)


@pytest.mark.parametrize("followings", [5, MANY])
@pytest.mark.parametrize("page", list(SIGNED_IN_PAGES))
def test_a_signed_in_page_with_every_kind_of_post_is_2_round_trips(
    page, followings, reader_of, login, round_trips
):
    path, shows = SIGNED_IN_PAGES[page]
    client = login(reader_of(followings))
    response, counter = _page(client, round_trips, path)
    html = response.content.decode()
    assert html.count("data-post-id=") == 10, "a full page of posts"
    for text in shows:
        assert text in html, (path, text)
    if page != "own wall":
        assert 'class="mention"' in html  # @reader, linked with no lookup
        assert 'aria-pressed="true"' in html  # a like of the reader's
    assert counter.total <= 2, f"{path} at {followings} followings: {_listing(counter)}"
    # The session and its user come in one aggregate: no session `find`.
    assert counter.commands[0] == "aggregate", _listing(counter)


@pytest.mark.parametrize("followings", [5, MANY])
def test_someone_elses_wall_is_2_round_trips_too(followings, reader_of, login, round_trips):
    """Their document and the follow edges between the two of them (follow
    button, circles) ride with the session's read: `$lookup` by `_id`, and
    by `(_f, _t)` with MongoDB 5.0's localField-plus-pipeline form."""
    client = login(reader_of(followings))
    response, counter = _page(client, round_trips, "/u/author0001/")
    assert response.content.decode().count("data-post-id=") >= 3
    assert counter.total <= 2, _listing(counter)
    assert counter.commands[0] == "aggregate", _listing(counter)


FOLLOWS_YOU = '<span class="badge">Follows you</span>'


def test_the_follow_button_reads_the_edges_that_came_with_the_session(make_user, login):
    """Both directions and the circles, as the separate edge query gave them."""
    from profiles.services import circles, graph

    ann, bob = make_user("ann"), make_user("bob")
    make_user("cyd")
    circles.circle_create(owner=ann, name="Close")
    graph.follow_create(follower=User.objects.get(handle="ann"), followee="bob", circles=["Close"])
    graph.follow_create(follower=bob, followee="ann")
    client = login(User.objects.get(handle="ann"))
    page = client.get("/u/bob/").content.decode()
    assert FOLLOWS_YOU in page and 'value="Close" checked' in page
    page = client.get("/u/cyd/").content.decode()
    assert FOLLOWS_YOU not in page and 'value="Close" checked' not in page


def test_a_page_reads_the_user_as_stored_now_not_as_the_session_saw_it(
    make_user, login, round_trips
):
    """The user document comes with the session's read, fresh on each request:
    a suspension refuses the very next request, in the same one round trip."""
    client = login(make_user("ada"))
    assert client.get("/feed/").status_code == 200
    User._get_collection().update_one({"_id": "ada"}, {"$set": {"status": "suspended"}})
    with round_trips() as counter:
        response = client.get("/feed/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    # The refusal ends the session: the read, then its deletion.
    assert counter.commands[0] == "aggregate", _listing(counter)
    assert SessionRecord.objects(user="ada").count() == 0


def test_a_suspended_wall_owner_is_404_though_read_with_the_session(make_user, login):
    client = login(make_user("ada"))
    make_user("bob")
    assert client.get("/u/bob/").status_code == 200
    User._get_collection().update_one({"_id": "bob"}, {"$set": {"status": "suspended"}})
    assert client.get("/u/bob/").status_code == 404
    assert client.get("/u/nobody/").status_code == 404


def test_a_password_change_logs_out_other_sessions_at_once(make_user, login):
    make_user("ada")
    here, elsewhere = login(user("ada")), login(user("ada"))
    assert elsewhere.get("/feed/").status_code == 200
    response = here.post(
        "/settings/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a brand new secret 2",
            "new_password2": "a brand new secret 2",
        },
    )
    assert response.status_code == 302
    assert here.get("/feed/").status_code == 200
    assert elsewhere.get("/feed/").status_code == 302


def test_a_surviving_session_is_refused_once_the_password_hash_changed(make_user, login):
    """The HASH_KEY check runs on the document read with the session: even a
    session that outlived the deletion (a write in flight) is over."""
    client = login(make_user("ada"))
    assert client.get("/feed/").status_code == 200
    accounts.password_change(user=user("ada"), new_password="another secret 3", keep_session=None)
    SessionRecord._get_collection().delete_many({})
    assert client.get("/feed/").status_code == 302
    client = login(user("ada"), password="another secret 3")
    assert client.get("/feed/").status_code == 200
    User._get_collection().update_one({"_id": "ada"}, {"$set": {"password": "md5$x$y"}})
    assert client.get("/feed/").status_code == 302


def test_an_anonymous_visitor_without_a_cookie_costs_no_session_read(
    make_user, round_trips, monkeypatch
):
    make_user("ada")
    reads = []
    original = sessions._read
    monkeypatch.setattr(sessions, "_read", lambda *a: reads.append(a) or original(*a))
    visitor = Client()
    with round_trips() as counter:
        response = visitor.get("/feed/")
    assert response.status_code == 302
    assert counter.total == 0, _listing(counter)
    assert visitor.get("/u/ada/").status_code == 200
    assert visitor.get("/u/nobody/").status_code == 404
    assert reads == []


def test_an_expired_session_is_ignored(make_user, login):
    client = login(make_user("ada"))
    SessionRecord._get_collection().update_many({}, {"$set": {"expire": now()}})
    assert client.get("/feed/").status_code == 302


# --- a wall full of circle posts the reader may not see


# (model, embed): the driver's pass runs the embedding one (tests/conftest.py).
@pytest.fixture(params=[("cache", False), ("cache", True)], ids=["link", "embed"])
def guarded_wall(request, settings, make_user, login):
    """owl's wall, newest first: 20 posts to owl's circle, then 25 public
    posts (one removed by a moderator), 20 a page. Its readers: pal (in the
    circle), ray (follows owl), former (in the circle when the posts were
    delivered, taken out since), shunned (whom owl blocked), hater (who
    blocked owl) and a visitor who is not signed in. Returns each one's
    client and the posts they may see, newest first."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    settings.FEED_PAGE_SIZE = 20
    settings.LAST_SEEN_RESOLUTION = 24 * 3600  # no `last_seen` write in a counted page
    owl = make_user("owl")
    readers = {h: make_user(h) for h in ("pal", "ray", "former", "shunned", "hater")}
    circles.circle_create(owner=owl, name="close")
    for handle in ("pal", "former"):
        graph.follow_create(follower=user("owl"), followee=handle, circles=["close"])
    for handle in readers:
        graph.follow_create(follower=user(handle), followee="owl")

    def say(text: str, audience: str):
        return posts.post_create(
            author=user("owl"), type="status", detail={"text": text}, circles=[audience]
        ).id

    public = [say(f"public {i}", PUBLIC) for i in range(25)][::-1]
    close = [say(f"close {i}", "close") for i in range(20)][::-1]
    moderator = make_user("mod", role="moderator")
    removed = public[3]
    moderation.post_remove(moderator=moderator, target=Target("post", str(removed)))
    circles.circle_remove_member(owner=user("owl"), name="close", member="former")
    graph.block_create(blocker=user("owl"), blocked="shunned")
    graph.block_create(blocker=user("hater"), blocked="owl")
    shown_public = [p for p in public if p != removed]
    clients = {handle: login(user(handle)) for handle in readers}
    clients["visitor"] = Client()
    sees = {h: shown_public for h in ("ray", "former", "shunned", "visitor")}
    sees |= {"pal": close + shown_public, "hater": []}
    return clients, sees


def test_a_wall_of_circle_posts_the_reader_may_not_see_is_2_round_trips(guarded_wall, round_trips):
    """The page's one aggregate reads twice the entries a page shows: the
    posts the reader may not see are left out of what was read, and only a
    page still short after all of them reads on (timelines/selectors/pages.py).
    Sight is decided as the page is read (docs/privacy.md): the circle posts
    reach pal alone, whatever the timeline holds."""
    clients, sees = guarded_wall
    for reader, client in clients.items():
        shown: list = []
        path = "/u/owl/"
        while path:
            with round_trips() as counter:
                response = client.get(path)
            assert response.status_code == 200, (reader, path)
            page = response.context["page"]
            html = response.content.decode()
            ids = [post["_id"] for post in page.posts]
            assert html.count("data-post-id=") == len(ids), reader
            # The session with the owner, or for the visitor the owner
            # alone, then the page; a wall the reader blocked is not read.
            assert counter.total == (1 if reader == "hater" else 2), (reader, _listing(counter))
            if page.next_cursor:
                assert len(ids) == 20, (reader, len(ids))
                assert f"?before={page.next_cursor}" in html.replace("%3D", "=")
                path = f"/u/owl/?before={page.next_cursor}"
            else:
                assert 'rel="next"' not in html
                path = ""
            shown += ids
        assert shown == sees[reader], reader
