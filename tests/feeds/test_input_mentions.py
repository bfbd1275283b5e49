"""@mentions: only ASCII handles, only people who exist, looked up in one
query per page (issue 9, "Mentions link only existing users")."""

import pytest
from django.core.signals import request_finished, request_started

from comments import services as comments
from feeds import mentions
from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from feeds.templatetags.posts import linkify
from profiles.documents import User
from timelines.delivery import upkeep


@pytest.fixture
def sam(make_user):
    return make_user("sam", name="Sam")


def link(handle: str) -> str:
    return f'<a href="/u/{handle}/" class="mention">@{handle}</a>'


def test_a_mention_of_someone_who_exists_is_a_link(sam):
    assert linkify("hi @sam!") == f"hi {link('sam')}!"
    assert linkify("hi @SAM") == f"hi {link('sam')}"


def test_a_mention_of_nobody_stays_plain_text(sam):
    assert linkify("hi @nobody and @sam") == f"hi @nobody and {link('sam')}"


def test_a_suspended_user_is_not_linked(sam):
    User.objects(handle="sam").update_one(set__status="suspended")
    assert linkify("hi @sam") == "hi @sam"


@pytest.mark.parametrize(
    "text",
    [
        "@\u017fam",  # LATIN SMALL LETTER LONG S: case-folds to "s"
        "@\u212aen",  # KELVIN SIGN: case-folds to "k"
        "@s\u0430m",  # CYRILLIC SMALL LETTER A
        "@\uff53\uff41\uff4d",  # full-width
        "@sam\u0301x",  # a combining mark makes the word go on
        "mail@sam",  # part of a word (an address)
        "@@sam",
    ],
)
def test_only_ascii_handles_standing_alone_are_mentions(make_user, text):
    make_user("sam")
    make_user("ken")
    html = linkify(text)
    assert 'class="mention"' not in html
    assert mentions.handles_in(text) == set()


def test_unicode_case_folding_does_not_make_links_either(make_user):
    make_user("ken")
    assert linkify("https\u017f://ken.example @ken") == f"https\u017f://ken.example {link('ken')}"


def test_a_handle_inside_a_url_is_part_of_the_url(sam):
    html = linkify("see https://example.org/@sam")
    assert 'href="https://example.org/@sam"' in html and 'class="mention"' not in html


def test_text_without_mentions_costs_no_query(round_trips):
    with round_trips() as trips:
        linkify("plain text, an e-mail a@b.example and https://example.org/x")
    assert trips.total == 0


def test_outside_a_request_each_text_is_looked_up_afresh(sam, round_trips):
    mentions.prefetch(["@sam"])  # no request: nothing is cached
    with round_trips() as trips:
        linkify("@sam")
        linkify("@sam")
    assert trips.total == 2


@pytest.fixture
def in_a_request():
    """Between the signals a request sends: what every view runs inside."""
    request_started.send(sender=None)
    yield
    request_finished.send(sender=None)


def test_every_part_of_a_page_announces_its_texts_and_the_page_asks_once(
    make_user, round_trips, in_a_request
):
    for handle in ("amy", "bob"):
        make_user(handle)
    with round_trips() as trips:
        mentions.prefetch(["the cards: @amy", "and @ghost"])
        mentions.prefetch(["a thread: @bob", None, ""])
    assert trips.total == 0  # announcing costs nothing
    with round_trips() as trips:
        assert linkify("@amy") == link("amy")
        assert linkify("@bob @ghost") == f"{link('bob')} @ghost"
        assert linkify("@Amy, @amy") == f"{link('amy')}, {link('amy')}"
    assert trips.total == 1


def test_a_mention_nobody_announced_is_still_looked_up(make_user, round_trips, in_a_request):
    make_user("amy")
    mentions.prefetch(["@ghost"])
    with round_trips() as trips:
        assert linkify("@amy") == link("amy")  # asks for amy and ghost together
        assert linkify("@ghost @amy") == f"@ghost {link('amy')}"
    assert trips.total == 1


def test_nothing_learnt_in_one_request_is_trusted_in_the_next(make_user):
    request_started.send(sender=None)
    assert linkify("@amy") == "@amy"
    request_finished.send(sender=None)
    make_user("amy")
    request_started.send(sender=None)
    assert linkify("@amy") == link("amy")
    request_finished.send(sender=None)


def _feed_round_trips(client, round_trips) -> int:
    with round_trips() as trips:
        response = client.get("/feed/")
    assert response.status_code == 200
    return trips.total


def test_a_feed_page_looks_mentions_up_in_one_query(make_user, login, round_trips):
    author = make_user("author")
    reader = make_user("reader")
    for handle in ("amy", "bo_b", "cy3"):
        make_user(handle)
    client = login(reader)
    from profiles import services as graph

    graph.follow_create(follower=User.objects.get(handle="reader"), followee="author")
    for i in range(6):
        services.post_create(
            author=author, type="status", detail={"text": f"plain {i}"}, circles=[PUBLIC]
        )
    without = _feed_round_trips(client, round_trips)

    texts = ["@amy @bo_b", "@cy3 @ghost1", "@Amy again", "@ghost2", "@bo_b", "x @cy3"]
    for text in texts:
        services.post_create(author=author, type="status", detail={"text": text}, circles=[PUBLIC])
    poll = services.post_create(
        author=author,
        type="poll",
        detail={"question": "@amy or @ghost3?", "options": ["a", "b"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    reader = User.objects.get(handle="reader")
    comments.comment_create(post=poll.to_mongo().to_dict(), author=reader, text="@cy3 @ghost4")
    with_mentions = _feed_round_trips(client, round_trips)
    # Who a text names was stored with it when it was written (the post's
    # `mentions`, the comment preview's), and the viewer's poll vote comes
    # with the timeline's read: the same round trips as plain posts.
    assert with_mentions == without
    # Posts stored before the field existed are looked up as before: every
    # handle on the page in exactly one `$in`.
    posts = Post._get_collection()
    for stored in list(posts.find({}, {"comments_shown": 1})):
        shown = [{k: v for k, v in c.items() if k != "mentions"} for c in stored["comments_shown"]]
        posts.update_one(
            {"_id": stored["_id"]},
            {"$unset": {"mentions": 1}, "$set": {"comments_shown": shown}},
        )
    upkeep.rebuild("reader", "news")  # the copies too
    assert _feed_round_trips(client, round_trips) == without + 1

    html = client.get("/feed/").content.decode()
    for handle in ("amy", "bo_b", "cy3"):
        assert link(handle) in html
    for ghost in ("ghost1", "ghost2", "ghost3", "ghost4"):
        assert f"@{ghost}" in html and f"/u/{ghost}/" not in html
