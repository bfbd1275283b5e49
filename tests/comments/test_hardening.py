"""Issue 9, the comment thread: blocks hide in both directions, a removed
post's thread is frozen, a moderator's restore brings back only what the
moderator removed, post authors keep their threads clean, hostile cursors are
404s, the permalink marks its comment, the order switcher offers only what
the store can give, and comment edits have a rate limit."""

import base64
import re
from html import unescape

import pytest
from bson import ObjectId

from comments import selectors, services
from comments.stores import InvalidCursor, cursors, get_store
from comments.stores.base import BLOCKED_TEXT, TOMBSTONES
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from moderation.documents import AuditEntry
from profiles import services as graph

STORES = ["documents", "embedded", "buckets"]
SECRET = "words of the blocked person"
REPLY = "a reply from a bystander"


@pytest.fixture(params=STORES)
def store_name(request, settings):
    settings.COMMENTS_STORE = request.param
    return request.param


@pytest.fixture
def cast(make_user):
    """Ada blocked Mallory; Bob is a bystander whose posts both can read; Mo moderates."""
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    mal = make_user("mallory", "Mallory Quux")
    mod = make_user("mod", "Mo Derator", role="moderator")
    graph.block_create(blocker=ada, blocked="mallory")
    ada.reload()
    return ada, bob, mal, mod


def make_post(author, text="Hello") -> dict:
    post = feeds.post_create(author=author, type="status", detail={"text": text}, circles=[PUBLIC])
    return Post._get_collection().find_one({"_id": post.id})


def comment(post, author, text, parent=None):
    return services.comment_create(post=post, author=author, text=text, parent_slug=parent)


def texts_in(html: str) -> list[str]:
    return [unescape(t) for t in re.findall(r'<p class="comment__text[^"]*">(.*?)</p>', html)]


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def stored(post_id, slug):
    return get_store().get(post_id, slug)


def forge(kind: str, value: str) -> str:
    """A cursor of the stores' own encoding with an arbitrary value."""
    return base64.urlsafe_b64encode(f"{kind}|{value}".encode()).decode().rstrip("=")


# --- 1. blocks hide in both directions ----------------------------------------------------


def test_blocker_sees_no_comments_by_the_blocked_on_thread_and_permalink(cast, login, store_name):
    ada, bob, mal, _ = cast
    post = make_post(bob)
    theirs = comment(post, mal, SECRET)
    reply = comment(post, bob, REPLY, parent=theirs.slug)
    deeper = comment(post, bob, "deeper still", parent=reply.slug)
    order = "oldest" if store_name == "buckets" else "threaded"
    client = login(ada)

    html = page(client, f"/posts/{post['_id']}/?order={order}")
    assert SECRET not in html and "Mallory" not in html and "/u/mallory/" not in html
    assert texts_in(html) == [BLOCKED_TEXT, REPLY, "deeper still"]  # replies stay in place
    assert f'data-slug="{theirs.slug}"' in html

    # The permalink of the blocked person's comment: placeholder, replies shown.
    html = page(client, f"/posts/{post['_id']}/c/{theirs.slug}/")
    assert SECRET not in html and "Mallory" not in html
    assert texts_in(html) == [BLOCKED_TEXT, REPLY, "deeper still"]
    # ... and of a reply below it: the parent chain hides it too.
    html = page(client, f"/posts/{post['_id']}/c/{deeper.slug}/")
    assert SECRET not in html and "Mallory" not in html
    assert '<span class="placeholder">[hidden]</span>' in html

    # Everyone else still reads it.
    for reader in (login(bob), login(mal)):
        assert SECRET in page(reader, f"/posts/{post['_id']}/?order={order}")
        assert SECRET in page(reader, f"/posts/{post['_id']}/c/{theirs.slug}/")


def test_hiding_the_blocked_costs_no_round_trip(cast, settings, round_trips):
    settings.COMMENTS_STORE = "documents"
    ada, bob, mal, _ = cast
    post = make_post(bob)
    comment(post, mal, SECRET)
    comment(post, bob, REPLY)
    with round_trips() as counted:
        thread = selectors.thread(post["_id"], order="threaded", viewer=ada)
    assert thread.blocked_authors == {"mallory"}
    # docs/performance.md: a thread page is at most 2, and one more for the
    # signed-in viewer's own votes on its comments.
    assert counted.total <= 3, counted.commands


def test_no_comments_or_replies_across_a_block(cast, login, store_name):
    ada, bob, mal, _ = cast
    adas, mals, bobs = make_post(ada), make_post(mal), make_post(bob)
    on_bobs_by_ada = comment(bobs, ada, "Ada on Bob's post")
    on_bobs_by_mal = comment(bobs, mal, "Mallory on Bob's post")

    # The blocked person comments neither on the blocker's posts nor under her comments.
    with pytest.raises(services.CommentRefused, match="You can't comment on @ada's posts"):
        comment(adas, mal, "let me in")
    with pytest.raises(services.CommentRefused, match="You can't reply to @ada"):
        comment(bobs, mal, "psst", parent=on_bobs_by_ada.slug)
    response = login(mal).post(
        f"/posts/{bobs['_id']}/comments/", {"text": "psst", "parent": on_bobs_by_ada.slug}
    )
    assert response.status_code == 403 and "reply to @ada" in response.content.decode()

    # Nor does the blocker, the other way round.
    with pytest.raises(services.CommentRefused, match="You blocked @mallory"):
        comment(mals, ada, "hello?")
    with pytest.raises(services.CommentRefused, match="You blocked @mallory"):
        comment(bobs, ada, "answering", parent=on_bobs_by_mal.slug)

    # A bystander replies to both; the blocked person still comments elsewhere.
    comment(bobs, bob, "to Ada", parent=on_bobs_by_ada.slug)
    comment(bobs, bob, "to Mallory", parent=on_bobs_by_mal.slug)
    comment(bobs, mal, "Mallory again")
    assert get_store().count(adas["_id"]) == 0 and get_store().count(mals["_id"]) == 0
    assert get_store().count(bobs["_id"]) == 5


def test_the_blocked_cannot_edit_an_older_comment_on_the_blockers_post(cast, store_name):
    ada, _, mal, _ = cast
    adas = make_post(ada)
    # Posted before the block (straight into the store, as the block came later).
    old = get_store().post(adas["_id"], author={"id": "mallory", "name": "Mallory"}, text="old")
    with pytest.raises(services.CommentRefused, match="You can't comment on @ada's posts"):
        services.comment_edit(post_id=adas["_id"], slug=old.slug, actor=mal, text="new")
    assert stored(adas["_id"], old.slug).text == "old"
    # Deleting it is still theirs to do.
    assert services.comment_delete(post_id=adas["_id"], slug=old.slug, actor=mal) == "author"


# --- 2. removed means frozen ----------------------------------------------------------


def remove_post(post_id):
    Post._get_collection().update_one(
        {"_id": post_id}, {"$set": {"removed": {"by": "mod", "reason": "test"}}}
    )


def test_nothing_changes_in_the_thread_of_a_removed_post(cast, login, store_name):
    ada, bob, _, mod = cast
    post = make_post(ada)
    bobs = comment(post, bob, "before the removal")
    adas = comment(post, ada, "mine")
    remove_post(post["_id"])
    removed = Post._get_collection().find_one({"_id": post["_id"]})

    frozen = "removed by a moderator"
    with pytest.raises(services.CommentRefused, match=frozen):
        services.comment_edit(post_id=post["_id"], slug=bobs.slug, actor=bob, text="sneaky")
    with pytest.raises(services.CommentRefused, match=frozen):
        services.comment_delete(post_id=post["_id"], slug=bobs.slug, actor=bob)
    with pytest.raises(services.CommentRefused, match=frozen):
        services.comment_delete(post_id=post["_id"], slug=bobs.slug, actor=ada)  # post author
    with pytest.raises(services.CommentRefused, match=frozen):
        comment(removed, bob, "new")
    with pytest.raises(services.CommentRefused, match=frozen):
        comment(removed, mod, "a moderator's reply", parent=bobs.slug)

    # Through the pages: the edit is refused (or the post is a 404 to its reader).
    client = login(bob)
    response = client.post(f"/posts/{post['_id']}/comments/{bobs.slug}/edit/", {"text": "sneaky"})
    assert response.status_code in (302, 404)
    client.post(f"/posts/{post['_id']}/comments/{adas.slug}/delete/")
    login(ada).post(f"/posts/{post['_id']}/comments/{adas.slug}/delete/")
    assert stored(post["_id"], bobs.slug).text == "before the removal"
    assert not stored(post["_id"], bobs.slug).edited
    assert not stored(post["_id"], adas.slug).deleted
    # A moderator still reads the thread, without the controls that would be refused.
    html = page(login(mod), f"/posts/{post['_id']}/")
    assert "before the removal" in html and "<summary>Reply</summary>" not in html
    assert 'name="text"' not in html

    # Restored, the thread is as it was.
    Post._get_collection().update_one({"_id": post["_id"]}, {"$unset": {"removed": ""}})
    assert "before the removal" in page(client, f"/posts/{post['_id']}/")


# --- 3. a restore restores only what the moderator removed --------------------------------


def test_remove_restore_author_deletes_restore_stays_deleted(cast, login, store_name):
    _, bob, _, mod = cast
    post = make_post(bob)
    c = comment(post, bob, "first words")
    moderator = login(mod)
    key = f"comment:{post['_id']}/{c.slug}"

    moderator.post("/mod/act/", {"key": key, "action": "remove", "reason": "rude"})
    assert stored(post["_id"], c.slug).deleted_by == "moderator"
    moderator.post("/mod/act/", {"key": key, "action": "restore"})
    assert stored(post["_id"], c.slug).text == "first words"

    services.comment_delete(post_id=post["_id"], slug=c.slug, actor=bob)
    response = moderator.post("/mod/act/", {"key": key, "action": "restore"})
    assert "Only a comment a moderator removed" in page(moderator, response["Location"])

    after = stored(post["_id"], c.slug)
    assert after.deleted_by == "author" and after.text == ""
    html = page(login(bob), f"/posts/{post['_id']}/")
    assert "first words" not in html and TOMBSTONES["author"] in texts_in(html)
    assert [e.action for e in AuditEntry.objects.order_by("ts")] == [
        "comment.remove",
        "comment.restore",
    ]


@pytest.mark.parametrize("by", ["author", "post_author"])
def test_store_restore_matches_only_a_moderators_removal(store_name, by, cast):
    _, bob, _, _ = cast
    post = make_post(bob)
    store = get_store()
    c = store.post(post["_id"], author={"id": "bob", "name": "Bob"}, text="words")
    assert not store.restore(post["_id"], c.slug, text="words")  # not deleted at all
    assert store.soft_delete(post["_id"], c.slug, by=by)
    assert not store.restore(post["_id"], c.slug, text="words")
    assert store.get(post["_id"], c.slug).deleted_by == by
    assert store.get(post["_id"], c.slug).text == ""


# --- 4. authors keep their threads clean -----------------------------------------------


def test_the_post_author_deletes_a_comment_and_it_is_logged(cast, login, store_name):
    ada, bob, _, mod = cast
    post = make_post(ada)
    rude = comment(post, bob, "rude remark")
    reply = comment(post, ada, "please don't", parent=rude.slug)
    client = login(ada)

    html = page(client, f"/posts/{post['_id']}/")
    # The control on Bob's comment; her own comment has the ordinary Delete.
    assert html.count("data-post-author-delete") == 1
    assert f'action="/posts/{post["_id"]}/comments/{rude.slug}/delete/"' in html

    response = client.post(f"/posts/{post['_id']}/comments/{rude.slug}/delete/")
    assert response.status_code == 302
    assert response["Location"].endswith("#c-" + rude.slug.replace("/", ""))
    gone = stored(post["_id"], rude.slug)
    assert gone.deleted_by == "post_author" and gone.text == ""

    for reader in (client, login(bob)):
        html = page(reader, f"/posts/{post['_id']}/")
        assert "rude remark" not in html
        assert texts_in(html)[:2] == ["[removed by the author]", "please don't"]
    assert f'data-slug="{reply.slug}"' in html
    # The feed card's last comments say so too.
    shown = Post._get_collection().find_one({"_id": post["_id"]})["comments_shown"]
    assert [s["text"] for s in shown] == ["[removed by the author]", "please don't"]

    [entry] = AuditEntry.objects()
    assert entry.action == services.POST_AUTHOR_DELETE and entry.moderator == "ada"
    assert entry.target_type == "comment" and entry.target_id == f"{post['_id']}/{rude.slug}"
    assert entry.details == {"text": "rude remark", "author": "bob"}

    # Moderators find it in the log.
    moderator = login(mod)
    log = page(moderator, f"/mod/log/?action={services.POST_AUTHOR_DELETE}")
    assert "rude remark" in log or f"{post['_id']}/{rude.slug}" in log
    # A moderator's restore does not undo it: only their own removals.
    key = f"comment:{post['_id']}/{rude.slug}"
    moderator.post("/mod/act/", {"key": key, "action": "restore"})
    assert stored(post["_id"], rude.slug).deleted_by == "post_author"
    # Deleting again is refused politely.
    with pytest.raises(services.CommentRefused, match="gone"):
        services.comment_delete(post_id=post["_id"], slug=rude.slug, actor=ada)


def test_the_post_author_deleting_her_own_comment_is_an_ordinary_delete(cast, store_name):
    ada, *_ = cast
    post = make_post(ada)
    mine = comment(post, ada, "my own")
    assert services.comment_delete(post_id=post["_id"], slug=mine.slug, actor=ada) == "author"
    assert stored(post["_id"], mine.slug).display_text == "[deleted]"
    assert AuditEntry.objects.count() == 0


# --- 5. never a 500 on hostile cursors --------------------------------------------------


HOSTILE = [
    forge("c", f"²|{ObjectId()}"),  # a unicode digit: isdigit() says yes, int() says no
    forge("c", f"٣٤|{ObjectId()}"),
    forge("c", f"9999999999999999|{ObjectId()}"),  # past the year 9999
    forge("c", f"-9999999999999999|{ObjectId()}"),  # before year 1
    forge("c", f"{'9' * 40}|{ObjectId()}"),
    forge("c", f"12\n|{ObjectId()}"),
    forge("o", "²"),
    forge("o", "٣"),
    forge("o", "9" * 12),  # past the int32 that $slice takes
    forge("o", "-1"),
    forge("t", ""),
]


def test_hostile_cursors_are_invalid_not_errors():
    decoders = {
        "c": cursors.decode_chrono,
        "o": cursors.decode_offset,
        "t": cursors.decode_threaded,
    }
    for cursor in HOSTILE:
        kind = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()[0]
        with pytest.raises(InvalidCursor):
            decoders[kind](cursor)  # its own kind's decoder, not a kind mismatch
    # A sane far-future cursor still decodes (it simply pages past the end).
    assert cursors.decode_chrono(forge("c", f"253402300799000|{ObjectId()}"))[0].year == 9999
    assert cursors.decode_offset(forge("o", "999999999")) == 999999999


def test_hostile_comment_cursors_are_404(cast, login, store_name):
    _, bob, *_ = cast
    post = make_post(bob)
    c = comment(post, bob, "x")
    client = login(bob)
    for cursor in HOSTILE:
        for order in ("oldest", "newest", "threaded"):
            for direction in ("after", "before"):
                url = f"/posts/{post['_id']}/?order={order}&{direction}={cursor}"
                assert client.get(url).status_code == 404, url
        url = f"/posts/{post['_id']}/c/{c.slug}/?after={cursor}"
        assert client.get(url).status_code in (200, 404), url  # threaded: any text orders


# --- 6. the permalink marks its comment ---------------------------------------------------


def test_permalink_marks_the_comment_and_does_not_repeat_the_preview(cast, login, store_name):
    ada, bob, *_ = cast
    post = make_post(ada)
    top = comment(post, bob, "the top")
    linked = comment(post, ada, "the linked one", parent=top.slug)
    comment(post, bob, "below it", parent=linked.slug)
    assert Post._get_collection().find_one({"_id": post["_id"]})["comments_shown"]
    client = login(bob)

    html = page(client, f"/posts/{post['_id']}/c/{linked.slug}/")
    marked = re.findall(r'<article class="comment" data-slug="([a-z0-9/]+)"[^>]*data-linked', html)
    assert marked == [linked.slug]
    assert f'id="c-{linked.slug.replace("/", "")}"' in html
    assert "post__last-comments" not in html  # the thread is right there
    # Links to a comment's permalink scroll to it.
    anchor = "c-" + linked.slug.replace("/", "")
    assert f'href="/posts/{post["_id"]}/c/{linked.slug}/#{anchor}"' in html
    # The post page marks nothing.
    assert "data-linked" not in page(client, f"/posts/{post['_id']}/")


# --- 7. only the orders the store can give -----------------------------------------------


@pytest.mark.parametrize(
    "name, offered",
    [
        ("buckets", ["Newest", "Oldest"]),
        ("embedded", ["Threaded", "Newest", "Oldest"]),
        ("documents", ["Threaded", "Best", "Top", "Newest", "Oldest"]),
    ],
)
def test_the_order_switcher_offers_what_the_store_supports(cast, login, settings, name, offered):
    settings.COMMENTS_STORE = name
    _, bob, *_ = cast
    post = make_post(bob)
    comment(post, bob, "x")
    html = page(login(bob), f"/posts/{post['_id']}/")
    switcher = re.search(r'aria-label="Order">(.*?)</nav>', html, re.DOTALL)
    assert re.findall(r">(\w+)</a>", switcher.group(1)) == offered
    default = "Oldest" if name == "buckets" else "Threaded"
    assert 'aria-current="page">' + default in switcher.group(1)


# --- 8. comment edits have a rate limit ------------------------------------------------


def test_comment_edits_are_rate_limited_per_user(cast, login, settings):
    settings.RATELIMIT_COMMENT_EDIT = "2/300"
    ada, bob, *_ = cast
    post = make_post(ada)
    c = comment(post, bob, "v0")
    client = login(bob)
    url = f"/posts/{post['_id']}/comments/{c.slug}/edit/"
    for text in ("v1", "v2"):
        assert client.post(url, {"text": text}).status_code == 302
    response = client.post(url, {"text": "v3"})
    assert "Too many attempts" in page(client, response["Location"])
    assert stored(post["_id"], c.slug).text == "v2"
    # Per user: Ada may still edit hers.
    mine = comment(post, ada, "a0")
    login(ada).post(f"/posts/{post['_id']}/comments/{mine.slug}/edit/", {"text": "a1"})
    assert stored(post["_id"], mine.slug).text == "a1"
