"""Hashtags, a tag's page and post search (docs/discovery.md): what a post
stores when written, the pages' visibility against the blocker, the muted,
the former circle member, the removed post and the anonymous visitor, and
keyset paging that neither skips nor repeats a post while new ones arrive."""

import re
from datetime import timedelta

import pytest
from django.test import Client

from comments import services as comments
from feeds import words
from feeds.documents import Post
from feeds.services import likes, posts
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.services import mutes
from socialsite.clock import now

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"')


def shown(client, url: str) -> list[str]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return ARTICLE.findall(response.content.decode())


def post(author, text, circles=(), **kwargs):
    return posts.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles), **kwargs
    )


def test_tags_and_words_are_folded_and_tags_need_a_letter():
    assert words.tags_in("Hi #Café #CAFÉ #cafe\u0301 #1 #_ a#b &#39; https://x.org/#frag") == [
        "café"
    ]
    assert words.tags_in("#日本語 and #Python3") == ["日本語", "python3"]
    assert words.terms_of(["Hello WORLD, hello Ｆｕｌｌ width! a I"]) == [
        "full",
        "hello",
        "width",
        "world",
    ]
    assert words.clean_tag("#Bread") == "bread"
    assert [words.clean_tag(v) for v in ("123", "a b", "", "x" * 65, None)] == [None] * 5


def test_a_post_stores_its_tags_and_words_and_an_edit_follows_them(make_user):
    ada = make_user("ada")
    made = post(ada, "Sourdough #Bread at #home")
    stored = Post._get_collection().find_one({"_id": made.id})
    assert stored["tags"] == ["bread", "home"]
    assert stored["terms"] == ["at", "bread", "home", "sourdough"]
    posts.post_edit(post_id=made.id, actor=ada, changes={"text": "Only rye now"})
    stored = Post._get_collection().find_one({"_id": made.id})
    assert "tags" not in stored and stored["terms"] == ["now", "only", "rye"]
    plain = post(ada, "!!")
    assert "tags" not in Post._get_collection().find_one({"_id": plain.id})


def test_tags_link_in_posts_and_comments(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    made = post(ada, "New loaf #Bread, not #2024")
    comments.comment_create(
        post=Post._get_collection().find_one({"_id": made.id}), author=bob, text="More #rye!"
    )
    page = login(bob).get(f"/posts/{made.id}/").content.decode()
    assert '<a href="/tags/bread/" class="hashtag">#Bread</a>' in page
    assert '<a href="/tags/rye/" class="hashtag">#rye</a>' in page
    assert "#2024" in page and 'href="/tags/2024/"' not in page


def test_a_tag_page_shows_public_live_posts_the_viewer_may_see(make_user, login):
    ada, bob, pal, hater, noisy = (make_user(h) for h in ("ada", "bob", "pal", "hater", "noisy"))
    graph.circle_create(owner=ada, name="close")
    graph.follow_create(follower=ada.reload(), followee="pal", circles=["close"])
    public = post(ada, "Public #bread")
    circle = post(ada, "Circle #bread", circles=["close"])
    removed = post(bob, "Spam #bread")
    by_hater = post(hater, "Hater's #bread")
    by_noisy = post(noisy, "Noisy #bread")
    mod = make_user("mod", role="moderator")
    moderation.post_remove(moderator=mod, target=resolve_target(f"post:{removed.id}"))
    graph.block_create(blocker=hater.reload(), blocked="bob")
    mutes.mute_create(user=bob.reload(), handle="noisy")

    everyone = {str(p.id) for p in (public, by_hater, by_noisy)}
    assert set(shown(Client(), "/tags/bread/")) == everyone  # anonymous: public only
    # pal is in ada's circle, yet a tag page lists public posts only.
    assert str(circle.id) not in shown(login(pal), "/tags/bread/")
    # bob is blocked by hater and muted noisy; the removed post is nobody's.
    assert set(shown(login(bob.reload()), "/tags/Bread/")) == {str(public.id)}
    # A former circle member sees no more than before: still the public ones.
    graph.circles_set_for(owner=ada.reload(), member="pal", circles=[])
    assert set(shown(login(pal.reload()), "/tags/bread/")) == everyone
    assert Client().get("/tags/123/").status_code == 404


def test_tag_pages_page_back_without_gaps_or_repeats_while_posts_arrive(make_user, settings):
    settings.FEED_PAGE_SIZE = 3
    ada = make_user("ada")
    start = now() - timedelta(hours=1)
    made = [post(ada, f"loaf {n} #bread", ts=start + timedelta(minutes=n)) for n in range(8)]
    client = Client()
    seen, url = [], "/tags/bread/"
    while url:
        page = client.get(url).content.decode()
        seen += ARTICLE.findall(page)
        post(ada, "a new one #bread")  # arrives while the reader pages back
        found = re.search(r'<a rel="next"[^>]*href="([^"]+)"', page)
        url = found.group(1).replace("&amp;", "&") if found else None
    assert seen == [str(p.id) for p in reversed(made)]


def test_search_finds_every_word_in_public_posts_and_the_searchers_own(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    graph.circle_create(owner=ada, name="close")
    both = post(ada, "Rye bread, fresh from the oven")
    one_word = post(bob, "Rye whiskey")
    secret = post(ada, "Secret rye bread recipe", circles=["close"])
    removed = post(bob, "Rye bread spam")
    mod = make_user("mod", role="moderator")
    moderation.post_remove(moderator=mod, target=resolve_target(f"post:{removed.id}"))

    assert shown(Client(), "/search/?q=BREAD+rye") == [str(both.id)]
    page = login(ada).get("/search/?q=rye+bread").content.decode()
    assert 'class="post-results' in page
    assert ARTICLE.findall(page) == [str(secret.id), str(both.id)]
    assert shown(login(bob), "/search/?q=rye") == [str(one_word.id), str(both.id)]
    graph.block_create(blocker=ada.reload(), blocked="bob")
    assert shown(login(bob.reload()), "/search/?q=rye") == [str(one_word.id)]
    assert "No public post holds every word" in Client().get("/search/?q=zzzz").content.decode()


def test_a_search_pages_back_and_keeps_its_words(make_user, settings):
    settings.FEED_PAGE_SIZE = 2
    ada = make_user("ada")
    start = now() - timedelta(hours=1)
    made = [post(ada, f"crumb {n}", ts=start + timedelta(minutes=n)) for n in range(5)]
    client, seen, url = Client(), [], "/search/?q=crumb"
    while url:
        page = client.get(url).content.decode()
        seen += ARTICLE.findall(page)
        post(ada, "a new crumb")  # arrives while the reader pages back
        found = re.search(r'<a rel="next"[^>]*href="([^"]+)"', page)
        url = "/search/" + found.group(1).replace("&amp;", "&") if found else None
    assert seen == [str(p.id) for p in reversed(made)]


# The session's read, the posts' aggregate (with the reader's likes and
# votes), and who among the page's authors blocked the reader; a search
# also reads people, as it did before it found posts (two queries).
@pytest.mark.parametrize(("url", "budget"), [("/tags/bread/", 3), ("/search/?q=rye+bread", 5)])
def test_discovery_pages_are_one_aggregate_beside_the_session(
    url, budget, make_user, login, round_trips
):
    ada, bob = make_user("ada"), make_user("bob")
    for n in range(5):
        post(ada, f"Rye bread {n} #bread")
    client = login(bob)
    client.get(url)  # warm: the session's first read
    with round_trips() as trips:
        assert client.get(url).status_code == 200
    assert trips.total <= budget, [(t.name, t.collection) for t in trips.trips]


def test_a_content_warning_hides_the_body_on_every_page_and_in_atom(make_user, login):
    ada = login(make_user("ada"))
    assert (
        ada.post(
            "/posts/", {"type": "status", "text": "The ending is sad #books", "cw": "spoilers"}
        ).status_code
        == 302
    )
    made = Post.objects.get()
    assert made.detail["cw"] == "spoilers"
    warned = re.compile(
        r'<details class="cw">\s*<summary><span class="cw__label">Content warning:</span>'
        r" spoilers</summary>\s*<div class=\"post__body\">\s*<p class=\"post__text\">The ending"
    )
    for url in ("/feed/", "/u/ada/", f"/posts/{made.id}/", "/tags/books/", "/search/?q=ending"):
        assert warned.search(ada.get(url).content.decode()), url
    atom = Client().get("/u/ada/feed.atom").content.decode()
    assert "<title>Content warning: spoilers</title>" in atom
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", atom, re.S).group(1)
    content = re.search(r'<content type="html">(.*?)</content>', atom, re.S).group(1)
    assert "The ending" not in summary and "The ending is sad" in content


def test_alt_text_describes_a_photo_and_the_composer_asks_for_it(make_user, login):
    import io

    from PIL import Image

    ada = login(make_user("ada"))
    assert "Describe the photo" in ada.get("/feed/").content.decode()
    buffer = io.BytesIO()
    Image.new("RGB", (60, 40), (10, 120, 200)).save(buffer, "PNG")
    buffer.name, _ = "sky.png", buffer.seek(0)
    form = {"type": "photo", "text": "Sky", "alt": "A clear blue sky", "photo": buffer}
    assert ada.post("/posts/", form).status_code == 302
    page = ada.get("/feed/").content.decode()
    assert 'alt="A clear blue sky"' in page
    assert Post.objects.get().detail["alt"] == "A clear blue sky"
    long = ada.post("/posts/", {"type": "status", "text": "x", "cw": "w" * 101})
    assert long.status_code == 400 and "errorlist" in long.content.decode()


def test_a_notification_quotes_only_the_warning_of_a_warned_post(make_user, login):
    from feeds.services import likes

    ada, bob = make_user("ada"), make_user("bob")
    made = posts.post_create(
        author=ada,
        type="status",
        detail={"text": "The ending is sad", "cw": "spoilers"},
        circles=[],
    )
    likes.like_create(post_id=made.id, user=bob)
    page = login(ada).get("/notifications/").content.decode()
    assert "Content warning: spoilers" in page and "The ending is sad" not in page


def test_an_edited_post_keeps_its_earlier_versions_for_whoever_may_see_it(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    graph.circle_create(owner=ada, name="close")
    made = post(ada, "First try")
    posts.post_edit(post_id=made.id, actor=ada, changes={"text": "Second try"})
    posts.post_edit(post_id=made.id, actor=ada, changes={"text": "Second try"})  # no change
    posts.post_edit(post_id=made.id, actor=ada, changes={"text": "Third, final"})
    page = Client().get(f"/posts/{made.id}/").content.decode()
    assert f'href="/posts/{made.id}/history/"' in page
    history = Client().get(f"/posts/{made.id}/history/").content.decode()
    versions = re.findall(
        r'<li class="revision"[^>]*>.*?<p class="post__text">(.*?)</p>', history, re.S
    )
    assert versions == ["Second try", "First try"] and "Third, final" in history
    secret = post(ada.reload(), "Circle only", circles=["close"])
    posts.post_edit(post_id=secret.id, actor=ada, changes={"text": "Circle, edited"})
    assert login(bob).get(f"/posts/{secret.id}/history/").status_code == 404
    # A moderator's removal freezes it: no edit, and its history is as it was.
    mod = make_user("mod", role="moderator")
    moderation.post_remove(moderator=mod, target=resolve_target(f"post:{made.id}"))
    assert (
        login(ada.reload()).post(f"/posts/{made.id}/edit/", {"text": "sneaky"}).status_code == 404
    )
    assert Client().get(f"/posts/{made.id}/history/").status_code == 404
    posts.post_delete(post_id=secret.id, actor=ada)
    from feeds.documents import PostRevision

    assert PostRevision.objects(post=secret.id).count() == 0


def test_a_search_bounds_its_index_scan_by_its_longest_word():
    """One `$all` whose first element is the longest word: the server bounds
    the `terms` scan by it (not the planner's trial among the words)."""
    from explore.selectors.discovery import Search
    from profiles.auth import AnonymousVisitor

    query = Search.of("on mongodb sharding").query(AnonymousVisitor())
    assert query["terms"] == {"$all": ["sharding", "mongodb", "on"]}
    assert Search.of("mongodb").query(AnonymousVisitor())["terms"] == "mongodb"


def test_a_search_for_a_hashtag_links_its_page_and_finds_its_posts(make_user, login):
    from feeds.services import posts

    ada = make_user("ada")
    posts.post_create(
        author=ada, type="status", detail={"text": "Morning #Coffee"}, circles=["*public*"]
    )
    page = login(make_user("bob")).get("/search/", {"q": "#coffee"}).content.decode()
    assert 'href="/tags/coffee/"' in page and "#coffee</a>" in page
    assert "Morning" in page


def section(page: str, name: str) -> str:
    """The HTML of `<section class="<name>" ...>` up to its end."""
    found = re.search(rf'<section class="[^"]*\b{name}\b[^"]*".*?</section>', page, re.S)
    assert found, name
    return found.group(0)


def people_in(page: str, name: str) -> list[str]:
    return re.findall(r'<li class="[^"]*" data-handle="([^"]+)"', section(page, name))


def react(made, likers=(), commenters=()):
    """Likes and comments on `made` (a post the reactors may see)."""
    for liker in likers:
        likes.like_create(post_id=made.id, user=liker)
    raw = Post._get_collection().find_one({"_id": made.id})
    for commenter in commenters:
        comments.comment_create(post=raw, author=commenter, text="Nice")


def test_explore_ranks_popular_posts_and_people_for_whoever_may_see_them(make_user, login):
    fans = [make_user(f"fan{n}") for n in range(6)]
    ada, bob, cyd, pal = (make_user(h) for h in ("ada", "bob", "cyd", "pal"))
    hater, noisy, reader, quiet = (make_user(h) for h in ("hater", "noisy", "reader", "quiet"))
    mod, shop = make_user("mod", role="moderator"), make_user("shop", role="advertiser")
    graph.circle_create(owner=ada, name="close")
    graph.follow_create(follower=ada.reload(), followee="pal", circles=["close"])
    # Engagement decays with age: 3 likes now beat a like and a comment now,
    # which beat 6 likes two days ago; five days ago is out of the window.
    hot = post(ada, "Hot")
    react(hot, fans[:3])
    warm = post(bob, "Warm")
    react(warm, fans[:1], commenters=[fans[1]])
    old = post(cyd, "Old", ts=now() - timedelta(days=2))
    react(old, fans)
    ancient = post(cyd, "Ancient", ts=now() - timedelta(days=5))
    react(ancient, fans)
    post(bob, "Nobody cares")
    circle = post(ada, "Circle only", circles=["close"])
    react(circle, [pal], commenters=[pal, pal])
    removed = post(bob, "Spam")
    react(removed, fans)
    moderation.post_remove(moderator=mod, target=resolve_target(f"post:{removed.id}"))
    by_hater, by_noisy = post(hater, "Hater's"), post(noisy, "Noisy")
    react(by_hater, fans[:1])
    react(by_noisy, fans[:1])
    for staff in (mod, shop):
        react(post(staff, "Staff news"), fans[:1])
    graph.block_create(blocker=hater.reload(), blocked="reader")
    mutes.mute_create(user=reader.reload(), handle="noisy")
    graph.follow_create(follower=reader.reload(), followee="bob")
    for followee in ("quiet", "mod", "cyd"):  # bob's follows: suggested to reader
        graph.follow_create(follower=bob.reload(), followee=followee)

    page = Client().get("/explore/").content.decode()
    ids = ARTICLE.findall(section(page, "explore-posts"))
    staff_posts = {str(p["_id"]) for p in Post._get_collection().find({"by.id": "mod"})}
    staff_posts |= {str(p["_id"]) for p in Post._get_collection().find({"by.id": "shop"})}
    assert ids[:3] == [str(hot.id), str(warm.id), str(old.id)]
    assert set(ids[3:]) == {str(by_hater.id), str(by_noisy.id)} | staff_posts
    visitors_people = people_in(page, "explore-people")
    assert visitors_people and not {"mod", "shop", "quiet", "fan0"} & set(visitors_people)
    assert 'href="/accounts/login/?next=/explore/"' in section(page, "explore-people")
    assert 'action="/u/' not in section(page, "explore-people")

    page = login(reader.reload()).get("/explore/").content.decode()
    shown_to_reader = ARTICLE.findall(section(page, "explore-posts"))
    assert shown_to_reader[:3] == [str(hot.id), str(warm.id), str(old.id)]
    assert not {str(by_hater.id), str(by_noisy.id)} & set(shown_to_reader)
    # pal sees ada's circle post on her wall, never on Explore.
    assert str(circle.id) not in ARTICLE.findall(login(pal).get("/explore/").content.decode())
    # People: bob's follows first (cyd; never quiet, who has no posts, nor mod), never hater.
    suggested = people_in(page, "explore-people")
    assert suggested[0] == "cyd" and not {"quiet", "mod", "shop", "hater", "bob"} & set(suggested)
    assert quiet.reload().posts_count == 0
    assert 'action="/u/cyd/follow/"' in page and 'name="next" value="/explore/"' in page
    assert "trend" in section(page, "explore")  # the trending tags are still there


def test_the_landing_page_shows_real_public_posts_and_who_wrote_them(client, make_user):
    ada, bob, cat = make_user("ada"), make_user("bob"), make_user("cat")
    make_user("quiet")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=cat, followee="ada")
    graph.circle_create(owner=bob.reload(), name="close")
    post(ada, "Ada's first")
    newest = post(ada, "Ada's latest")
    bobs = post(bob.reload(), "Bob's public")
    post(bob.reload(), "Circle secret", circles=["close"])
    post(cat, "Cat on Ada's wall", to="ada")  # on someone else's wall: not a landing post
    mod = make_user("mod", role="moderator")
    for staff in (mod, make_user("shop", role="advertiser")):
        post(staff, "Staff news")
    post(make_user("eve"), "Suspended news")
    moderation.user_suspend(moderator=mod, target=resolve_target("user:eve"), reason="spam")
    page = client.get("/").content.decode()
    assert ARTICLE.findall(section(page, "landing-posts")) == [str(bobs.id), str(newest.id)]
    never = ("Circle secret", "Staff news", "Suspended news", "@eve", "@quiet", "@mod")
    assert [text for text in never if text in page] == []
    aside = re.search(r'<aside class="card landing-people".*?</aside>', page, re.S).group(0)
    assert re.findall(r'data-handle="([^"]+)"', aside) == ["bob", "ada"]
    assert "2 followers" in aside
    assert 'href="/explore/"' in page


@pytest.mark.parametrize("signed_in", [False, True])
def test_explore_and_the_landing_page_have_round_trip_budgets(
    signed_in, make_user, login, round_trips
):
    """Whatever the window holds, a bounded number of reads. `/explore/`: the
    trends (ranked by the page here: no job ran, 2), the window, the shown
    posts and the people who post (`users`); signed in, also the session,
    who among the shown authors blocked the reader, the reader's likes, and
    `people_to_follow`'s graph (2) and recent posts. `/`: the newest public
    posts and their authors."""
    fans = [make_user(f"fan{n}") for n in range(3)]
    authors = [make_user(f"au{n}") for n in range(8)]
    for n, author in enumerate(authors):
        graph.follow_create(follower=fans[0], followee=author.handle)
        react(post(author, f"Post {n} #bread"), fans[: 1 + n % 3])
    post(fans[1], "Someone to suggest")
    client = login(fans[0].reload()) if signed_in else Client()
    client.get("/explore/")  # warm: the session's first read
    with round_trips() as trips:
        page = client.get("/explore/").content.decode()
    assert len(ARTICLE.findall(section(page, "explore-posts"))) == 8
    assert people_in(page, "explore-people")
    assert trips.total <= (11 if signed_in else 5), [(t.name, t.collection) for t in trips.trips]
    if not signed_in:
        with round_trips() as trips:
            page = client.get("/").content.decode()
        assert len(ARTICLE.findall(page)) == 4
        assert trips.total <= 2, [(t.name, t.collection) for t in trips.trips]
