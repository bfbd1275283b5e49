"""Posting, editing, deleting, voting and paging through the test client."""

import io
import re
from datetime import timedelta

import pytest
from django.test import Client
from PIL import Image

from feeds.documents import PUBLIC, Post
from feeds.selectors import polls as poll_reads
from feeds.services import polls
from feeds.services import posts as services
from profiles import services as graph
from profiles.documents import User
from socialsite.clock import now


@pytest.fixture
def ada(make_user):
    return make_user("ada", name="Ada")


@pytest.fixture
def client(ada, login):
    return login(ada)


def only_post() -> Post:
    [post] = Post.objects
    return post


def test_status_post_appears_on_feed_and_wall(client):
    response = client.post("/posts/", {"type": "status", "text": "Hello world", "next": "/feed/"})
    assert response.status_code == 302 and response["Location"] == "/feed/"
    post = only_post()
    assert post.circles == [PUBLIC] and post.delivery.state == "done"
    for page in ("/feed/", "/u/ada/"):
        html = client.get(page).content.decode()
        assert (
            # More data- attributes follow (docs/features.md#interactions: data-likes,
            # data-reposted-by).
            f'<article class="post post--status" id="post-{post.id}" data-post-id="{post.id}" '
            in html
        )
        assert "Hello world" in html
    assert User.objects.get(handle="ada").posts_count == 1


@pytest.mark.parametrize(
    "data, text",
    [
        ({"type": "link", "url": "https://example.org/a", "title": "A page"}, "example.org"),
        (
            {"type": "checkin", "place": "Tate Modern", "lat": "51.5076", "lng": "-0.0994"},
            "51.50760",
        ),
        ({"type": "poll", "text": "Tea?", "options": "Yes\nNo"}, "0 votes"),
    ],
)
def test_each_type_renders(client, data, text):
    assert client.post("/posts/", data).status_code == 302
    post = only_post()
    html = client.get(f"/posts/{post.id}/").content.decode()
    assert f'data-post-id="{post.id}"' in html and text in html


def test_photo_post_through_the_view(client):
    buffer = io.BytesIO()
    Image.new("RGB", (900, 600), (10, 120, 200)).save(buffer, "JPEG")
    buffer.name = "pic.jpg"
    buffer.seek(0)
    assert (
        client.post("/posts/", {"type": "photo", "text": "Sky", "photo": buffer}).status_code
        == 302
    )
    post = only_post()
    html = client.get("/feed/").content.decode()
    assert f'src="/posts/{post.id}/thumb/"' in html
    response = client.get(f"/posts/{post.id}/photo/")
    assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"
    image = Image.open(io.BytesIO(response.content))
    assert image.size == (900, 600) and not image.getexif()


@pytest.mark.parametrize(
    "data, field",
    [
        ({"type": "status", "text": ""}, "text"),
        ({"type": "status", "text": "x" * 2001}, "text"),
        ({"type": "link", "url": "javascript:alert(1)"}, "url"),
        ({"type": "checkin", "place": "Nowhere", "lat": "91", "lng": "0"}, "lat"),
        ({"type": "poll", "text": "Q", "options": "only one"}, "options"),
        ({"type": "status", "text": "hi", "circles": ["nonexistent"]}, "circles"),
        ({"type": "status", "text": "hi", "to": '{"$ne": 1}'}, "to"),
        ({"type": "bogus", "text": "hi"}, "type"),
    ],
)
def test_bad_posts_rerender_the_form_and_change_nothing(client, data, field):
    response = client.post("/posts/", data)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert b"errorlist" in response.content
    assert Post.objects.count() == 0


def test_post_to_unknown_wall_is_a_form_error(client):
    response = client.post("/posts/", {"type": "status", "text": "hi", "to": "nobody"})
    assert response.status_code == 400 and b"There is no @nobody" in response.content
    assert Post.objects.count() == 0


def test_posting_is_rate_limited(client, settings):
    settings.RATELIMIT_POST = "3/300"
    codes = [
        client.post("/posts/", {"type": "status", "text": f"{i}"}).status_code for i in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    assert Post.objects.count() == 3


def test_text_is_escaped_and_linkified(client, make_user):
    make_user("bob")
    client.post(
        "/posts/",
        {
            "type": "status",
            "text": "<script>x()</script> see https://example.org/p?a=1&b=2 @Bob and @nobody",
        },
    )
    html = client.get("/feed/").content.decode()
    assert "<script>x()" not in html and "&lt;script&gt;x()&lt;/script&gt;" in html
    assert '<a href="https://example.org/p?a=1&amp;b=2" rel="nofollow noopener ugc"' in html
    assert '<a href="/u/bob/" class="mention">@bob</a>' in html
    # Nobody has the handle: plain text, not a link to a 404.
    assert " and @nobody" in html and "/u/nobody/" not in html


def test_edit_and_delete_are_for_the_author_only(client, make_user, login):
    client.post("/posts/", {"type": "status", "text": "first"})
    post = only_post()
    other = login(make_user("bob"))
    assert other.get(f"/posts/{post.id}/edit/").status_code == 404
    assert other.post(f"/posts/{post.id}/delete/").status_code == 404
    assert client.post(f"/posts/{post.id}/edit/", {"text": ""}).status_code == 400
    assert client.post(f"/posts/{post.id}/edit/", {"text": "second"}).status_code == 302
    html = client.get(f"/posts/{post.id}/").content.decode()
    assert "second" in html and "edited" in html
    assert client.post(f"/posts/{post.id}/delete/").status_code == 302
    assert Post.objects.count() == 0
    assert client.get(f"/posts/{post.id}/").status_code == 404
    assert User.objects.get(handle="ada").posts_count == 0


def test_poll_vote_changes_results(client, make_user, login, monkeypatch):
    client.post(
        "/posts/", {"type": "poll", "text": "Colour?", "options": "Red\nBlue", "expires_in": "300"}
    )
    post = only_post()
    bob = login(make_user("bob"))
    login(make_user("cyd")).post(f"/posts/{post.id}/vote/", {"option": "0"})
    # Not voted yet, or signed out: the options and the total, no counts anywhere.
    for reader in (bob, Client()):
        html = reader.get(f"/posts/{post.id}/").content.decode()
        assert 'data-total="1"' in html and 'data-results="hidden"' in html
        assert "data-count" not in html and "poll__count" not in html and "<progress" not in html
        assert "Ends <time" in html
    bob.post(f"/posts/{post.id}/vote/", {"option": "1"})
    assert Post.objects.get(id=post.id).detail["votes"] == [1, 1]
    bob.post(f"/posts/{post.id}/vote/", {"option": "0"})
    assert Post.objects.get(id=post.id).detail["votes"] == [2, 0]
    for bad in ["9", "-1", "x", ""]:
        bob.post(f"/posts/{post.id}/vote/", {"option": bad})
    assert Post.objects.get(id=post.id).detail["votes"] == [2, 0]
    html = bob.get(f"/posts/{post.id}/").content.decode()
    assert 'data-option="0" data-count="2"' in html and "100%" in html
    # The clock passes the end (the stored post unchanged, its cached card
    # not reused): results for everyone, the winner marked, no Vote button.
    ends = poll_reads.ends_of(Post.objects.get(id=post.id).detail)
    monkeypatch.setattr(polls, "now", lambda: ends)
    monkeypatch.setattr(poll_reads, "now", lambda: ends)
    for reader in (bob, Client()):
        html = reader.get(f"/posts/{post.id}/").content.decode()
        assert 'poll__option--winner" data-option="0" data-count="2"' in html
        assert "Ended <time" in html and 'name="option"' not in html
    refused = bob.post(f"/posts/{post.id}/vote/", {"option": "1"}, follow=True)
    assert "This poll has ended." in refused.content.decode()
    assert Post.objects.get(id=post.id).detail["votes"] == [2, 0]


@pytest.mark.parametrize(
    "path",
    [
        "/posts/nothex/",
        "/posts/5f0c5e5e5e5e5e5e5e5e5e5e/",
        '/posts/{"$ne": 1}/',
        "/posts/5f0c5e5e5e5e5e5e5e5e5e5e/photo/",
        "/feed/?before=garbage",
        "/feed/?before=1_2",
        "/u/ada/?before=%7B%22%24gt%22%3A1%7D",
        "/incoming/?before=99999999999999999999_5f0c5e5e5e5e5e5e5e5e5e5e",
    ],
)
def test_unknown_ids_and_bad_cursors_are_404(client, path):
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("model", ["cache", "month", "size", "read"])
def test_paging_while_posts_arrive_never_repeats_or_skips(settings, make_user, login, model):
    settings.FEED_MODEL, settings.FEED_PAGE_SIZE, settings.FEED_BUCKET_SIZE = model, 5, 4
    author, reader = make_user("author"), make_user("reader")
    graph.follow_create(follower=reader, followee="author")
    start = now() - timedelta(hours=1)

    def write(i, ts):
        return services.post_create(
            author=author, type="status", detail={"text": f"n{i}"}, circles=[PUBLIC], ts=ts
        ).id

    before = [write(i, start + timedelta(seconds=i)) for i in range(23)]
    client = login(User.objects.get(handle="reader"))
    seen, url, i = [], "/feed/", 100
    while url:
        response = client.get(url)
        page = [p["_id"] for p in response.context["page"].posts]
        seen += page
        # New posts keep arriving between page loads.
        write(i, now())
        i += 1
        cursor = response.context["page"].next_cursor
        url = f"/feed/?before={cursor}" if cursor else None
    assert len(seen) == len(set(seen))
    assert seen == list(reversed(before))
    html = client.get("/feed/").content.decode()
    assert 'rel="next"' in html


def test_a_new_accounts_first_feed_suggests_people_who_post_never_staff(make_user, login):
    from feeds.services import posts as feeds
    from profiles import services as graph

    poster, quiet = make_user("poster", "Pat Poster"), make_user("quiet", "Quiet Q")
    staff = make_user("modo", "Mo", role="moderator")
    shop = make_user("shop", "Shop", role="advertiser")
    friend = make_user("friend", "Fran")
    for author in (poster, staff, shop, friend):
        feeds.post_create(
            author=author, type="status", detail={"text": "hi"}, circles=["*public*"]
        )
    blocker = make_user("blocker", "B")
    feeds.post_create(author=blocker, type="status", detail={"text": "x"}, circles=["*public*"])
    newcomer = make_user("newbie", "New")
    graph.block_create(blocker=blocker, blocked="newbie")
    page = login(newcomer).get("/feed/").content.decode()
    suggested = re.findall(r'<li class="suggestion" data-handle="([^"]+)"', page)
    assert set(suggested) == {"poster", "friend"}  # no staff, no shop, no silent, no blocker
    assert 'href="/explore/"' in page and 'action="/u/poster/follow/"' in page
    # Someone who follows people and has posts in the feed sees none.
    reader = make_user("reader")
    graph.follow_create(follower=reader, followee="poster")
    assert 'class="card suggestions"' not in login(reader).get("/feed/").content.decode()
    assert quiet.posts_count == 0
