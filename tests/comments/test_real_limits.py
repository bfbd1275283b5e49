"""The embedded store within MongoDB's document limits (issue 10, item 4):
a byte budget well under 16 MB and a reply depth well under 100 levels of
nesting, refused with a clear message (never a 500), and replies past the
display depth behind "Continue this thread" (docs/performance.md)."""

import re
import threading
from html import unescape

import bson
import pytest

from comments import services
from comments.documents import CommentBudget
from comments.stores import DiscussionFull, ReplyTooDeep, budget, get_store
from comments.stores.embedded import DEPTH_CEILING, MAX_NESTING, nesting
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feeds
from tests.comments.helpers import ALICE, new_discussion

STORES = ["documents", "embedded", "buckets"]
ONE_COMMENT = "x" * 100  # every comment in these tests costs the same


@pytest.fixture
def embedded(settings):
    settings.COMMENTS_STORE = "embedded"
    return get_store("embedded")


def nesting_of(value) -> int:
    """Levels of nested documents and arrays, as MongoDB counts them (the
    document itself is level 1)."""
    if isinstance(value, dict):
        return 1 + max((nesting_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((nesting_of(v) for v in value), default=0)
    return 0


def raw_post(discussion_id) -> dict:
    return Post._get_collection().find_one({"_id": discussion_id})


def arrays_size(doc: dict) -> int:
    """BSON bytes of the post's comment arrays."""
    arrays = {"comments": doc.get("comments") or [], "comment_tree": doc.get("comment_tree") or []}
    return len(bson.encode(arrays))


def one_cost(store, discussion_id) -> int:
    """What one ONE_COMMENT costs the budget: post one and read the count."""
    before = budget.used(discussion_id)
    store.post(discussion_id, author=ALICE, text=ONE_COMMENT)
    return budget.used(discussion_id) - before


# --- the byte budget ----------------------------------------------------------


def test_the_budget_bounds_the_real_size_of_the_comments(embedded):
    d = new_discussion()
    made = []
    for i in range(40):
        parent = made[i // 3].slug if i >= 3 and i % 2 else None
        text = ("ünïcødé ✓ " * (i % 7)) + str(i)
        made.append(embedded.post(d, author=ALICE, text=text, parent_slug=parent))
    embedded.edit(d, made[5].slug, text="a much longer text than before " * 20)
    embedded.edit(d, made[6].slug, text="short")
    embedded.soft_delete(d, made[7].slug, by="author")
    real = arrays_size(raw_post(d))
    counted = budget.used(d)
    # An upper bound (the arrays' own headers aside), and a close one.
    assert counted >= real - 64
    assert counted <= real + 2 * budget.ELEMENT_OVERHEAD * len(made)


def test_a_comment_past_the_budget_is_refused_and_nothing_changes(embedded, settings):
    d = new_discussion()
    cost = one_cost(embedded, d)
    settings.COMMENTS_EMBEDDED_MAX_BYTES = 3 * cost
    embedded.post(d, author=ALICE, text=ONE_COMMENT)
    top = embedded.post(d, author=ALICE, text=ONE_COMMENT)
    before = raw_post(d)
    with pytest.raises(DiscussionFull):
        embedded.post(d, author=ALICE, text=ONE_COMMENT)
    with pytest.raises(DiscussionFull):
        embedded.post(d, author=ALICE, text=ONE_COMMENT, parent_slug=top.slug)
    assert raw_post(d) == before
    assert budget.used(d) == 3 * cost <= settings.COMMENTS_EMBEDDED_MAX_BYTES
    assert embedded.count(d) == 3


def test_a_longer_edit_past_the_budget_is_refused(embedded, settings):
    d = new_discussion()
    c = embedded.post(d, author=ALICE, text="short")
    settings.COMMENTS_EMBEDDED_MAX_BYTES = budget.used(d) + 100
    assert embedded.edit(d, c.slug, text="still short")  # grows by a few bytes
    with pytest.raises(DiscussionFull):
        embedded.edit(d, c.slug, text="y" * 500)
    assert embedded.get(d, c.slug).text == "still short"
    assert embedded.edit(d, c.slug, text="tiny")  # shrinking always fits


def test_racing_writers_never_pass_the_budget(embedded, settings):
    d = new_discussion()
    cost = one_cost(embedded, d)
    fits = 12
    settings.COMMENTS_EMBEDDED_MAX_BYTES = fits * cost + cost // 2
    refused = []

    def write():
        for _ in range(5):
            try:
                embedded.post(d, author=ALICE, text=ONE_COMMENT)
            except DiscussionFull:
                refused.append(1)

    threads = [threading.Thread(target=write) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert embedded.count(d) == fits
    assert len(refused) == 6 * 5 - (fits - 1)
    assert budget.used(d) == fits * cost <= settings.COMMENTS_EMBEDDED_MAX_BYTES
    assert arrays_size(raw_post(d)) <= settings.COMMENTS_EMBEDDED_MAX_BYTES


def test_a_missing_post_gives_its_reservation_back(embedded):
    d = new_discussion()
    embedded.post(d, author=ALICE, text="one")
    used = budget.used(d)
    Post._get_collection().delete_one({"_id": d})
    with pytest.raises(LookupError):
        embedded.post(d, author=ALICE, text="two")
    assert budget.used(d) == used


def test_deleting_the_discussion_drops_its_budget(embedded):
    d = new_discussion()
    embedded.post(d, author=ALICE, text="one")
    embedded.delete_discussion(d)
    assert CommentBudget._get_collection().count_documents({"_id": d}) == 0


# --- the nesting depth ---------------------------------------------------------


def chain(store, d, depth: int) -> list:
    made = [store.post(d, author=ALICE, text="0")]
    for i in range(depth):
        made.append(store.post(d, author=ALICE, text=str(i + 1), parent_slug=made[-1].slug))
    return made


def test_the_embedded_nesting_per_level_is_what_the_store_counts(embedded):
    d = new_discussion()
    for depth in range(4):
        chain(embedded, d, depth)
        assert nesting_of(raw_post(d)) == nesting(depth)


@pytest.mark.parametrize("asked", [40, 1000])
def test_the_deepest_embedded_reply_stays_well_under_100_levels(embedded, settings, asked):
    settings.COMMENTS_MAX_STORED_DEPTH = asked
    deepest = min(asked, DEPTH_CEILING)
    assert embedded.max_stored_depth == deepest
    d = new_discussion()
    made = chain(embedded, d, deepest)
    assert made[-1].depth == deepest
    assert nesting_of(raw_post(d)) == nesting(deepest) <= MAX_NESTING - 10
    with pytest.raises(ReplyTooDeep):
        embedded.post(d, author=ALICE, text="too deep", parent_slug=made[-1].slug)
    assert nesting_of(raw_post(d)) == nesting(deepest)


@pytest.mark.parametrize("name", STORES)
def test_every_store_refuses_replies_past_the_stored_depth(settings, name):
    settings.COMMENTS_MAX_STORED_DEPTH = 3
    store, d = get_store(name), new_discussion()
    made = chain(store, d, 3)
    with pytest.raises(ReplyTooDeep):
        store.post(d, author=ALICE, text="too deep", parent_slug=made[-1].slug)
    assert store.count(d) == 4


# --- through the views: a clear message, never a 500 ----------------------------


def make_post(author) -> str:
    post = feeds.post_create(author=author, type="status", detail={"text": "hi"}, circles=[PUBLIC])
    return str(post.id)


def errors_in(html: str) -> list[str]:
    return [unescape(e) for e in re.findall(r'<ul class="errorlist[^"]*"><li>(.*?)</li>', html)]


def test_the_view_says_the_discussion_is_full(embedded, settings, make_user, login):
    ada = make_user("ada")
    post_id = make_post(ada)
    client = login(ada)
    assert client.post(f"/posts/{post_id}/comments/", {"text": ONE_COMMENT}).status_code == 302
    settings.COMMENTS_EMBEDDED_MAX_BYTES = budget.used(post_id_oid(post_id)) + 10
    response = client.post(f"/posts/{post_id}/comments/", {"text": ONE_COMMENT})
    assert response.status_code == 409
    assert errors_in(response.content.decode()) == [services.FULL]
    assert get_store().count(post_id_oid(post_id)) == 1


def post_id_oid(post_id: str):
    return bson.ObjectId(post_id)


@pytest.mark.parametrize("name", ["documents", "embedded"])
def test_deep_replies_continue_elsewhere_and_stop_with_a_message(settings, make_user, login, name):
    settings.COMMENTS_STORE = name
    settings.COMMENTS_MAX_DEPTH, settings.COMMENTS_MAX_STORED_DEPTH = 2, 4
    ada = make_user("ada")
    post_id = make_post(ada)
    made = chain(get_store(), post_id_oid(post_id), 4)
    client = login(ada)

    page = client.get(f"/posts/{post_id}/").content.decode()
    shown = re.findall(r'data-slug="([a-z0-9/]+)"', page)
    assert shown == [c.slug for c in made[:3]]  # depths 0-2 inline
    link = f"/posts/{post_id}/c/{made[2].slug}/"
    assert f'href="{link}">Continue this thread' in page

    deeper = client.get(link).content.decode()
    assert re.findall(r'data-slug="([a-z0-9/]+)"', deeper) == [c.slug for c in made[2:]]
    # No Reply form on the deepest comment stored; one on each above it.
    assert deeper.count("<summary>Reply</summary>") == 2
    assert f'name="parent" value="{made[4].slug}"' not in deeper

    response = client.post(
        f"/posts/{post_id}/comments/", {"text": "deeper", "parent": made[4].slug}
    )
    assert response.status_code == 409
    assert errors_in(response.content.decode()) == [services.TOO_DEEP]
    assert get_store().count(post_id_oid(post_id)) == 5


def test_an_edit_past_the_budget_is_a_message(embedded, settings, make_user, login):
    ada = make_user("ada")
    post_id = make_post(ada)
    client = login(ada)
    client.post(f"/posts/{post_id}/comments/", {"text": "short"})
    [c] = get_store().page(post_id_oid(post_id), order="oldest").comments
    settings.COMMENTS_EMBEDDED_MAX_BYTES = budget.used(post_id_oid(post_id)) + 10
    response = client.post(
        f"/posts/{post_id}/comments/{c.slug}/edit/", {"text": "z" * 300}, follow=True
    )
    assert response.status_code == 200
    assert services.FULL_EDIT in unescape(response.content.decode())
    assert get_store().get(post_id_oid(post_id), c.slug).text == "short"
