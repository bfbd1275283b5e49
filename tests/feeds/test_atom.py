"""`/u/<handle>/feed.atom` (docs/features.md#interactions): valid Atom with absolute links,
the handle's own public posts only, escaped text, conditional GET."""

import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.test import Client

from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from socialsite.clock import now
from tests.conftest import login_client, user

NS = {"atom": "http://www.w3.org/2005/Atom"}


def post(author: User, text: str, circles=(PUBLIC,), to=None, **kwargs) -> Post:
    return services.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles), to=to, **kwargs
    )


def parse(response) -> ET.Element:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == "{http://www.w3.org/2005/Atom}feed"
    return root


def entry_ids(root) -> list[str]:
    """The post ids the entries link to, in order."""
    links = [e.find("atom:link", NS).get("href") for e in root.findall("atom:entry", NS)]
    return [link.rstrip("/").rsplit("/", 1)[1] for link in links]


@pytest.fixture
def wall(make_user):
    """ada's wall: her public posts, a circle post, a post she wrote on bob's
    wall, a post bob wrote on hers, one she deleted and one a moderator removed."""
    ada = make_user("ada", "Ada Lovelace")
    make_user("bob")
    moderator = make_user("mod", role="moderator")
    graph.circle_create(owner=ada, name="close")
    graph.follow_create(follower=ada, followee="bob", circles=["close"])
    ada = user("ada")
    t = now() - timedelta(hours=1)
    posts = {
        "first": post(ada, "the first", ts=t),
        "circles": post(ada, "for my circles", circles=[ALL_CIRCLES], ts=t + timedelta(minutes=1)),
        "named": post(ada, "for close friends", circles=["close"], ts=t + timedelta(minutes=2)),
        "on-bob": post(ada, "on bob's wall", to="bob", ts=t + timedelta(minutes=3)),
        "from-bob": post(user("bob"), "bob on ada's wall", to="ada", ts=t + timedelta(minutes=4)),
        "deleted": post(ada, "regrets", ts=t + timedelta(minutes=5)),
        "removed": post(ada, "against the rules", ts=t + timedelta(minutes=6)),
        "latest": post(ada, "the latest", ts=t + timedelta(minutes=7)),
    }
    services.post_delete(post_id=posts["deleted"].id, actor=user("ada"))
    moderation.post_remove(moderator=moderator, target=Target("post", str(posts["removed"].id)))
    return posts


def test_the_feed_parses_and_lists_public_posts_only(wall, client):
    root = parse(client.get("/u/ada/feed.atom"))
    expected = [wall[name].id for name in ("latest", "on-bob", "first")]
    assert entry_ids(root) == [str(i) for i in expected]
    assert root.find("atom:title", NS).text == "Ada Lovelace (@ada)"
    assert root.find("atom:id", NS).text
    assert root.find("atom:updated", NS).text
    body = client.get("/u/ada/feed.atom").content.decode()
    for hidden in ("for my circles", "close friends", "bob on ada", "regrets", "against"):
        assert hidden not in body


def test_links_are_absolute(wall, client):
    root = parse(client.get("/u/ada/feed.atom"))
    feed_links = {link.get("rel"): link.get("href") for link in root.findall("atom:link", NS)}
    assert feed_links["alternate"] == "http://testserver/u/ada/"
    assert feed_links["self"] == "http://testserver/u/ada/feed.atom"
    for entry in root.findall("atom:entry", NS):
        href = entry.find("atom:link", NS).get("href")
        assert href.startswith("http://testserver/posts/"), href
        assert entry.find("atom:id", NS).text.startswith("http://testserver/posts/")
        assert entry.find("atom:author/atom:name", NS).text == "Ada Lovelace"
        assert entry.find("atom:updated", NS).text and entry.find("atom:published", NS).text


def test_text_is_escaped(make_user, client):
    ada = make_user("ada", 'Ada <b>"&"</b>')
    hostile = "<script>alert('x')</script> & <b>bold</b>\nnext line"
    post(ada, hostile)
    body = client.get("/u/ada/feed.atom").content
    assert b"<script>" not in body and b"<b>bold</b>" not in body
    root = ET.fromstring(body)
    (entry,) = root.findall("atom:entry", NS)
    # The title is plain text: what was typed, once the XML is read.
    assert (
        entry.find("atom:title", NS).text == "<script>alert('x')</script> & <b>bold</b> next line"
    )
    # The summary is HTML: the text is escaped in it, so it shows as typed.
    summary = entry.find("atom:summary", NS)
    assert summary.get("type") == "html"
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold" in summary.text
    assert "<script>" not in summary.text and "<br>" in summary.text
    assert root.find("atom:title", NS).text == 'Ada <b>"&"</b> (@ada)'


def test_a_conditional_get_answers_304(wall, client):
    first = client.get("/u/ada/feed.atom")
    etag, modified = first["ETag"], first["Last-Modified"]
    assert etag.startswith('"') and modified.endswith("GMT")
    again = client.get("/u/ada/feed.atom", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    since = client.get("/u/ada/feed.atom", headers={"If-Modified-Since": modified})
    assert since.status_code == 304

    # A new post, an edit or a deletion changes the feed: 200 again.
    post(user("ada"), "news")
    changed = client.get("/u/ada/feed.atom", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag
    etag = changed["ETag"]
    services.post_edit(post_id=wall["first"].id, actor=user("ada"), changes={"text": "edited"})
    edited = client.get("/u/ada/feed.atom", headers={"If-None-Match": etag})
    assert edited.status_code == 200 and edited["ETag"] != etag
    etag = edited["ETag"]
    services.post_delete(post_id=wall["latest"].id, actor=user("ada"))
    assert client.get("/u/ada/feed.atom", headers={"If-None-Match": etag}).status_code == 200


def test_unknown_and_suspended_handles_are_404(make_user, client):
    make_user("gone", status="suspended")
    for handle in ("nobody", "gone", "NO", "%24ne", "a" * 40):
        assert client.get(f"/u/{handle}/feed.atom").status_code == 404, handle
    assert client.post("/u/gone/feed.atom").status_code in (404, 405)


def test_a_new_account_has_a_valid_empty_feed(make_user, client):
    make_user("ada")
    root = parse(client.get("/u/ada/feed.atom"))
    assert root.findall("atom:entry", NS) == []
    assert client.post("/u/ada/feed.atom").status_code == 405


# --- who sees what (docs/privacy.md): the feed is what anyone signed out may read


def test_the_same_public_posts_for_every_viewer_but_one_who_blocked_the_author(wall, make_user):
    pal, hater, fan = make_user("pal"), make_user("hater"), make_user("fan")
    graph.follow_create(follower=user("ada"), followee="pal", circles=["close"])
    graph.follow_create(follower=fan, followee="ada")
    graph.block_create(blocker=user("ada"), blocked="fan")  # ada blocked fan
    graph.block_create(blocker=hater, blocked="ada")  # hater blocked ada
    anonymous = entry_ids(parse(Client().get("/u/ada/feed.atom")))
    # A circle member still gets public posts only: the feed is public.
    assert entry_ids(parse(login_client(pal).get("/u/ada/feed.atom"))) == anonymous
    # A former circle member (taken out) and someone ada blocked: the same.
    graph.circle_remove_member(owner=user("ada"), name="close", member="pal")
    assert entry_ids(parse(login_client(pal).get("/u/ada/feed.atom"))) == anonymous
    assert entry_ids(parse(login_client(fan).get("/u/ada/feed.atom"))) == anonymous
    # Blocks win: whoever blocked ada sees no wall of hers, and no feed.
    assert login_client(user("hater")).get("/u/ada/feed.atom").status_code == 404
    assert str(wall["removed"].id) not in anonymous


def test_the_wall_links_its_feed(make_user, client):
    make_user("ada")
    page = client.get("/u/ada/").content.decode()
    assert '<link rel="alternate" type="application/atom+xml"' in page
    assert 'href="/u/ada/feed.atom"' in page
    assert page.count("/u/ada/feed.atom") == 2  # the <link> and a visible link
