"""Two people use Socialsite from an app, end to end, through Mastodon.py
(docs/api.md): what issue 36 asks a client to be able to do, in the order
a person would, each step read back the way an app reads it. The detailed
behaviour of each endpoint is in the other modules of tests/api."""

import io

from PIL import Image

from tests.api.conftest import logged_in
from tests.conftest import login_client


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (30, 120, 200)).save(out, "PNG")
    return out.getvalue()


def test_two_people_use_socialsite_from_an_app(ann_web, bob, make_user):
    make_user("cyd", name="Cyd Charisse")
    ann = logged_in(ann_web)  # through the consent page, as an app logs in
    bob_app = logged_in(login_client(bob))
    assert ann.account_verify_credentials().acct == "ann"

    # Follow, both ways.
    assert ann.account_follow("bob").following is True
    bob_app.account_follow("ann")

    # Bob posts: text with a tag, a content warning, a poll, a photo with alt text.
    hello = bob_app.status_post("Fresh #sourdough today")
    warned = bob_app.status_post("The ending of the film", spoiler_text="film spoilers")
    poll = bob_app.status_post(
        "Rye or wheat?", poll=bob_app.make_poll(["rye", "wheat"], expires_in=3600)
    )
    media = bob_app.media_post(io.BytesIO(_png()), mime_type="image/png", description="A loaf")
    photo = bob_app.status_post("The loaf", media_ids=[media])
    assert warned.spoiler_text == "film spoilers"
    assert photo.media_attachments[0].description == "A loaf"
    assert [o.title for o in poll.poll.options] == ["rye", "wheat"]

    # Ann reads her home timeline, newest first, a page at a time.
    page = ann.timeline_home(limit=2)
    assert [s.id for s in page] == [photo.id, poll.id]
    older = ann.fetch_next(page)
    assert [s.id for s in older] == [warned.id, hello.id]
    # A new post arrives while she reads: the way back up finds it, and
    # nothing is lost or shown twice.
    late = bob_app.status_post("One more thing")
    newer = ann.fetch_previous(page)
    assert [s.id for s in newer] == [late.id]

    # The public and tag timelines.
    assert hello.id in [s.id for s in ann.timeline_public()]
    assert [s.id for s in ann.timeline_hashtag("sourdough")] == [hello.id]

    # Interactions: vote, reply, favourite, reblog, bookmark.
    ann.poll_vote(poll.poll.id, [0])
    reply = ann.status_reply(hello, "Looks great")
    assert reply.in_reply_to_id == hello.id
    assert [s.id for s in ann.status_context(hello).descendants] == [reply.id]
    assert ann.status_favourite(hello).favourited is True
    assert ann.status_reblog(photo).reblogged is True
    assert ann.status_bookmark(warned).bookmarked is True
    assert [s.id for s in ann.bookmarks()] == [warned.id]
    assert [s.id for s in ann.favourites()] == [hello.id]

    # Bob's notifications tell him about it.
    kinds = {(n.type, n.account.acct) for n in bob_app.notifications()}
    assert {("follow", "ann"), ("favourite", "ann"), ("reblog", "ann")} <= kinds

    # Bob pins, edits and deletes his own posts.
    assert bob_app.status_pin(hello).pinned is True
    assert [s.id for s in bob_app.account_statuses("bob", pinned=True)] == [hello.id]
    edited = bob_app.status_update(late.id, "One more thing, edited")
    assert "edited" in edited.content and edited.edited_at is not None
    bob_app.status_delete(late.id)
    assert late.id not in [s.id for s in ann.timeline_home()]

    # Search, and a tag to follow.
    found = ann.search_v2("sourdough")
    assert hello.id in [s.id for s in found.statuses]
    assert "sourdough" in [t.name for t in found.hashtags]
    assert ann.tag_follow("sourdough").following is True
    assert [t.name for t in ann.followed_tags()] == ["sourdough"]

    # A list (a circle) with Bob in it, and its timeline.
    friends = ann.list_create("Friends")
    ann.list_accounts_add(friends, ["bob"])
    assert [a.acct for a in ann.list_accounts(friends)] == ["bob"]
    assert hello.id in [s.id for s in ann.timeline_list(friends)]

    # A message, through conversations.
    ann.status_post("@bob see you Sunday?", visibility="direct")
    conversation = bob_app.conversations()[0]
    assert conversation.unread is True and "Sunday" in conversation.last_status.content
    assert [a.acct for a in conversation.accounts] == ["ann"]

    # Mute, block, unfollow: Bob is gone from Ann's home.
    assert ann.account_mute("bob").muting is True
    assert ann.timeline_home() == []
    ann.account_unmute("bob")
    assert ann.account_block("bob").blocking is True
    assert ann.timeline_home() == []
    ann.account_unblock("bob")
    assert ann.account_unfollow("bob").following is False
