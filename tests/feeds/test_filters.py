"""Keyword filters (docs/privacy.md#keyword-filters): the matcher, hide and
warn on the pages of each context (news feed, incoming, walls, tag pages,
search, a post's page, notifications), expiry, the "N new posts" count
against the page, keyset paging past hidden posts, and the round trips of a
page with filters."""

import re
from datetime import timedelta

import pytest
from django.test import Client

from feeds.documents import PUBLIC
from feeds.services import posts, reposts
from notifications import services as notifications
from profiles import services as graph
from profiles.filters import CONTEXTS, Filters, KeywordFilter, filters_for
from profiles.services import filters as filter_services
from socialsite import clock
from socialsite.cursors import EPOCH, Cursor
from tests.conftest import user
from tests.notifications.helpers import header_count, listed, unread
from timelines.delivery import pulled as pulling
from timelines.selectors import newposts
from timelines.selectors import pages as selectors

ARTICLE = re.compile(r'<article class="post[^"]*" id="post-([0-9a-f]{24})"')
WARNED = re.compile(
    r'<details class="filtered"[^>]*>\s*<summary><span class="filtered__label">Filtered:</span>'
    r" “([^”]*)”</summary>\s*<article class=\"post[^\"]*\" id=\"post-([0-9a-f]{24})\"",
    re.S,
)


def say(author: str, text: str, circles=(PUBLIC,), **fields):
    return posts.post_create(
        author=user(author), type="status", detail={"text": text}, circles=list(circles), **fields
    )


def add_filter(handle: str, phrase: str, contexts, action: str, expires_in=None):
    return filter_services.keyword_filter_create(
        user=user(handle),
        phrase=phrase,
        contexts=list(contexts),
        action=action,
        expires_in=expires_in,
    )


def page_of(client, url: str) -> tuple[list[str], dict[str, str]]:
    """The page's post ids in order, and which are folded under which phrase."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    html = response.content.decode()
    return ARTICLE.findall(html), {post: phrase for phrase, post in WARNED.findall(html)}


def one(*phrases_actions) -> Filters:
    return Filters(
        KeywordFilter(str(i), phrase, CONTEXTS, action, None)
        for i, (phrase, action) in enumerate(phrases_actions)
    )


# --- the matcher ----------------------------------------------------------------


def test_whole_words_in_any_case_never_inside_a_longer_word():
    filters = one(("cat", "warn"))
    assert filters.first_match("A CAT sat") is not None
    assert filters.first_match("cat.") is not None and filters.first_match("(Cat)") is not None
    assert filters.first_match("category", "concatenate", "cats", "bobcat") is None
    assert filters.first_match("cat_food", "cat2") is None  # `_` and digits are word characters
    assert not Filters() and filters and Filters().first_match("cat") is None


def test_unicode_is_folded_on_both_sides():
    # Composed and decomposed accents, full-width letters, ß and its
    # case-folding, and another script.
    assert one(("café", "hide")).first_match("CAFE\u0301 au lait") is not None
    assert one(("cafe", "hide")).first_match("Café") is None  # no accent stripping
    assert one(("ｓｐｏｉｌｅｒ", "hide")).first_match("Spoiler!") is not None
    assert one(("strasse", "hide")).first_match("STRASSE und Straße") is not None
    assert one(("Straße", "hide")).first_match("strasse") is not None
    assert one(("東京", "warn")).first_match("今日は 東京 です") is not None
    assert one(("кот", "warn")).first_match("Котик") is None


def test_a_phrase_of_several_words_matches_them_in_sequence():
    filters = one(("New York", "warn"))
    assert filters.first_match("new  york!") is not None
    assert filters.first_match("NEW\nYORK") is not None
    assert filters.first_match("york new", "new yorker", "renew york") is None
    # Never across two texts of one post (a title ending "new", a text starting "york").
    assert filters.first_match("brand new", "york city") is None


def test_a_hide_match_wins_over_a_warn_match_wherever_it_is():
    filters = one(("york", "warn"), ("new york", "hide"), ("cats", "warn"))
    assert filters.first_match("cats in new york").action == "hide"
    assert filters.first_match("cats in york").phrase == "cats"  # the first warn
    overlapping = one(("new york", "warn"), ("york", "hide"))
    assert overlapping.first_match("new york").action == "hide"


def test_filters_for_keeps_the_live_ones_of_the_context(make_user):
    ada = make_user("ada")
    assert not filters_for(Client().get("/").wsgi_request.user, "home")  # anonymous
    add_filter("ada", "soon gone", ["home"], "hide", timedelta(hours=1))
    add_filter("ada", "kept", ["home", "thread"], "warn")
    ada = user("ada")
    assert [f.phrase for f in filters_for(ada, "home").filters] == ["soon gone", "kept"]
    assert [f.phrase for f in filters_for(ada, "thread").filters] == ["kept"]
    assert not filters_for(ada, "public")
    with pytest.raises(ValueError):
        filters_for(ada, "everywhere")


# --- hide and warn on each context ---------------------------------------------


@pytest.fixture
def world(make_user):
    """reader follows ann; ann and bob post public posts, one of each kind a
    filter judges; bob's are on the tag page and in search."""
    for handle in ("reader", "ann", "bob"):
        make_user(handle)
    graph.follow_create(follower=user("reader"), followee="ann")
    made = {
        "plain": say("ann", "An ordinary day #garden"),
        "hidden": say("ann", "Big SPOILER for the finale #garden"),
        "warned": say("ann", "Photos of cats #garden"),
    }
    # A content warning is one of the texts a filter matches; so is a poll's option.
    made["in_cw"] = posts.post_create(
        author=user("ann"),
        type="status",
        detail={"text": "behind a warning #garden", "cw": "finale spoiler"},
        circles=[PUBLIC],
    )
    made["poll"] = posts.post_create(
        author=user("ann"),
        type="poll",
        detail={"question": "Best pet? #garden", "options": ["Cats", "Dogs"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    return {name: str(p.id) for name, p in made.items()}


def expect(world, shown, folded, *, hide=True, warn=True):
    """The context's page shows the unfiltered posts as they are, leaves out
    the hidden ones and folds the warned ones under their phrase."""
    gone = {world["hidden"], world["in_cw"]} if hide else set()
    assert world["plain"] in shown
    assert not gone & set(shown), "a hidden post is on the page"
    if warn:
        assert folded == {world["warned"]: "Cats", world["poll"]: "Cats"}
    else:
        assert folded == {}
    if not hide:
        assert {world["hidden"], world["in_cw"]} <= set(shown)


def set_filters(handle: str, context: str) -> None:
    add_filter(handle, "spoiler", [context], "hide")
    add_filter(handle, "Cats", [context], "warn")


def test_home_hides_and_warns_on_the_feed_only(world, login):
    set_filters("reader", "home")
    client = login(user("reader"))
    expect(world, *page_of(client, "/feed/"))
    # The other contexts' pages are left alone.
    expect(world, *page_of(client, "/u/ann/"), hide=False, warn=False)
    expect(world, *page_of(client, "/tags/garden/"), hide=False, warn=False)


def test_home_hides_and_warns_on_the_incoming_page(world, login):
    for text in ("a spoiler on your wall", "cats on your wall", "hello on your wall"):
        say("bob", text, to="reader")
    set_filters("reader", "home")
    html = login(user("reader")).get("/incoming/").content.decode()
    assert "hello on your wall" in html and "a spoiler on your wall" not in html
    assert [phrase for phrase, _ in WARNED.findall(html)] == ["Cats"]


def test_public_hides_and_warns_on_walls_tags_and_search(world, login):
    set_filters("reader", "public")
    client = login(user("reader"))
    for url in ("/u/ann/", "/tags/garden/", "/search/?q=garden"):
        expect(world, *page_of(client, url))
    expect(world, *page_of(client, "/feed/"), hide=False, warn=False)
    # Nobody else's pages change: an anonymous visitor, another reader.
    expect(world, *page_of(Client(), "/tags/garden/"), hide=False, warn=False)
    expect(world, *page_of(login(user("bob")), "/u/ann/"), hide=False, warn=False)


def test_thread_warns_on_a_post_page_and_hides_it_behind_a_notice(world, login):
    set_filters("reader", "thread")
    client = login(user("reader"))
    shown, folded = page_of(client, f"/posts/{world['warned']}/")
    assert shown == [world["warned"]] and folded == {world["warned"]: "Cats"}
    response = client.get(f"/posts/{world['hidden']}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert ARTICLE.findall(html) == [] and 'class="card filtered-notice"' in html
    assert "hidden by your keyword filter “spoiler”" in html
    shown, folded = page_of(client, f"/posts/{world['plain']}/")
    assert shown == [world["plain"]] and folded == {}
    # Feeds are not a thread.
    expect(world, *page_of(client, "/feed/"), hide=False, warn=False)


def test_notifications_hide_and_warn_by_the_post_they_are_about(world, login):
    for text in ("spoiler: @reader", "cats for @reader", "hi @reader"):
        say("bob", text)
    assert unread("reader") == 3
    set_filters("reader", "notifications")
    # Adding the filter recounted the header's number to what the page lists.
    assert unread("reader") == 2
    html = login(user("reader")).get("/feed/").content.decode()
    assert header_count(html) == 2
    items = listed(login(user("reader")).get("/notifications/").content.decode())
    # Newest first: "hi", then "cats" folded; the spoiler's is gone.
    assert [item["kind"] for item in items] == ["mention", "mention"]
    assert "filtered" not in items[0]["body"] and "hi @reader" in items[0]["text"]
    assert 'class="filtered"' in items[1]["body"] and "Filtered: “Cats”" in items[1]["text"]
    # A new one about a hidden post is stored, never counted.
    say("bob", "another SPOILER @reader")
    assert unread("reader") == 0
    notifications.notify(recipient="reader", kind="mention", actor="bob", post_id=world["hidden"])
    assert unread("reader") == 0


def test_the_readers_own_posts_pass_their_filters(world, login):
    """As Mastodon's: a filter sets aside others' words, never one's own."""
    mine = str(say("reader", "my own spoiler about cats").id)
    for context in ("home", "public", "thread"):
        set_filters("reader", context)
    client = login(user("reader"))
    for url in ("/feed/", "/u/reader/", f"/posts/{mine}/"):
        shown, folded = page_of(client, url)
        assert mine in shown and mine not in folded, url
    # The same post by someone else is set aside.
    theirs = str(say("ann", "my own spoiler about cats").id)
    assert theirs not in page_of(client, "/u/ann/")[0]


# --- expiry ----------------------------------------------------------------------


def test_an_expired_filter_stops_applying(world, login, monkeypatch):
    add_filter("reader", "spoiler", CONTEXTS, "hide", timedelta(hours=1))
    add_filter("reader", "Cats", CONTEXTS, "warn", timedelta(days=1))
    client = login(user("reader"))
    expect(world, *page_of(client, "/feed/"))
    later = clock.now() + timedelta(hours=2)
    monkeypatch.setattr(clock, "now", lambda: later)
    for url in ("/feed/", "/u/ann/", "/tags/garden/"):
        shown, folded = page_of(client, url)
        assert world["hidden"] in shown and folded[world["warned"]] == "Cats"
    assert page_of(client, f"/posts/{world['hidden']}/")[0] == [world["hidden"]]
    assert newposts.new_posts(user("reader"), newposts.EMPTY_FEED).count == len(world)
    monkeypatch.setattr(clock, "now", lambda: later + timedelta(days=1))
    assert page_of(client, "/feed/")[1] == {}


# --- "N new posts" agrees with the page -------------------------------------------


def place(post: dict) -> tuple:
    return tuple(post.get("_at") or (post["ts"], post["_id"]))


def shown_above(handle: str, since: str) -> list[str]:
    cursor = Cursor.decode(since)
    page = selectors.news_page(user(handle)).posts
    return [p["detail"].get("text") for p in page if place(p) > (cursor.ts, cursor.id)]


def test_the_new_posts_count_agrees_with_the_page_under_a_hide_filter(model, make_user):
    """Under every model: a followed author's posts, a pulled author's, a
    followed tag's and reposts, with the hidden ones left out of both."""
    for handle in ("reader", "ann", "bob", "star", "gus"):
        make_user(handle)
    for followee in ("ann", "star", "gus"):
        graph.follow_create(follower=user("reader"), followee=followee)
    pulling.mark("star", since=EPOCH)
    from timelines.selectors import pulled

    pulled.forget()
    from profiles.services import tags

    tags.tag_follow_create(user=user("reader"), tag="bread")
    say("ann", "the page's first")
    since = newposts.since_of(selectors.news_page(user("reader")).posts)
    add_filter("reader", "spoiler", ["home"], "hide")
    add_filter("reader", "cats", ["home"], "warn")

    say("ann", "a SPOILER from ann")
    say("ann", "cats from ann")  # warned: still a post the page shows
    say("ann", "plain from ann")
    say("star", "spoiler from a pulled author")
    say("star", "plain from a pulled author")
    say("bob", "spoiler with #bread")
    say("bob", "plain #bread")
    hidden_original = say("bob", "a spoiler reposted")
    reposts.repost_create(post_id=hidden_original.id, user=user("gus"))
    shown_original = say("bob", "a plain one reposted")
    reposts.repost_create(post_id=shown_original.id, user=user("gus"))
    poll = posts.post_create(
        author=user("ann"),
        type="poll",
        detail={"question": "Which?", "options": ["spoiler", "none"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    assert poll

    above = shown_above("reader", since)
    assert not any("spoiler" in (text or "").lower() for text in above)
    found = newposts.new_posts(user("reader"), Cursor.decode(since))
    assert found == newposts.NewPosts(5, False)  # the poll hides by its option
    assert found.count == len(above)


@pytest.mark.parametrize("model", ["cache", "month", "size", "read"])
@pytest.mark.parametrize("embed", [False, True])
def test_the_count_costs_the_same_round_trips_with_filters(model, embed, settings, make_user):
    settings.FEED_MODEL, settings.FEED_EMBED = model, embed
    for handle in ("reader", "ann", "bob", "gus"):
        make_user(handle)
    for followee in ("ann", "gus"):
        graph.follow_create(follower=user("reader"), followee=followee)
    say("ann", "first")
    since = Cursor.decode(newposts.since_of(selectors.news_page(user("reader")).posts))
    say("ann", "a spoiler")
    say("ann", "plain")
    reposts.repost_create(post_id=say("bob", "spoiler reposted").id, user=user("gus"))
    from socialsite import roundtrips

    with roundtrips.count() as before:
        unfiltered = newposts.new_posts(user("reader"), since)
    add_filter("reader", "spoiler", ["home"], "hide")
    with roundtrips.count() as after:
        filtered = newposts.new_posts(user("reader"), since)
    assert (unfiltered.count, filtered.count) == (3, 1)
    assert after.commands == before.commands


# --- paging past hidden posts, and the page's round trips ------------------------------


@pytest.mark.parametrize("model", ["cache", "read"])
def test_news_pages_move_past_hidden_posts_without_gaps_or_repeats(
    model, settings, make_user, login
):
    settings.FEED_MODEL, settings.FEED_PAGE_SIZE = model, 3
    for handle in ("reader", "ann"):
        make_user(handle)
    graph.follow_create(follower=user("reader"), followee="ann")
    start = clock.now() - timedelta(hours=1)
    made = [
        say("ann", f"{'spoiler' if n % 3 else 'fine'} {n}", ts=start + timedelta(minutes=n))
        for n in range(12)
    ]
    add_filter("reader", "spoiler", ["home"], "hide")
    client = login(user("reader"))
    seen, url = [], "/feed/"
    while url:
        html = client.get(url).content.decode()
        seen += ARTICLE.findall(html)
        found = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html)
        url = found.group(1).replace("&amp;", "&") if found else None
    assert seen == [str(p.id) for p in reversed(made) if p.detail["text"].startswith("fine")]


def test_tag_pages_move_past_hidden_posts(settings, make_user, login):
    settings.FEED_PAGE_SIZE = 2
    for handle in ("reader", "ann"):
        make_user(handle)
    start = clock.now() - timedelta(hours=1)
    made = [
        say("ann", f"{'spoiler' if n < 4 else 'fine'} {n} #bread", ts=start + timedelta(minutes=n))
        for n in range(7)
    ]
    add_filter("reader", "spoiler", ["public"], "hide")
    client = login(user("reader"))
    seen, url = [], "/tags/bread/"
    while url:
        html = client.get(url).content.decode()
        seen += ARTICLE.findall(html)
        found = re.search(r'<a rel="next"[^>]*href="([^"]+)"', html)
        url = found.group(1).replace("&amp;", "&") if found else None
    assert seen == [str(p.id) for p in reversed(made[4:])]


@pytest.mark.parametrize("path", ["/feed/", "/u/reader/", "/incoming/", "/u/ann/"])
def test_filters_cost_a_page_no_round_trip(path, settings, make_user, login, round_trips):
    settings.FEED_MODEL, settings.FEED_EMBED = "cache", False
    settings.LAST_SEEN_RESOLUTION = 24 * 3600
    for handle in ("reader", "ann"):
        make_user(handle)
    graph.follow_create(follower=user("reader"), followee="ann")
    for n in range(4):
        say("ann", f"spoiler {n}")
        say("ann", f"cats {n}", to="reader")
        say("reader", f"my cats {n}")
    client = login(user("reader"))
    client.get(path)  # the fragment cache and the session settle
    with round_trips() as before:
        assert client.get(path).status_code == 200
    for context in CONTEXTS:
        add_filter("reader", f"spoiler{context}", [context], "hide")
    set_filters("reader", "home")
    set_filters("reader", "public")
    with round_trips() as after:
        html = client.get(path).content.decode()
    assert 'class="filtered"' in html
    assert after.commands == before.commands and after.total <= 2, after.commands
