"""The comment thread through Django's test client: posting and replying,
orders, pages, the depth limit and permalinks, errors, visibility, blocks,
rate limits, escaping, edit and delete, the feed cards' last comments, and
the round-trip budget of a thread page (docs/features.md#routes, docs/performance.md)."""

import re
from datetime import timedelta
from html import unescape
from io import StringIO

import pytest
from bson import ObjectId
from django.core.management import call_command

from comments import selectors, services, summaries
from comments.documents import CommentDocument
from comments.stores import cursors, get_store
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from profiles import services as graph
from tests.comments.helpers import BASE, stored_comment
from timelines.documents import CacheTimeline, MonthTimeline, SizeTimeline
from timelines.stores import get_store as get_timelines
from timelines.stores.cache import CacheStore

STORES = ["documents", "embedded", "buckets"]
THREADED_STORES = ["documents", "embedded"]
COMMENT_RE = re.compile(
    r'<article class="comment" data-slug="(?P<slug>[a-z0-9/]+)" data-depth="(?P<depth>\d+)"'
)
TIMELINES = {"cache": CacheTimeline, "month": MonthTimeline, "size": SizeTimeline}
ALICE = {"id": "ada", "name": "Ada"}  # the author of comments made through the store


@pytest.fixture(params=STORES)
def store_name(request, settings):
    settings.COMMENTS_STORE = request.param
    settings.COMMENTS_BUCKET_SIZE = 7  # several buckets in small tests
    return request.param


@pytest.fixture(params=THREADED_STORES)
def threaded_store(request, settings):
    settings.COMMENTS_STORE = request.param
    return request.param


@pytest.fixture
def people(make_user):
    """Ada posts; Bob follows her; Eve follows nobody; Mal is blocked by Ada."""
    ada = make_user("ada", "Ada")
    bob = make_user("bob", "Bob")
    eve = make_user("eve", "Eve")
    mal = make_user("mal", "Mal")
    graph.circle_create(owner=ada, name="friends")
    graph.follow_create(follower=ada, followee="bob", circles=["friends"])
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=mal, followee="ada")
    ada.reload()
    graph.block_create(blocker=ada, blocked="mal")
    ada.reload()
    return ada, bob, eve, mal


def make_post(author, text="Hello", circles=(PUBLIC,), **kwargs) -> ObjectId:
    return feeds.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles), **kwargs
    ).id


def html_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def comments_in(html: str) -> list[tuple[str, int]]:
    """(slug, depth) of every comment article, in page order."""
    return [(m["slug"], int(m["depth"])) for m in COMMENT_RE.finditer(html)]


def texts_in(html: str) -> list[str]:
    return [unescape(t) for t in re.findall(r'<p class="comment__text[^"]*">(.*?)</p>', html)]


def rel_link(html: str, rel: str) -> str | None:
    match = re.search(rf'<a rel="{rel}"[^>]*href="([^"]+)"', html)
    return unescape(match.group(1)) if match else None


def say(client, post_id, text, parent=None):
    data = {"text": text} if parent is None else {"text": text, "parent": parent}
    return client.post(f"/posts/{post_id}/comments/", data)


def stored(post_id) -> list:
    return get_store().page(post_id, order="oldest", limit=1000).comments


# --- posting and replying ------------------------------------------------------------------------


def test_comment_and_reply_through_the_form(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    client = login(bob)
    response = say(client, post_id, "First!")
    assert response.status_code == 302
    [top] = stored(post_id)
    assert response["Location"] == f"/posts/{post_id}/#c-{top.slug}"
    assert top.text == "First!" and top.author == {"id": "bob", "name": "Bob"}

    reply = say(login(ada), post_id, "Welcome", parent=top.slug)
    assert reply.status_code == 302
    [_, child] = stored(post_id)
    assert child.parent_slug == top.slug and child.depth == 1
    assert reply["Location"].endswith("#c-" + child.slug.replace("/", ""))

    order = "oldest" if store_name == "buckets" else "threaded"
    html = html_of(client.get(f"/posts/{post_id}/?order={order}"))
    assert comments_in(html) == [(top.slug, 0), (child.slug, 1)]
    assert texts_in(html) == ["First!", "Welcome"]
    # A reply form on each comment, inside <details>, that needs no JS.
    assert html.count("<summary>Reply</summary>") == 2
    assert f'<input type="hidden" name="parent" value="{child.slug}">' in html
    assert Post.objects.get(id=post_id).comments_count == 2


def test_next_field_brings_the_commenter_back(people, login):
    ada, bob, *_ = people
    post_id = make_post(ada)
    response = login(bob).post(
        f"/posts/{post_id}/comments/", {"text": "hi", "next": f"/posts/{post_id}/?order=newest"}
    )
    [c] = stored(post_id)
    assert response["Location"] == f"/posts/{post_id}/?order=newest#c-{c.slug}"
    # An off-site `next` is ignored.
    response = login(bob).post(
        f"/posts/{post_id}/comments/", {"text": "again", "next": "https://evil.example/"}
    )
    assert response["Location"].startswith(f"/posts/{post_id}/#c-")


def test_unknown_or_malformed_parent_rerenders_the_form(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    client = login(bob)
    for parent in ("zzzz", "not a slug", "a" * 400):
        response = say(client, post_id, "hello", parent=parent)
        assert response.status_code == 400
        html = response.content.decode()
        assert 'class="errorlist' in html and "That comment does not exist." in html
    assert stored(post_id) == []


# --- orders and pages ----------------------------------------------------------------------------


def seed_thread(post_id):
    """c0, its reply c0.1, c1 (newer), all at known times."""
    store = get_store()
    c0 = store.post(post_id, author=ALICE, text="c0", posted=BASE)
    c1 = store.post(post_id, author=ALICE, text="c1", posted=BASE + timedelta(seconds=2))
    r = store.post(
        post_id, author=ALICE, text="c0.1", parent_slug=c0.slug, posted=BASE + timedelta(seconds=3)
    )
    return c0, c1, r


def test_orders(people, login, threaded_store):
    ada, bob, *_ = people
    post_id = make_post(ada)
    seed_thread(post_id)
    client = login(bob)
    expected = {
        None: ["c0", "c0.1", "c1"],
        "threaded": ["c0", "c0.1", "c1"],
        "oldest": ["c0", "c1", "c0.1"],
        "newest": ["c0.1", "c1", "c0"],
        "bogus": ["c0", "c0.1", "c1"],  # an unknown order falls back to threaded
    }
    for order, texts in expected.items():
        url = f"/posts/{post_id}/" + (f"?order={order}" if order else "")
        html = html_of(client.get(url))
        assert texts_in(html) == texts, order
    # Threaded pages indent replies; chronological ones show the depth too.
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert [d for _, d in comments_in(html)] == [0, 1, 0]
    assert 'data-depth="1" data-indent="1"' in html
    assert 'aria-current="page">Threaded' in html


def test_buckets_threaded_shows_a_notice_not_an_error(people, login, settings):
    settings.COMMENTS_STORE = "buckets"
    ada, bob, *_ = people
    post_id = make_post(ada)
    seed_thread(post_id)
    client = login(bob)
    # The default is the store's own first order: oldest first, no notice.
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert texts_in(html) == ["c0", "c1", "c0.1"]
    assert 'aria-current="page">Oldest' in html and "Threaded view" not in html
    # An old link that asks for the threaded order gets a notice, not an error.
    html = html_of(client.get(f"/posts/{post_id}/?order=threaded"))
    assert 'class="notice" role="status"' in html
    assert "Threaded view is not available" in html
    assert texts_in(html) == ["c0", "c1", "c0.1"]  # oldest first
    assert 'aria-current="page">Oldest' in html
    html = html_of(client.get(f"/posts/{post_id}/?order=newest"))
    assert "Threaded view is not available" not in html
    assert texts_in(html) == ["c0.1", "c1", "c0"]


@pytest.mark.parametrize("order", ["threaded", "oldest", "newest"])
def test_pages_of_fifty_with_rel_links(people, login, store_name, order):
    ada, bob, *_ = people
    post_id = make_post(ada)
    store = get_store()
    for i in range(120):
        store.post(post_id, author=ALICE, text=f"n{i:03d}", posted=BASE + timedelta(seconds=i))
    client = login(bob)
    url, pages = f"/posts/{post_id}/?order={order}", []
    while url:
        html = html_of(client.get(url))
        pages.append(html)
        url = rel_link(html, "next") and f"/posts/{post_id}/" + rel_link(html, "next")
        assert len(pages) < 5
    assert [len(comments_in(p)) for p in pages] == [50, 50, 20]
    seen = [t for p in pages for t in texts_in(p)]
    numbers = [f"n{i:03d}" for i in range(120)]
    assert seen == (numbers[::-1] if order == "newest" else numbers)
    assert rel_link(pages[0], "prev") is None
    assert rel_link(pages[1], "prev") and rel_link(pages[2], "prev")
    assert rel_link(pages[2], "next") is None
    # prev from the last page gives the middle page back.
    back = html_of(client.get(f"/posts/{post_id}/" + rel_link(pages[2], "prev")))
    assert texts_in(back) == texts_in(pages[1])
    assert 'class="pager"' in pages[0]


def test_bad_cursors_are_404(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    get_store().post(post_id, author=ALICE, text="x")
    client = login(bob)
    slug = stored(post_id)[0].slug
    for query in (
        "after=garbage",
        "before=%24ne",
        "after=" + cursors.offset(1) + "&before=" + cursors.offset(1),
        "after=" + "A" * 500,
        "order=oldest&after=" + cursors.threaded("x") + ("" if store_name != "buckets" else "!"),
    ):
        assert client.get(f"/posts/{post_id}/?{query}").status_code == 404, query
    assert client.get(f"/posts/{post_id}/c/{slug}/?after=garbage").status_code == 404


# --- depth limit and permalinks ------------------------------------------------------------------


def chain(post_id, depth: int, author=ALICE) -> list:
    """A top-level comment and a chain of replies down to `depth`."""
    store, made = get_store(), []
    for d in range(depth + 1):
        made.append(
            store.post(
                post_id,
                author=author,
                text=f"d{d}",
                parent_slug=made[-1].slug if made else None,
                posted=BASE + timedelta(seconds=d),
            )
        )
    return made


def test_continue_this_thread_leads_to_the_permalink(people, login, settings, threaded_store):
    settings.COMMENTS_MAX_DEPTH = 3
    ada, bob, *_ = people
    post_id = make_post(ada)
    made = chain(post_id, 6)
    client = login(bob)
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert texts_in(html) == ["d0", "d1", "d2", "d3"]  # d4..d6 are below the limit
    links = re.findall(r'<p class="continue"><a href="([^"]+)">Continue this thread →</a>', html)
    assert links == [f"/posts/{post_id}/c/{made[3].slug}/"]

    page = html_of(client.get(links[0]))
    assert texts_in(page) == ["d3", "d4", "d5", "d6"]
    assert [d for _, d in comments_in(page)] == [3, 4, 5, 6]
    indents = re.findall(r'data-indent="(\d+)"', page)
    assert indents == ["0", "1", "2", "3"]  # indented relative to the permalink's root
    # The parent chain gives context.
    ancestors = re.findall(r'<p class="ancestor"><a href="([^"]+)">Ada</a>: ([^<]*)</p>', page)
    assert [text for _, text in ancestors] == ["d0", "d1", "d2"]
    anchor = made[0].slug.replace("/", "")
    assert ancestors[0][0] == f"/posts/{post_id}/c/{made[0].slug}/#c-{anchor}"
    assert f'href="/posts/{post_id}/#comments"' in page


def test_continue_link_when_the_page_starts_below_the_limit(people, login, settings):
    """Replies past the limit that spill onto the next page, away from their
    limit-depth ancestor, are still reachable."""
    settings.COMMENTS_MAX_DEPTH, settings.COMMENTS_PAGE_SIZE = 1, 3
    ada, bob, *_ = people
    post_id = make_post(ada)
    made = chain(post_id, 4)  # d0 d1 | d2 d3 d4 (hidden below depth 1)
    client = login(bob)
    first = html_of(client.get(f"/posts/{post_id}/"))
    assert texts_in(first) == ["d0", "d1"]
    second = html_of(client.get(f"/posts/{post_id}/" + rel_link(first, "next")))
    assert texts_in(second) == []
    assert f'href="/posts/{post_id}/c/{made[1].slug}/">Continue this thread →' in second


def test_permalink_pages_and_parent_chain(people, login, settings, store_name):
    settings.COMMENTS_PAGE_SIZE = 5
    ada, bob, *_ = people
    post_id = make_post(ada)
    store = get_store()
    root = store.post(post_id, author=ALICE, text="root", posted=BASE)
    kids = [
        store.post(
            post_id,
            author=ALICE,
            text=f"k{i}",
            parent_slug=root.slug,
            posted=BASE + timedelta(seconds=i + 1),
        )
        for i in range(7)
    ]
    store.post(post_id, author=ALICE, text="other", posted=BASE + timedelta(seconds=30))
    client = login(bob)
    url = f"/posts/{post_id}/c/{root.slug}/"
    first = html_of(client.get(url))
    assert texts_in(first) == ["root", "k0", "k1", "k2", "k3"]
    second = html_of(client.get(url + rel_link(first, "next")))
    assert texts_in(second) == ["k4", "k5", "k6"]
    assert rel_link(second, "prev") and rel_link(second, "next") is None

    leaf = html_of(client.get(f"/posts/{post_id}/c/{kids[2].slug}/"))
    assert texts_in(leaf) == ["k2"]
    assert re.search(r'<p class="ancestor"><a href="[^"]+">Ada</a>: root</p>', leaf)
    assert f'<article class="post post--status" id="post-{post_id}"' in leaf


def test_unknown_and_malformed_slugs_are_404(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    get_store().post(post_id, author=ALICE, text="x")
    client = login(bob)
    for slug in ("zzzz", "zzzz/yyyy", "ABCD", "abc", "abcd/", "abcd//efgh", "%24ne", "a" * 2000):
        assert client.get(f"/posts/{post_id}/c/{slug}/").status_code == 404, slug
    assert client.get(f"/posts/{ObjectId()}/c/abcd/").status_code == 404
    assert client.get("/posts/nonsense/c/abcd/").status_code == 404


# --- form errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [("", "Write something first."), ("   \n ", "Write something first."), ("x" * 2001, "2000")],
)
def test_empty_or_too_long_rerenders_with_the_error(people, login, store_name, text, message):
    ada, bob, *_ = people
    post_id = make_post(ada)
    response = say(login(bob), post_id, text)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'class="errorlist' in html and message in html
    assert f'data-post-id="{post_id}"' in html  # the post is shown above the form
    assert '<form method="post" action="/posts/' in html
    assert stored(post_id) == []
    assert say(login(bob), post_id, "x" * 2000).status_code == 302


def test_comment_post_needs_login_and_post_method(people, client):
    ada, *_ = people
    post_id = make_post(ada)
    response = client.post(f"/posts/{post_id}/comments/", {"text": "hi"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert stored(post_id) == []


def test_anonymous_reader_sees_the_thread_and_a_login_link(people, client):
    ada, *_ = people
    post_id = make_post(ada)
    get_store().post(post_id, author=ALICE, text="visible to all")
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert texts_in(html) == ["visible to all"]
    assert "Log in</a> to comment." in html and "<summary>Reply</summary>" not in html


# --- who may read and write ----------------------------------------------------------------------


def test_invisible_post_is_404_everywhere(people, login, store_name):
    ada, bob, eve, _ = people
    post_id = make_post(ada, circles=("friends",))
    top = get_store().post(post_id, author={"id": "bob", "name": "Bob"}, text="in the circle")
    assert html_of(login(bob).get(f"/posts/{post_id}/"))  # Bob is in "friends"
    client = login(eve)
    assert client.get(f"/posts/{post_id}/").status_code == 404
    assert client.get(f"/posts/{post_id}/c/{top.slug}/").status_code == 404
    response = say(client, post_id, "let me in")
    assert response.status_code == 404
    assert say(client, post_id, "reply", parent=top.slug).status_code == 404
    assert client.post(f"/posts/{post_id}/comments/{top.slug}/delete/").status_code == 404
    assert len(stored(post_id)) == 1
    assert b"in the circle" not in response.content


def test_someone_the_author_blocked_cannot_comment(people, login, store_name):
    ada, _, _, mal = people
    post_id = make_post(ada)
    response = say(login(mal), post_id, "let me in")
    assert response.status_code == 403
    html = response.content.decode()
    assert "You can&#x27;t comment on @ada&#x27;s posts." in html
    assert 'class="errorlist' in html
    assert stored(post_id) == []
    assert Post.objects.get(id=post_id).comments_count == 0


def test_commenting_is_rate_limited(people, login, settings):
    settings.RATELIMIT_COMMENT = "3/300"
    ada, bob, *_ = people
    post_id = make_post(ada)
    client = login(bob)
    for i in range(3):
        assert say(client, post_id, f"c{i}").status_code == 302
    response = say(client, post_id, "one too many")
    assert response.status_code == 429
    assert "Too many attempts" in response.content.decode()
    assert [c.text for c in stored(post_id)] == ["c0", "c1", "c2"]
    # The limit is per user: Ada may still comment.
    assert say(login(ada), post_id, "mine").status_code == 302


def test_text_is_escaped_with_links_and_mentions(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    text = '<script>alert("x")</script> see https://example.org/a?b=1&c=2 @Ada'
    assert say(login(bob), post_id, text).status_code == 302
    for url in (f"/posts/{post_id}/?order=oldest", "/feed/"):
        html = html_of(login(bob).get(url))
        assert "<script>alert" not in html
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
        assert (
            '<a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener ugc" '
            'target="_blank">' in html
        )
        assert '<a href="/u/ada/" class="mention">@ada</a>' in html


# --- edit and delete -----------------------------------------------------------------------------


def test_author_edits_and_sees_edited(people, login, store_name):
    ada, bob, *_ = people
    post_id = make_post(ada)
    client = login(bob)
    say(client, post_id, "typo")
    [c] = stored(post_id)
    response = client.post(f"/posts/{post_id}/comments/{c.slug}/edit/", {"text": "fixed"})
    assert response.status_code == 302
    [c] = stored(post_id)
    assert c.text == "fixed" and c.edited is not None
    html = html_of(client.get(f"/posts/{post_id}/?order=oldest"))
    assert texts_in(html) == ["fixed"] and "· edited</span>" in html
    assert "Comment updated." in html
    # Edit forms are offered on one's own comments only.
    assert "<summary>Edit</summary>" in html
    assert "<summary>Edit</summary>" not in html_of(login(ada).get(f"/posts/{post_id}/"))
    # An empty edit is refused with a message; the text stays.
    client.post(f"/posts/{post_id}/comments/{c.slug}/edit/", {"text": " "})
    assert stored(post_id)[0].text == "fixed"


def test_author_deletes_and_replies_stay(people, login, threaded_store):
    ada, bob, *_ = people
    post_id = make_post(ada)
    client = login(bob)
    say(client, post_id, "I regret this")
    [top] = stored(post_id)
    say(login(ada), post_id, "a reply", parent=top.slug)
    response = client.post(f"/posts/{post_id}/comments/{top.slug}/delete/")
    assert response.status_code == 302
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert "Comment deleted." in html
    assert texts_in(html) == ["[deleted]", "a reply"]
    assert [d for _, d in comments_in(html)] == [0, 1]
    assert "I regret this" not in html
    assert Post.objects.get(id=post_id).comments_count == 2  # deletion is soft
    # A deleted comment offers no reply, edit or delete.
    assert html.count("<summary>Reply</summary>") == 1
    # Its permalink still works and shows the reply.
    page = html_of(client.get(f"/posts/{post_id}/c/{top.slug}/"))
    assert texts_in(page) == ["[deleted]", "a reply"]
    # Deleting again is refused politely.
    client.post(f"/posts/{post_id}/comments/{top.slug}/delete/")
    assert "That comment is gone." in html_of(client.get(f"/posts/{post_id}/"))


def test_moderator_deletion_shows_removed(people, login, threaded_store):
    ada, bob, *_ = people
    post_id = make_post(ada)
    say(login(bob), post_id, "spam spam")
    [c] = stored(post_id)
    services.comment_soft_delete(post_id=post_id, slug=c.slug, by="moderator")
    html = html_of(login(ada).get(f"/posts/{post_id}/"))
    assert texts_in(html) == ["[removed by a moderator]"] and "spam spam" not in html


def test_others_cannot_edit_or_delete(people, login, store_name):
    ada, bob, eve, _ = people
    post_id = make_post(ada)
    say(login(bob), post_id, "bob's words")
    [c] = stored(post_id)
    client = login(eve)  # neither the comment's author nor the post's
    response = client.post(f"/posts/{post_id}/comments/{c.slug}/edit/", {"text": "eve's words"})
    assert response.status_code == 302
    assert "Only its author can change a comment." in html_of(client.get(response["Location"]))
    response = client.post(f"/posts/{post_id}/comments/{c.slug}/delete/")
    assert response.status_code == 302
    [c] = stored(post_id)
    assert c.text == "bob's words" and not c.deleted and c.edited is None
    html = html_of(client.get(f"/posts/{post_id}/"))
    assert "Only its author or the post&#x27;s author can delete a comment." in html
    assert 'data-confirm="Delete this comment?"' not in html
    assert "data-post-author-delete" not in html
    # The post's author may delete it (tests/comments/test_hardening.py), not edit it.
    ada_client = login(ada)
    ada_client.post(f"/posts/{post_id}/comments/{c.slug}/edit/", {"text": "ada's words"})
    assert stored(post_id)[0].text == "bob's words"
    # Unknown and malformed slugs: nothing to act on.
    assert client.post(f"/posts/{post_id}/comments/zzzz/delete/").status_code == 302
    assert client.post(f"/posts/{post_id}/comments/BAD!/delete/").status_code == 404
    assert client.get(f"/posts/{post_id}/comments/{c.slug}/delete/").status_code == 302


# --- the feed cards' last comments (*Storing Updates and Profiles*) ------------------------------


def card_of(html: str, post_id) -> str:
    start = html.index(f'<article class="post post--status" id="post-{post_id}"')
    return html[start : html.index("</article>", start)]


def last_comments(card: str) -> list[str]:
    return [
        unescape(re.sub(r"<[^>]+>", "", t)).strip()
        for t in re.findall(
            r'<li class="mini-comment"><a href="/u/[a-z0-9_]+/">[^<]*</a>(.*?)</li>', card
        )
    ]


def check_cards_after_five(people, login, embed, model):
    ada, bob, *_ = people
    get_timelines().ensure_owner(["ada", "bob"])
    bob_client = login(bob)
    bob_client.get("/feed/")  # builds Bob's cache (if any) before the post arrives
    post_id = make_post(ada, "Five comments coming")
    for i in range(5):
        say(bob_client if i % 2 else login(ada), post_id, f"comment {i}")
    expected = ["comment 2", "comment 3", "comment 4"]
    for client, url in ((bob_client, "/feed/"), (bob_client, "/u/ada/"), (login(ada), "/u/ada/")):
        card = card_of(html_of(client.get(url)), post_id)
        assert last_comments(card) == expected, (url, card)
        assert "5 comments</a>" in card and "All 5 comments →" in card
    if embed:
        # The feed entries carry the copy, refreshed by a multi-document update.
        collection = TIMELINES[model]._get_collection()
        copies = [
            e["post"]
            for doc in collection.find({"entries.id": post_id})
            for e in doc["entries"]
            if e["id"] == post_id
        ]
        assert len(copies) >= 3  # Bob's news, Ada's news and Ada's wall
        for copy in copies:
            assert copy["comments_count"] == 5
            assert [c["text"] for c in copy["comments_shown"]] == expected
    return post_id


@pytest.mark.parametrize("embed", [False, True], ids=["link", "embed"])
@pytest.mark.parametrize("model", ["cache", "month", "size"])
def test_feed_entries_show_the_last_three_and_the_count(people, login, settings, embed, model):
    settings.FEED_MODEL, settings.FEED_EMBED = model, embed
    check_cards_after_five(people, login, embed, model)


@pytest.mark.parametrize("embed", [False, True], ids=["link", "embed"])
def test_feed_entries_under_every_store(people, login, settings, store_name, embed):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", embed
    check_cards_after_five(people, login, embed, "cache")


def test_feed_card_shows_deleted_and_edited_last_comments(people, login, settings):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", True
    ada, bob, *_ = people
    get_timelines().ensure_owner(["ada", "bob"])
    client = login(bob)
    post_id = make_post(ada)
    say(client, post_id, "one")
    say(client, post_id, "two")
    first, second = stored(post_id)
    client.post(f"/posts/{post_id}/comments/{first.slug}/delete/")
    client.post(f"/posts/{post_id}/comments/{second.slug}/edit/", {"text": "two!"})
    card = card_of(html_of(client.get("/feed/")), post_id)
    assert last_comments(card) == ["[deleted]", "two!"]


# --- truncate_comments ---------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["cache", "month", "size"])
def test_truncate_comments_trims_posts_and_embedded_entries(people, login, settings, model):
    settings.FEED_MODEL, settings.FEED_EMBED = model, True
    ada, bob, *_ = people
    get_timelines().ensure_owner(["ada", "bob"])
    busy, quiet = make_post(ada, "busy"), make_post(ada, "quiet")
    store = get_store()
    for i in range(5):
        store.post(busy, author=ALICE, text=f"b{i}", posted=BASE + timedelta(seconds=i))
    store.post(quiet, author=ALICE, text="q0", posted=BASE)
    summaries.summary_refresh(busy)
    summaries.summary_refresh(quiet)

    settings.FEED_COMMENTS_SHOWN = 2
    out = StringIO()
    call_command("truncate_comments", stdout=out)
    output = out.getvalue()
    assert "post: 1 post(s) trimmed" in output
    collection = TIMELINES[model]._get_collection()
    assert f"{collection.name}: 3 embedded entries trimmed" in output  # Bob's news, Ada's x2
    post = Post._get_collection().find_one({"_id": busy})
    assert [c["text"] for c in post["comments_shown"]] == ["b3", "b4"]
    assert post["comments_count"] == 5
    for doc in collection.find({}):
        for entry in doc["entries"]:
            shown = [c["text"] for c in entry["post"]["comments_shown"]]
            assert shown == (["b3", "b4"] if entry["id"] == busy else ["q0"])
    card = card_of(html_of(login(bob).get("/feed/")), busy)
    assert last_comments(card)[:2] == ["b3", "b4"]

    # Nothing left over the limit: a second run trims nothing.
    out = StringIO()
    call_command("truncate_comments", stdout=out)
    assert "post: 0 post(s) trimmed" in out.getvalue()
    assert f"{collection.name}: 0 embedded entries trimmed" in out.getvalue()
    call_command("truncate_comments", "--limit", "0", stdout=StringIO())
    assert Post._get_collection().find_one({"_id": quiet})["comments_shown"] == []


def test_truncate_comments_retries_when_a_delivery_moves_entries(people, settings):
    """The update pins every position it sets to the entry's post id."""
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", True
    collection = CacheTimeline._get_collection()
    a, b = ObjectId(), ObjectId()
    shown = [{"text": str(i)} for i in range(4)]
    collection.insert_one(
        {
            "owner": "zed",
            "kind": "news",
            "entries": [{"id": a, "post": {"comments_shown": shown}}, {"id": b, "post": {}}],
        }
    )
    stale = collection.find_one({"owner": "zed"})
    # A delivery pushes a new entry at the front after the document was read.
    collection.update_one(
        {"owner": "zed"}, {"$push": {"entries": {"$each": [{"id": ObjectId()}], "$position": 0}}}
    )
    assert CacheStore().comments_shown_trim_document(stale, 2) == -1
    assert services.comments_shown_truncate(limit=2)["timeline_cache"] == 1
    doc = collection.find_one({"owner": "zed"})
    assert [e["post"]["comments_shown"] for e in doc["entries"][1:2]] == [shown[2:]]


# --- round trips (docs/performance.md) -----------------------------------------------------------


def test_thread_page_round_trips_do_not_grow_with_depth(people, login, settings, round_trips):
    settings.COMMENTS_STORE = "documents"
    ada, bob, *_ = people
    post_id = make_post(ada)
    docs, tops = [], []
    for i in range(2000):
        parent = tops[-1] if tops and i % 3 else None  # a third top level, replies under them
        doc = stored_comment(i, parent, posted=BASE + timedelta(seconds=i))
        doc.update(discussion_id=post_id, parent_id=parent["_id"] if parent else None)
        docs.append(doc)
        if parent is None:
            tops.append(doc)
    # In slices: one 2,000-document insert can hold a one-command-at-a-time
    # test server (the wire pass) long enough to miss the driver's heartbeat.
    for start in range(0, len(docs), 250):
        CommentDocument._get_collection().insert_many(docs[start : start + 250])
    ordered = sorted(docs, key=lambda d: d["full_slug"])
    client = login(bob)
    client.get(f"/posts/{post_id}/")  # warm the session

    with round_trips() as first:
        html = html_of(client.get(f"/posts/{post_id}/"))
    assert len(comments_in(html)) == 50

    cursor = cursors.threaded(ordered[39 * 50 - 1]["full_slug"])  # page 40 of 40
    with round_trips() as deep:
        html = html_of(client.get(f"/posts/{post_id}/?after={cursor}"))
    assert [s for s, _ in comments_in(html)] == [d["slug"] for d in ordered[1950:2000]]
    assert rel_link(html, "next") is None and rel_link(html, "prev")

    print(f"thread page round trips: page 1 = {first.total}, page 40 = {deep.total}")
    print(f"page 1: {first.commands}\npage 40: {deep.commands}")
    assert deep.total <= first.total, (first.commands, deep.commands)
    # Session, user, post, then the thread itself (docs/performance.md: at most 2).
    assert first.total <= 6
    for after in (None, cursor):
        with round_trips() as thread:
            selectors.thread(post_id, order="threaded", after=after)
        assert thread.total <= 2, thread.commands


def test_next_page_after_a_deep_reply(people, login, settings, threaded_store):
    """A threaded cursor carries the full slug, which grows with the depth:
    the page after a deep reply must still open."""
    settings.COMMENTS_PAGE_SIZE = 10
    ada, bob, *_ = people
    post_id = make_post(ada)
    made = chain(post_id, 14)
    client = login(bob)
    first = html_of(client.get(f"/posts/{post_id}/"))
    assert texts_in(first) == [f"d{d}" for d in range(9)]  # d9 is past the limit of 8
    link = rel_link(first, "next")
    assert len(link) > 400
    second = html_of(client.get(f"/posts/{post_id}/{link}"))
    assert texts_in(second) == []
    assert f'href="/posts/{post_id}/c/{made[8].slug}/">Continue this thread →' in second
    deep = html_of(client.get(f"/posts/{post_id}/c/{made[8].slug}/"))
    assert texts_in(deep) == [f"d{d}" for d in range(8, 15)]
