"""The exact probes of issue 9's "Never a 500" list, sent over HTTP.

A cross-check of the fixes, whoever owns them: each probe is the request that
was a 500, and each test says what the page must answer instead (404 for a
forged page cursor, the form again with its error for bad form input). The
timeline cursors run under every feed model and the comment cursors under
every comment store, since each decodes its own.
"""

import pytest
from django.test import Client

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.documents import User
from socialsite.cursors import Cursor
from tests.conftest import PASSWORD
from tests.hostile.values import OID, comment_cursor

NOT_FOUND = (400, 404)  # the issue allows either for a forged cursor

FEED_MODELS = ["cache", "month", "size", "read"]
COMMENT_STORES = ["documents", "embedded", "buckets"]

# Each of these can only be refused: int() cannot read "²", and a datetime
# ends in year 9999.
TIMELINE_CURSORS = [
    f"999999999999999_{OID}",  # year ~33658
    f"{'9' * 30}_{OID}",
    f"²_{OID}",  # str.isdigit() accepts it, int() refuses it
    f"2²_{OID}",
    "1_zz",
]
# int() reads these ("٣" is 3): refusing them is stricter, reading them is
# no bug. Either way, never a 500.
READABLE_DIGITS = ["٣", "𝟘", "１２"]


# The chronological ("oldest") cursor is "c|<milliseconds>|<comment id>".
COMMENT_CURSORS = [
    comment_cursor("c", f"99999999999999999999|{OID}"),
    comment_cursor("c", f"999999999999999|{OID}"),
    comment_cursor("c", f"-99999999999999999|{OID}"),
    comment_cursor("c", f"²|{OID}"),
    comment_cursor("c", f"{'9' * 5000}|{OID}"),
    comment_cursor("o", "²"),
    comment_cursor("o", "9" * 30),
]


@pytest.fixture
def cast(make_user):
    """Ada posts; Bob follows her and posts on her wall; Mo moderates."""
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    mod = make_user("mod", "Mo Derator", role="moderator")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=ada, followee="bob")
    posts = [
        feeds.post_create(author=ada, type="status", detail={"text": f"n{i}"}, circles=[PUBLIC])
        for i in range(3)
    ]
    feeds.post_create(author=bob, type="status", detail={"text": "hi"}, circles=[PUBLIC], to="ada")
    return ada, bob, mod, posts


@pytest.fixture
def post_with_thread(cast):
    ada, bob, _, posts = cast
    doc = Post._get_collection().find_one({"_id": posts[0].id})
    first = comments.comment_create(post=doc, author=bob, text="first")
    comments.comment_create(post=doc, author=ada, text="second")
    return posts[0], first


# --- timeline cursors -------------------------------------------------------------


@pytest.mark.parametrize("model", FEED_MODELS)
@pytest.mark.parametrize("page", ["/feed/", "/u/ada/", "/incoming/"])
def test_timeline_cursors_out_of_range_or_in_unicode_digits_are_404(
    cast, login, settings, model, page
):
    settings.FEED_MODEL = model
    settings.FEED_PAGE_SIZE = 2
    client = login(cast[0], raise_request_exception=False)
    answers = {raw: client.get(page, {"before": raw}).status_code for raw in TIMELINE_CURSORS}
    assert {raw: code for raw, code in answers.items() if code not in NOT_FOUND} == {}
    for digits in READABLE_DIGITS:
        raw = f"{digits}_{OID}"
        assert client.get(page, {"before": raw}).status_code in (200, *NOT_FOUND), raw
    # The control: a cursor the site made still pages.
    newest = cast[3][-1]
    real = Cursor(newest.ts, newest.id).encode()
    assert client.get(page, {"before": real}).status_code == 200


# --- comment-thread cursors ----------------------------------------------------------


@pytest.mark.parametrize("store", COMMENT_STORES)
@pytest.mark.parametrize("direction", ["after", "before"])
def test_comment_cursors_with_huge_or_unicode_milliseconds_are_404(
    post_with_thread, login, cast, settings, store, direction
):
    settings.COMMENTS_STORE = store
    post, first = post_with_thread
    client = login(cast[1], raise_request_exception=False)
    pages = [f"/posts/{post.id}/", f"/posts/{post.id}/c/{first.slug}/"]
    answers = {
        (page, raw): client.get(page, {"order": "oldest", direction: raw}).status_code
        for page in pages
        for raw in COMMENT_CURSORS
    }
    assert {key: code for key, code in answers.items() if code not in NOT_FOUND} == {}
    for digits in READABLE_DIGITS:
        raw = comment_cursor("c", f"{digits}|{OID}")
        code = client.get(pages[0], {"order": "oldest", direction: raw}).status_code
        assert code in (200, *NOT_FOUND), digits
    assert client.get(pages[0], {"order": "oldest"}).status_code == 200


# --- ?skip= on the moderation pages ----------------------------------------------------


@pytest.mark.parametrize("page", ["/mod/reports/", "/mod/users/", "/mod/log/"])
@pytest.mark.parametrize("skip", ["²", "٣", "𝟘", "9" * 30, "9" * 5000, "-1"])
def test_a_unicode_digit_or_huge_skip_on_the_moderation_pages_is_no_500(cast, login, page, skip):
    client = login(cast[2], raise_request_exception=False)
    assert client.get(page, {"skip": skip}).status_code in (200, 400, 404)


# --- a link post to "http://[::1" ------------------------------------------------------


@pytest.mark.parametrize("url", ["http://[::1", "https://[::1/x", "http://[", "[::1"])
def test_a_link_with_an_unclosed_ipv6_bracket_rerenders_the_form(cast, login, url):
    client = login(cast[0], raise_request_exception=False)
    before = Post.objects.count()
    response = client.post("/posts/", {"type": "link", "url": url, "text": "see"})
    assert response.status_code == 400
    assert "errorlist" in response.content.decode()
    assert Post.objects.count() == before


# --- POSTing the edit form of a poll -----------------------------------------------------


def test_posting_the_edit_form_of_a_poll_is_no_500_and_changes_nothing(cast, login):
    ada = cast[0]
    poll = feeds.post_create(
        author=ada,
        type="poll",
        detail={"question": "Tea?", "options": ["yes", "no"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    client = login(ada, raise_request_exception=False)
    response = client.post(
        f"/posts/{poll.id}/edit/", {"text": "Coffee?", "title": "x", "options": "a\nb"}
    )
    assert response.status_code in (200, 400)
    stored = Post._get_collection().find_one({"_id": poll.id})["detail"]
    assert (stored["question"], stored["options"]) == ("Tea?", ["yes", "no"])


# --- passwords like the handle or the name ------------------------------------------------


@pytest.mark.parametrize("password", ["margaret1", "margaretham", "Hamilton1", "MargaretH"])
def test_signup_with_a_password_like_the_handle_or_name_rerenders_the_form(password):
    client = Client(raise_request_exception=False)
    response = client.post(
        "/accounts/signup/",
        {
            "username": "margaret",
            "name": "Margaret Hamilton",
            "password1": password,
            "password2": password,
        },
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    assert User.objects(handle="margaret").count() == 0


@pytest.mark.parametrize("password", ["adalovelace", "lovelace!!", "Lovelace1", "ada lovelace"])
def test_password_change_to_one_like_the_handle_or_name_rerenders_the_form(cast, login, password):
    ada = cast[0]
    client = login(ada, raise_request_exception=False)
    response = client.post(
        "/settings/password/",
        {"old_password": PASSWORD, "new_password1": password, "new_password2": password},
    )
    assert response.status_code == 200
    assert "errorlist" in response.content.decode()
    # Unchanged: the old password still signs in.
    signed_in = Client().post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert signed_in.status_code == 302
