"""Cached post cards and comments (socialsite/fragments.py): a change to a post
shows at once on the next page, and a fragment cached for one viewer never
shows another viewer anything of theirs (docs/privacy.md)."""

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils.timesince import timesince

from comments import services as comments
from feeds.documents import PUBLIC, Post
from feeds.services import posts as services
from profiles import services as graph
from socialsite import clock, fragments
from tests.conftest import user


def status(author, text, circles=(PUBLIC,)) -> Post:
    return services.post_create(
        author=author, type="status", detail={"text": text}, circles=list(circles)
    )


def card_html(html: str, post) -> str:
    """The `<article>` of `post` on a page."""
    match = re.search(rf'<article class="post[^"]*" id="post-{post.id}".*?</article>', html, re.S)
    assert match, f"post {post.id} not on the page"
    return match.group(0)


def page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def cast(make_user):
    ada, bob, cyd = make_user("ada"), make_user("bob"), make_user("cyd")
    for reader in (bob, cyd):
        graph.follow_create(follower=reader, followee="ada")
    return ada, bob, cyd


# --- a change shows at once


def test_an_edit_shows_at_once(cast, login):
    ada, bob, _ = cast
    post = status(ada, "first words")
    reader = login(bob)
    assert "first words" in card_html(page(reader, "/feed/"), post)
    services.post_edit(post_id=post.id, actor=user("ada"), changes={"text": "second words"})
    for path in ("/feed/", f"/posts/{post.id}/", "/u/ada/"):
        card = card_html(page(reader, path), post)
        assert "second words" in card and "first words" not in card
        assert "· edited" in card


def test_a_removal_shows_at_once(cast, login, make_user):
    ada, bob, _ = cast
    mod = make_user("mod", role="moderator")
    post = status(ada, "soon removed")
    moderator = login(mod)
    assert "soon removed" in card_html(page(moderator, f"/posts/{post.id}/"), post)
    act = {"key": f"post:{post.id}", "action": "remove", "reason": "spam"}
    assert moderator.post("/mod/act/", act).status_code == 302
    card = card_html(page(moderator, f"/posts/{post.id}/"), post)
    assert "[removed by a moderator]" in card and "soon removed" not in card
    assert "Restore post" in card
    assert f'data-post-id="{post.id}"' not in page(login(bob), "/feed/")


def test_a_like_by_someone_else_changes_the_count_at_once(cast, login):
    ada, bob, cyd = cast
    post = status(ada, "like me")
    reader = login(bob)
    assert 'data-likes="0"' in card_html(page(reader, "/feed/"), post)
    login(cyd).post(f"/posts/{post.id}/like/")
    card = card_html(page(reader, "/feed/"), post)
    assert 'data-likes="1"' in card and "1 like<" in card
    assert "like--on" not in card  # cyd's like, not bob's


def test_a_poll_vote_changes_the_counts_at_once(cast, login):
    ada, bob, cyd = cast
    poll = services.post_create(
        author=ada,
        type="poll",
        detail={"question": "Tea?", "options": ["Yes", "No"], "votes": [0, 0]},
        circles=[PUBLIC],
    )
    reader = login(bob)
    assert 'data-total="0"' in card_html(page(reader, "/feed/"), poll)
    login(cyd).post(f"/posts/{poll.id}/vote/", {"option": "1"})
    card = card_html(page(reader, "/feed/"), poll)
    assert 'data-total="1"' in card and "poll__option--chosen" not in card
    reader.post(f"/posts/{poll.id}/vote/", {"option": "0"})
    card = card_html(page(reader, "/feed/"), poll)
    assert 'data-total="2"' in card and 'poll__option--chosen" data-option="0"' in card


def test_a_new_comment_preview_shows_at_once(cast, login):
    ada, bob, cyd = cast
    post = status(ada, "talk to me")
    reader = login(bob)
    assert "post__last-comments" not in card_html(page(reader, "/feed/"), post)
    login(cyd).post(f"/posts/{post.id}/comments/", {"text": "hello from cyd"})
    card = card_html(page(reader, "/feed/"), post)
    assert "hello from cyd" in card and "1 comment<" in card


def test_an_edited_comment_shows_at_once_in_the_thread(cast, login):
    ada, bob, cyd = cast
    post = status(ada, "a thread")
    comment = comments.comment_create(
        post=Post._get_collection().find_one({"_id": post.id}), author=cyd, text="draft"
    )
    reader = login(bob)
    assert "draft" in page(reader, f"/posts/{post.id}/")
    comments.comment_edit(post_id=post.id, slug=comment.slug, actor=cyd, text="final")
    thread = page(reader, f"/posts/{post.id}/")
    assert "final" in thread and "draft" not in thread


def test_a_mention_is_resolved_when_the_post_is_written_and_again_when_edited(
    cast, login, make_user
):
    """Pages link the people a text named when it was written, with no lookup
    of their own (docs/performance.md): a later sign-up does not link an old
    mention; an edit resolves the text again."""
    ada, bob, _ = cast
    post = status(ada, "waiting for @dan")
    reader = login(bob)
    assert 'class="mention"' not in card_html(page(reader, "/feed/"), post)
    make_user("dan")
    assert 'class="mention"' not in card_html(page(reader, "/feed/"), post)
    services.post_edit(post_id=post.id, actor=ada, changes={"text": "here is @dan"})
    assert 'href="/u/dan/" class="mention"' in card_html(page(reader, "/feed/"), post)


def test_the_age_moves_on_while_the_card_is_cached(cast, login, monkeypatch):
    ada, bob, _ = cast
    post = status(ada, "timeless")
    reader = login(bob)
    assert "0\xa0minutes ago" in card_html(page(reader, "/feed/"), post)
    later = clock.now() + timedelta(hours=2, minutes=5)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert "2\xa0hours, 5\xa0minutes ago" in card_html(page(reader, "/feed/"), post)


# --- what one viewer's fragment must not tell another


def test_a_viewers_own_state_never_reaches_another_viewer(cast, login):
    ada, bob, cyd = cast
    post = status(ada, "shared")
    liker = login(bob)
    liker.post(f"/posts/{post.id}/like/")
    liker.post(f"/posts/{post.id}/repost/")
    mine = card_html(page(liker, "/feed/"), post)
    assert "like--on" in mine and "Undo repost" in mine
    other = card_html(page(login(cyd), "/feed/"), post)
    assert 'data-likes="1"' in other
    assert "like--on" not in other and "Undo repost" not in other and "bob" not in other
    # The author's menu (edit, delete) is the author's only.
    own = card_html(page(login(ada), "/u/ada/"), post)
    assert "Post actions" in own
    assert "Post actions" not in card_html(page(liker, "/u/ada/"), post)


def test_a_blocked_commenter_stays_hidden_after_another_viewer_saw_the_preview(
    cast, login, make_user
):
    ada, bob, cyd = cast
    eve = make_user("eve")
    post = status(ada, "open thread")
    comments.comment_create(
        post=Post._get_collection().find_one({"_id": post.id}), author=eve, text="eve was here"
    )
    # Bob's page caches the card with eve's preview first.
    assert "eve was here" in card_html(page(login(bob), "/feed/"), post)
    graph.block_create(blocker=user("cyd"), blocked="eve")
    blocker = login(cyd)
    card = card_html(page(blocker, "/feed/"), post)
    assert "eve was here" not in card and "/u/eve/" not in card
    thread = page(blocker, f"/posts/{post.id}/")
    assert "eve was here" not in thread and "Hidden comment" in thread
    assert "eve was here" in page(login(bob), f"/posts/{post.id}/")


def test_circle_names_and_former_members(cast, login):
    ada, bob, cyd = cast
    graph.circle_create(owner=ada, name="close")
    ada = user("ada")
    graph.follow_create(follower=ada, followee="bob", circles=["close"])
    graph.follow_create(follower=ada, followee="cyd", circles=["close"])
    post = status(user("ada"), "for my circle", circles=["close"])
    author_card = card_html(page(login(user("ada")), f"/posts/{post.id}/"), post)
    assert ">close</span>" in author_card
    member = login(bob)
    card = card_html(page(member, f"/posts/{post.id}/"), post)
    assert ">Circles</span>" in card and "close" not in card
    assert "for my circle" in card_html(page(login(cyd), "/feed/"), post)
    graph.circle_remove_member(owner=user("ada"), name="close", member="cyd")
    former = login(cyd)
    assert former.get(f"/posts/{post.id}/").status_code == 404
    assert f'data-post-id="{post.id}"' not in page(former, "/feed/")
    assert "for my circle" in card_html(page(member, "/feed/"), post)


def test_a_comment_authors_controls_stay_theirs(cast, login):
    ada, bob, cyd = cast
    post = status(ada, "controls")
    comments.comment_create(
        post=Post._get_collection().find_one({"_id": post.id}), author=bob, text="bob's comment"
    )
    own = page(login(bob), f"/posts/{post.id}/")
    assert "Edit comment" in own
    other = page(login(cyd), f"/posts/{post.id}/")
    assert "Edit comment" not in other and "Remove from my post" not in other
    assert "Remove from my post" in page(login(user("ada")), f"/posts/{post.id}/")


def test_user_text_cannot_open_a_slot(cast, login):
    ada, bob, _ = cast
    slots = "".join((fragments.CSRF_SLOT, fragments.NEXT_SLOT, fragments.AGE_SLOT))
    post = status(ada, f"try {slots}")
    reader = login(bob)
    card = card_html(page(reader, "/feed/"), post)
    assert "&lt;!--slot:csrf--&gt;" in card
    token = reader.cookies["csrftoken"].value
    text = re.search(r'<p class="post__text">(.*?)</p>', card, re.S).group(1)
    assert token not in text and "/feed/" not in text


def test_the_cached_card_is_the_card_rendered_fresh(cast, login):
    ada, bob, _ = cast
    post = status(ada, "same either way @bob https://example.com/x")
    reader = login(bob)

    def card():  # the CSRF token is masked afresh on every page
        html = card_html(page(reader, "/feed/"), post)
        return re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "TOKEN", html)

    fragments.cache.clear()
    fresh = card()
    assert "TOKEN" in fresh and card() == fresh  # the second from the cache


# --- the age, as Django's `timesince` writes it


def test_age_matches_djangos_timesince():
    rng = random.Random(13)
    now = datetime(2026, 3, 31, 12, 30, 15, 123456, tzinfo=UTC)
    for _ in range(5000):
        seconds = rng.choice(
            [rng.randint(-100, 4000), rng.randint(0, 10**7), rng.randint(0, 10**9)]
        )
        moment = now - timedelta(seconds=seconds, microseconds=rng.randint(0, 999999))
        at = now + timedelta(days=rng.randint(0, 400), seconds=rng.randint(0, 86400))
        assert fragments.age(moment, at) == timesince(moment, at), (moment, at)
