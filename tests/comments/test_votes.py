"""Comment votes and the ranked orders
(docs/discovery.md#comment-votes-and-ranked-orders): one vote per person
however many requests race, counts kept in step in every store, `best`
(Wilson lower bound) and `top` read in index order with keyset pages,
folding at a score of -4, and who may not vote."""

import io
import re
import threading
from datetime import timedelta

import pytest
from bson import ObjectId
from django.core.management import call_command

from comments import ranking, selectors, services, votes
from comments.documents import CommentDocument, CommentVote
from comments.stores import get_store
from comments.stores.shadows import write_stores
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.services import circles
from profiles.services import filters as keyword_filters
from socialsite import clock

STORES = ["documents", "embedded", "buckets"]

# Computed by hand, not with comments/ranking.py: the lower root of
# (1 + z²/n)·p² - (2p̂ + z²/n)·p + p̂² = 0, z = 1.96, to four places.
WILSON_BY_HAND = [
    # (ups, downs, lower bound)
    (0, 0, 0.0),
    (1, 0, 0.2065),
    (2, 0, 0.3424),
    (5, 0, 0.5655),
    (10, 0, 0.7225),
    (4, 1, 0.3755),
    (9, 1, 0.5958),
    (3, 3, 0.1876),
    (40, 10, 0.6696),
    (60, 40, 0.5020),
    (100, 60, 0.5479),
    (0, 5, 0.0),
]


@pytest.fixture(params=STORES)
def store_name(request, settings):
    settings.COMMENTS_STORE = request.param
    return request.param


@pytest.fixture
def cast(make_user):
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    cyd = make_user("cyd", "Cyd Charisse")
    return ada, bob, cyd


def make_post(author, text="Hello") -> dict:
    post = feeds.post_create(author=author, type="status", detail={"text": text}, circles=[PUBLIC])
    return Post._get_collection().find_one({"_id": post.id})


def say(post, author, text, parent=None):
    return services.comment_create(post=post, author=author, text=text, parent_slug=parent)


def vote(post, slug, voter, direction):
    return votes.comment_vote(post=post, slug=slug, voter=voter, direction=direction)


def counts(post, slug) -> tuple[int, int]:
    comment = get_store().get(post["_id"], slug)
    return comment.ups, comment.downs


@pytest.mark.parametrize("ups, downs, expected", WILSON_BY_HAND)
def test_wilson_lower_bound_matches_the_table_computed_by_hand(ups, downs, expected):
    assert ranking.wilson_lower_bound(ups, downs) == pytest.approx(expected, abs=5e-5)


def test_twenty_parallel_votes_by_one_person_count_once(cast, store_name):
    ada, bob, _ = cast
    post = make_post(ada)
    c = say(post, ada, "vote on me")
    start = threading.Barrier(20)
    failures, changed = [], []

    def worker(n):
        start.wait()
        try:
            changed.append(vote(post, c.slug, bob, "up").changed)
        except Exception as exc:  # surfaced below: a thread's exception is otherwise lost
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert changed.count(True) == 1
    assert CommentVote.objects(voter="bob").count() == 1
    # Every store the write reaches counts it once (the demo keeps shadows).
    assert counts(post, c.slug) == (1, 0)


def test_racing_changes_of_one_vote_leave_counts_equal_to_the_vote(cast, settings):
    """Up, down and none in parallel by one person, then by two: whatever
    order they land in, the counts are what the votes say."""
    settings.COMMENTS_SHADOW_STORES = "all"
    ada, bob, cyd = cast
    post = make_post(ada)
    c = say(post, ada, "contested")
    turns = [(p, d) for p in (bob, cyd) for d in ("up", "down", "none", "up", "down") * 3]
    start = threading.Barrier(len(turns))
    failures = []

    def worker(person, direction):
        start.wait()
        try:
            vote(post, c.slug, person, direction)
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=turn) for turn in turns]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    held = {v.voter: v.dir for v in CommentVote.objects(discussion_id=post["_id"])}
    expected = (list(held.values()).count(1), list(held.values()).count(-1))
    for store in write_stores():
        got = store.get(post["_id"], c.slug)
        assert (got.ups, got.downs) == expected, store.name
    assert CommentVote.objects(pending__exists=True).count() == 0


def test_up_down_and_back_and_the_stored_ranks(cast, store_name):
    ada, bob, cyd = cast
    post = make_post(ada)
    c = say(post, ada, "hello")
    vote(post, c.slug, bob, "up")
    vote(post, c.slug, cyd, "up")
    assert counts(post, c.slug) == (2, 0)
    vote(post, c.slug, cyd, "down")
    assert counts(post, c.slug) == (1, 1)
    assert vote(post, c.slug, cyd, "down").changed is False
    vote(post, c.slug, bob, "none")
    assert counts(post, c.slug) == (0, 1)
    assert vote(post, c.slug, bob, "none").changed is False
    assert CommentVote.objects(voter="bob").count() == 0
    if store_name == "documents":
        doc = CommentDocument.objects.get(slug=c.slug)
        assert (doc.score, doc.best) == (-1, 0.0)
        vote(post, c.slug, cyd, "up")
        doc.reload()
        assert doc.score == 1 and doc.best == pytest.approx(0.2065, abs=5e-5)


def test_who_may_not_vote(cast, make_user, store_name):
    ada, bob, cyd = cast
    post = make_post(ada)
    mine = say(post, bob, "bob's")
    with pytest.raises(services.CommentRefused, match="your own comment"):
        vote(post, mine.slug, bob, "up")
    # Across a block, either way: the post's author or the comment's.
    graph.block_create(blocker=bob, blocked="cyd")
    with pytest.raises(services.CommentRefused, match="can't vote on @bob's comments"):
        vote(post, mine.slug, cyd.reload(), "up")
    cyds = say(post, cyd, "cyd's")
    with pytest.raises(services.CommentRefused, match="unblock them to vote"):
        vote(post, cyds.slug, bob.reload(), "down")
    # A deleted comment, and a removed (frozen) post.
    gone = say(post, ada, "soon gone")
    services.comment_delete(post_id=post["_id"], slug=gone.slug, actor=ada)
    with pytest.raises(services.CommentRefused, match="gone"):
        vote(post, gone.slug, bob, "up")
    removed = {**post, "removed": {"by": "mod"}}
    with pytest.raises(services.CommentRefused, match="removed"):
        vote(removed, say(post, ada, "frozen").slug, bob, "up")
    assert CommentVote.objects.count() == 0


def test_best_and_top_rank_top_level_comments_in_index_order(cast, settings):
    settings.COMMENTS_STORE = "documents"
    ada, bob, _ = cast
    post = make_post(ada)
    made = {}
    for ups, downs, _ in WILSON_BY_HAND:
        c = say(post, ada, f"{ups}/{downs}")
        made[(ups, downs)] = c
        get_store().tally(post["_id"], c.slug, ups=ups, downs=downs)
    say(post, bob, "a reply is not ranked", parent=made[(10, 0)].slug)

    def walk(order):
        found, after = [], None
        while True:
            page = get_store().page(post["_id"], order=order, after=after, limit=4)
            found += [c.text for c in page.comments]
            if page.next is None:
                return found
            after = page.next

    # By the hand-computed table, highest first; equal ranks newest first
    # ((0, 5) was written after (0, 0)).
    by_hand = sorted(
        enumerate(WILSON_BY_HAND), key=lambda item: (item[1][2], item[0]), reverse=True
    )
    assert walk("best") == [f"{u}/{d}" for _, (u, d, _) in by_hand]
    by_score = sorted(
        enumerate(WILSON_BY_HAND),
        key=lambda item: (item[1][0] - item[1][1], item[0]),
        reverse=True,
    )
    assert walk("top") == [f"{u}/{d}" for _, (u, d, _) in by_score]
    # Backwards from the last page gives the same comments.
    last = get_store().page(post["_id"], order="best", limit=20)
    assert last.next is None and len(last) == len(WILSON_BY_HAND)


def test_ranked_pages_are_index_served_and_offered_only_by_the_documents_store(
    cast, settings, round_trips
):
    ada, bob, _ = cast
    post = make_post(ada)
    top = say(post, ada, "top")
    say(post, bob, "reply", parent=top.slug)
    for name in ("embedded", "buckets"):
        settings.COMMENTS_STORE = name
        thread = selectors.thread(post["_id"], order="best", viewer=bob)
        assert "Best and Top need an index" in thread.notice
        assert thread.order != "best" and not thread.ranked
    settings.COMMENTS_STORE = "documents"
    with round_trips() as counted:
        thread = selectors.thread(post["_id"], order="best", viewer=bob)
    assert [c.text for c in thread.page.comments] == ["top"]
    assert thread.page.comments[0].replies == 1
    assert counted.total <= 3, counted.commands


def test_the_page_shows_scores_votes_and_folds_the_downvoted(cast, login, settings):
    settings.COMMENTS_STORE = "documents"
    ada, bob, _ = cast
    post = make_post(ada)
    liked = say(post, ada, "a fine comment")
    sunk = say(post, ada, "a comment nobody liked")
    say(post, bob, "its reply", parent=liked.slug)
    vote(post, liked.slug, bob, "up")
    get_store().tally(post["_id"], sunk.slug, ups=0, downs=4)
    client = login(bob)
    html = client.get(f"/posts/{post['_id']}/").content.decode()
    assert f'id="c-{liked.slug}" data-score="1"' in html
    assert f'id="c-{sunk.slug}" data-score="-4"' in html
    folded = re.search(
        rf'id="c-{sunk.slug}"[^>]*>\s*<details class="comment-collapsed">(.*?)</details>',
        html,
        re.DOTALL,
    )
    assert folded and "a comment nobody liked" in folded.group(1)
    assert (
        'class="comment-collapsed"'
        not in html.split(f'id="c-{liked.slug}"')[1].split("</article>")[0]
    )
    # Bob's own up vote is pressed; pressing it again takes it back.
    own = html.split(f'id="c-{liked.slug}"')[1].split("</article>")[0]
    assert 'value="none" class="link-button small vote__button" aria-pressed="true"' in own
    # Best: the conversations, each with its replies a link away.
    best = client.get(f"/posts/{post['_id']}/?order=best").content.decode()
    assert best.index(f'id="c-{liked.slug}"') < best.index(f'id="c-{sunk.slug}"')
    assert 'data-replies="1"' in best and "1 reply →" in best
    # The short names of the orders work too.
    new = client.get(f"/posts/{post['_id']}/?order=new").content.decode()
    assert 'aria-current="page">Newest' in new


def test_the_vote_route(cast, login, settings):
    settings.COMMENTS_STORE = "documents"
    ada, bob, _ = cast
    post = make_post(ada)
    c = say(post, ada, "vote here")
    url = f"/posts/{post['_id']}/comments/{c.slug}/vote/"
    client = login(bob)
    response = client.post(url, {"dir": "up"})
    assert response.status_code == 302 and response.url.endswith(f"#c-{c.slug}")
    assert counts(post, c.slug) == (1, 0)
    # Bad input says so and changes nothing.
    for bad in ({"dir": "sideways"}, {}, {"dir": "UP"}):
        client.post(url, bad, follow=True)
    assert counts(post, c.slug) == (1, 0)
    assert "Vote up, down or none." in client.post(url, {"dir": "x"}, follow=True).content.decode()
    assert (
        client.post(f"/posts/{post['_id']}/comments/zzzz/vote/", {"dir": "up"}).status_code == 404
    )
    assert counts(post, c.slug) == (1, 0)
    # Unknown posts are a 404, an anonymous visitor is sent to log in.
    assert (
        login(bob).post(f"/posts/{'0' * 24}/comments/{c.slug}/vote/", {"dir": "up"}).status_code
        == 404
    )
    anonymous = client.__class__()
    assert anonymous.post(url, {"dir": "up"}).status_code == 302
    assert counts(post, c.slug) == (1, 0)


def test_a_vote_on_an_unknown_comment_is_a_404_that_changes_nothing(cast, login, store_name):
    """Issue 32, item 7: an unknown slug was refused like a deleted comment,
    a redirect that followed to a 200. Nothing is there: 404, in every store,
    and no vote document or count comes of it."""
    ada, bob, _ = cast
    post = make_post(ada)
    c = say(post, ada, "vote here")
    reply = say(post, ada, "a reply", parent=c.slug)
    client = login(bob)
    client.post(f"/posts/{post['_id']}/comments/{reply.slug}/vote/", {"dir": "up"})
    before = list(CommentVote._get_collection().find({}, {"_id": 0, "pending": 0, "ts": 0}))
    assert len(before) == 1
    unknown = ["zzzz", f"{c.slug}/zzzz", f"{reply.slug}/zzzz", "zzzz/yyyy"]
    assert all(slug not in (c.slug, reply.slug) for slug in unknown)
    for slug in unknown:
        url = f"/posts/{post['_id']}/comments/{slug}/vote/"
        for direction in ("up", "down", "none"):
            assert client.post(url, {"dir": direction}).status_code == 404, (slug, direction)
    after = list(CommentVote._get_collection().find({}, {"_id": 0, "pending": 0, "ts": 0}))
    assert after == before
    assert counts(post, c.slug) == (0, 0)
    assert counts(post, reply.slug) == (1, 0)
    for slug in unknown:
        assert get_store().get(post["_id"], slug) is None
    # The service says so too, before any refusal (here a frozen post's).
    with pytest.raises(votes.UnknownComment):
        vote({**post, "removed": {"by": "mod"}}, "zzzz", bob, "up")


def test_votes_are_rate_limited(cast, login, settings):
    settings.RATELIMIT_COMMENT_VOTE = "2/300"
    ada, bob, _ = cast
    post = make_post(ada)
    c = say(post, ada, "x")
    client = login(bob)
    url = f"/posts/{post['_id']}/comments/{c.slug}/vote/"
    for direction in ("up", "down"):
        client.post(url, {"dir": direction})
    page = client.post(url, {"dir": "none"}, follow=True).content.decode()
    assert "Too many" in page or "try again" in page.lower()
    assert counts(post, c.slug) == (0, 1)


def test_a_vote_whose_count_died_is_settled_by_the_sweeper(cast, monkeypatch, settings):
    settings.COMMENTS_SHADOW_STORES = "all"
    ada, bob, cyd = cast
    post = make_post(ada)
    c = say(post, ada, "x")
    vote(post, c.slug, cyd, "down")

    def died(*args, **kwargs):
        raise RuntimeError("the worker died between the vote and its count")

    monkeypatch.setattr(votes, "_count", died)
    with pytest.raises(RuntimeError):
        vote(post, c.slug, bob, "up")
    monkeypatch.undo()
    assert counts(post, c.slug) == (0, 1)
    assert votes.votes_settle(older_than_seconds=3600) == 0  # too young to be dead
    # Two seconds later (a token's time is whole seconds), the sweeper's round.
    monkeypatch.setattr(votes, "now", lambda: clock.now() + timedelta(seconds=2))
    out = io.StringIO()
    call_command("redeliver_pending", "--older-than", "0", stdout=out)
    assert "1 comment(s) recounted." in out.getvalue()
    for store in write_stores():
        got = store.get(post["_id"], c.slug)
        assert (got.ups, got.downs) == (1, 1), store.name
    assert CommentVote.objects(pending__exists=True).count() == 0


@pytest.mark.parametrize("landed", ["before_the_write", "after_the_write"])
def test_the_sweeper_never_counts_a_vote_in_flight_twice(cast, monkeypatch, settings, landed):
    """A dead vote's token is swept while another vote of the same comment is
    between its record and its count. Either the recount sees its young
    token and leaves the comment for the next sweep, or its count landed
    first and the recount's conditional write misses: never counted twice."""
    settings.COMMENTS_SHADOW_STORES = "all"
    ada, bob, _ = cast
    post = make_post(ada)
    c = say(post, ada, "x")

    def died(*args, **kwargs):
        raise RuntimeError("the worker died between the vote and its count")

    monkeypatch.setattr(votes, "_count", died)  # bob's count never lands
    with pytest.raises(RuntimeError):
        vote(post, c.slug, bob, "up")
    monkeypatch.undo()
    monkeypatch.setattr(votes, "now", lambda: clock.now() + timedelta(seconds=2))
    # Cyd's vote, recorded now (a young token), its count pending.
    in_flight = votes._record(
        post["_id"], c.slug, "cyd", 1, ObjectId.from_datetime(clock.now() + timedelta(seconds=2))
    )
    assert in_flight == 0
    if landed == "before_the_write":
        assert votes.votes_settle(older_than_seconds=1) == 0  # left for the next sweep
        votes._count(post["_id"], c.slug, ups=1, downs=0)  # cyd's count lands
        votes._settled(post["_id"], c.slug, "cyd", 1, CommentVote.objects.get(voter="cyd").pending)
        assert votes.votes_settle(older_than_seconds=1) == 1
    else:
        real_counted = votes._counted

        def counted_then_cyd_lands(post_id, slug):
            result = real_counted(post_id, slug)  # counts cyd's vote
            votes._count(post_id, slug, ups=1, downs=0)  # then cyd's count lands
            votes._settled(post_id, slug, "cyd", 1, CommentVote.objects.get(voter="cyd").pending)
            return result

        monkeypatch.setattr(votes, "_counted", counted_then_cyd_lands)
        assert votes.votes_settle(older_than_seconds=1) == 0  # the write missed
        monkeypatch.setattr(votes, "_counted", real_counted)
        assert votes.votes_settle(older_than_seconds=1) == 1
    for store in write_stores():
        got = store.get(post["_id"], c.slug)
        assert (got.ups, got.downs) == (2, 0), store.name
    assert CommentVote.objects(pending__exists=True).count() == 0


def test_erasing_a_voter_takes_their_votes_back_and_export_lists_them(cast):
    ada, bob, cyd = cast
    post = make_post(ada)
    first, second = say(post, ada, "one"), say(post, ada, "two")
    vote(post, first.slug, bob, "up")
    vote(post, second.slug, bob, "down")
    vote(post, first.slug, cyd, "up")
    exported = list(votes.votes_export("bob"))
    assert {(row["slug"], row["vote"]) for row in exported} == {
        (first.slug, "up"),
        (second.slug, "down"),
    }
    while votes.votes_erase("bob", 1):
        pass
    assert counts(post, first.slug) == (1, 0) and counts(post, second.slug) == (0, 0)
    assert CommentVote.objects(voter="bob").count() == 0


def test_a_deleted_post_takes_its_votes(cast):
    ada, bob, _ = cast
    post = make_post(ada)
    vote(post, say(post, ada, "x").slug, bob, "up")
    feeds.post_delete(post_id=post["_id"], actor=ada)
    assert CommentVote.objects.count() == 0


# --- keyword filters in threads (docs/privacy.md#keyword-filters) -----------------


def _filter(user, phrase, action, contexts=("thread",), expires_in=None):
    keyword_filters.keyword_filter_create(
        user=user, phrase=phrase, contexts=list(contexts), action=action, expires_in=expires_in
    )
    user.reload()


@pytest.mark.parametrize("name", STORES)
def test_thread_filters_hide_and_fold_comments_but_not_ones_own(cast, login, settings, name):
    settings.COMMENTS_STORE = name
    ada, bob, cyd = cast
    post = make_post(ada)
    spoiler = say(post, bob, "The butler did it, a big SPOILER")
    reply = say(post, cyd, "no way", parent=spoiler.slug)
    warned = say(post, cyd, "I love cats")
    plain = say(post, cyd, "nice post")
    own = say(post, ada, "my own spoiler stays")
    _filter(ada, "spoiler", "hide")
    _filter(ada, "cats", "warn")
    _filter(ada, "nice", "hide", contexts=("home",))  # another context: no effect here
    html = login(ada).get(f"/posts/{post['_id']}/?order=oldest").content.decode()
    assert f'id="c-{spoiler.slug.replace("/", "")}"' not in html and "butler" not in html
    assert f'id="c-{reply.slug.replace("/", "")}"' in html  # its reply stays
    assert f'id="c-{plain.slug}"' in html and f'id="c-{own.slug}"' in html
    folded = html.split(f'id="c-{warned.slug}"')[1].split("</article>")[0]
    assert '<details class="filtered"><summary><span class="filtered__label">Filtered:' in folded
    assert "“cats”" in folded and "I love cats" in folded
    # Nobody else's thread changes: another reader, an anonymous visitor.
    for client in (login(bob), login(cyd).__class__()):
        other = client.get(f"/posts/{post['_id']}/?order=oldest").content.decode()
        assert "butler" in other and 'class="filtered"' not in other
    # The permalink of a hidden comment still shows it, folded.
    linked = login(ada).get(f"/posts/{post['_id']}/c/{spoiler.slug}/").content.decode()
    assert "butler" in linked and "“spoiler”" in linked


def test_an_expired_thread_filter_stops_applying(cast, login, settings, monkeypatch):
    settings.COMMENTS_STORE = "documents"
    ada, bob, _ = cast
    post = make_post(ada)
    say(post, bob, "a spoiler ahead")
    _filter(ada, "spoiler", "hide", expires_in=timedelta(hours=1))
    url = f"/posts/{post['_id']}/"
    assert "a spoiler ahead" not in login(ada).get(url).content.decode()
    later = clock.now() + timedelta(hours=2)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert "a spoiler ahead" in login(ada).get(url).content.decode()


def test_a_former_circle_member_can_no_longer_vote_or_see_scores(cast, login, settings):
    """Visibility is decided when the vote is read (docs/privacy.md): once out
    of the circle, the post is a 404, its comments' votes and scores too."""
    settings.COMMENTS_STORE = "documents"
    ada, bob, cyd = cast
    graph.follow_create(follower=ada, followee="bob")
    circles.circle_create(owner=ada.reload(), name="pals")
    circles.circle_add_member(owner=ada.reload(), name="pals", member="bob")
    made = feeds.post_create(
        author=ada.reload(), type="status", detail={"text": "pals only"}, circles=["pals"]
    )
    post = Post._get_collection().find_one({"_id": made.id})
    c = say(post, ada, "for pals")
    url = f"/posts/{made.id}/comments/{c.slug}/vote/"
    client = login(bob)
    assert client.post(url, {"dir": "up"}).status_code == 302
    assert counts(post, c.slug) == (1, 0)
    circles.circle_remove_member(owner=ada.reload(), name="pals", member="bob")
    assert client.post(url, {"dir": "none"}).status_code == 404
    assert client.get(f"/posts/{made.id}/").status_code == 404
    assert login(cyd).post(url, {"dir": "down"}).status_code == 404
    assert counts(post, c.slug) == (1, 0)


def test_a_count_below_zero_for_a_moment_ranks_as_none():
    """Racing votes can land a "none" before the "up" it takes back."""
    assert ranking.wilson_lower_bound(-1, 0) == 0.0
    assert ranking.wilson_lower_bound(2, -1) == pytest.approx(0.3424, abs=5e-5)
