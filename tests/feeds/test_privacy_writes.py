"""Writes that privacy rules refuse (docs/privacy.md) and the abuse limits on
them: no vote across a block, nothing in a removed post changes, and votes
and edits are rate limited per user."""

import pytest

from feeds.documents import PUBLIC, PollVote, Post
from feeds.services import polls
from feeds.services import posts as services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from tests.conftest import user


def new_poll(author: User, circles=(PUBLIC,)) -> Post:
    return services.post_create(
        author=author,
        type="poll",
        detail={"question": "Tea or coffee?", "options": ["Tea", "Coffee"], "votes": [0, 0]},
        circles=list(circles),
    )


def new_status(author: User, text="first words") -> Post:
    return services.post_create(
        author=author, type="status", detail={"text": text}, circles=[PUBLIC]
    )


def counts(post) -> list[int]:
    return Post._get_collection().find_one({"_id": post.id})["detail"]["votes"]


def votes(post) -> dict:
    return {v.voter: v.option for v in PollVote.objects(post=post.id)}


def messages_of(client, response) -> str:
    return client.get(response["Location"]).content.decode()


# --- no vote across a block


def test_the_blocked_person_cannot_vote_in_the_blockers_poll(model, make_user, login):
    ada, fan = make_user("ada"), make_user("fan")
    graph.follow_create(follower=fan, followee="ada")
    poll = new_poll(ada)
    graph.block_create(blocker=user("ada"), blocked="fan")

    client = login(fan)
    # A public poll: fan still sees it, as anyone signed out would.
    assert client.get(f"/posts/{poll.id}/").status_code == 200
    response = client.post(f"/posts/{poll.id}/vote/", {"option": "1"})
    assert response.status_code == 302
    assert "You can&#x27;t vote in @ada&#x27;s polls." in messages_of(client, response)
    assert votes(poll) == {} and counts(poll) == [0, 0]
    with pytest.raises(polls.PollError):
        services.poll_vote(post_id=poll.id, voter=user("fan"), option=0)
    assert votes(poll) == {} and counts(poll) == [0, 0]

    # Unblocked, the same vote counts.
    graph.block_delete(blocker=user("ada"), blocked="fan")
    client.post(f"/posts/{poll.id}/vote/", {"option": "1"})
    assert votes(poll) == {"fan": 1} and counts(poll) == [0, 1]


def test_nobody_votes_in_the_poll_of_someone_they_blocked(make_user, login):
    ada, fan = make_user("ada"), make_user("fan")
    poll = new_poll(ada)
    graph.block_create(blocker=user("fan"), blocked="ada")
    assert login(fan).post(f"/posts/{poll.id}/vote/", {"option": "0"}).status_code == 404
    with pytest.raises(polls.PollError):
        services.poll_vote(post_id=poll.id, voter=user("fan"), option=0)
    assert votes(poll) == {} and counts(poll) == [0, 0]


# --- removed means frozen


def test_a_removed_post_cannot_be_edited_or_voted_in_and_restores_unchanged(
    model, make_user, login
):
    ada, fan = make_user("ada"), make_user("fan")
    moderator = make_user("mod", role="moderator")
    graph.follow_create(follower=fan, followee="ada")
    status, poll = new_status(ada), new_poll(ada)
    services.poll_vote(post_id=poll.id, voter=user("fan"), option=0)
    before = {p.id: Post._get_collection().find_one({"_id": p.id}) for p in (status, poll)}
    for post in (status, poll):
        moderation.post_remove(moderator=moderator, target=Target("post", str(post.id)))

    author, voter, mod = login(ada), login(fan), login(moderator)
    assert author.get(f"/posts/{status.id}/edit/").status_code == 404
    assert author.post(f"/posts/{status.id}/edit/", {"text": "changed"}).status_code == 404
    with pytest.raises(services.NotFound):
        services.post_edit(post_id=status.id, actor=user("ada"), changes={"text": "changed"})
    assert voter.post(f"/posts/{poll.id}/vote/", {"option": "1"}).status_code == 404
    assert author.post(f"/posts/{poll.id}/vote/", {"option": "1"}).status_code == 404
    # A moderator sees the post, and still cannot vote in it.
    response = mod.post(f"/posts/{poll.id}/vote/", {"option": "1"})
    assert "its poll is closed" in messages_of(mod, response)
    with pytest.raises(polls.PollError, match="removed"):
        services.poll_vote(post_id=poll.id, voter=user("fan"), option=1)

    for post in (status, poll):
        moderation.post_restore(moderator=moderator, target=Target("post", str(post.id)))
    after = {p.id: Post._get_collection().find_one({"_id": p.id}) for p in (status, poll)}
    for post_id, was in before.items():
        assert after[post_id]["detail"] == was["detail"]
        assert after[post_id].get("edited") is None
    assert votes(poll) == {"fan": 0} and counts(poll) == [1, 0]
    feed = voter.get("/feed/").content.decode()
    assert "first words" in feed and "changed" not in feed


def test_a_removal_racing_a_vote_leaves_no_vote_behind(make_user, monkeypatch):
    """The removal lands between the vote's two writes: the count's `$inc`
    carries `removed: None`, misses, and the vote is taken back."""
    ada = make_user("ada")
    make_user("fan")
    moderator = make_user("mod", role="moderator")
    poll = new_poll(ada)
    swap = polls._swap_vote

    def swap_then_remove(post_id, voter, option):
        previous = swap(post_id, voter, option)
        moderation.post_remove(moderator=moderator, target=Target("post", str(post_id)))
        return previous

    monkeypatch.setattr(polls, "_swap_vote", swap_then_remove)
    with pytest.raises(polls.PollError, match="removed"):
        services.poll_vote(post_id=poll.id, voter=user("fan"), option=1)
    assert votes(poll) == {} and counts(poll) == [0, 0]


def test_a_removal_racing_an_edit_wins(make_user, monkeypatch):
    ada = make_user("ada")
    moderator = make_user("mod", role="moderator")
    status = new_status(ada)
    own_post = services._own_post

    def read_then_remove(post_id, actor):
        post = own_post(post_id, actor)
        moderation.post_remove(moderator=moderator, target=Target("post", str(post_id)))
        return post

    monkeypatch.setattr(services, "_own_post", read_then_remove)
    with pytest.raises(services.NotFound):
        services.post_edit(post_id=status.id, actor=user("ada"), changes={"text": "changed"})
    assert Post._get_collection().find_one({"_id": status.id})["detail"]["text"] == "first words"


# --- rate limits


def test_votes_are_rate_limited_per_user(settings, make_user, login):
    settings.RATELIMIT_VOTE = "2/60"
    ada, fan, pal = make_user("ada"), make_user("fan"), make_user("pal")
    poll = new_poll(ada)
    client = login(fan)
    assert client.post(f"/posts/{poll.id}/vote/", {"option": "0"}).status_code == 302
    assert client.post(f"/posts/{poll.id}/vote/", {"option": "1"}).status_code == 302
    response = client.post(f"/posts/{poll.id}/vote/", {"option": "0"})
    assert response.status_code == 429
    assert "Too many attempts" in response.content.decode()
    assert votes(poll) == {"fan": 1} and counts(poll) == [0, 1]
    # Per user: someone else still votes.
    assert login(pal).post(f"/posts/{poll.id}/vote/", {"option": "0"}).status_code == 302
    assert votes(poll) == {"fan": 1, "pal": 0}


def test_post_edits_are_rate_limited_per_user(settings, make_user, login):
    settings.RATELIMIT_POST_EDIT = "1/60"
    ada, bob = make_user("ada"), make_user("bob")
    status, other = new_status(ada), new_status(bob, "bob's words")
    client = login(ada)
    assert client.post(f"/posts/{status.id}/edit/", {"text": "second"}).status_code == 302
    response = client.post(f"/posts/{status.id}/edit/", {"text": "third"})
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many attempts" in page and "third" in page  # the text is kept
    assert Post._get_collection().find_one({"_id": status.id})["detail"]["text"] == "second"
    assert login(bob).post(f"/posts/{other.id}/edit/", {"text": "bob again"}).status_code == 302
