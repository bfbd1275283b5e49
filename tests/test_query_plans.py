"""Every page's queries are served by an index: no collection scan, no blocking
sort (issue 10, "Slow queries"; docs/performance.md).

mongomock has no planner, so a recorder takes every filter and sort a page
sends, at the collection level, and `tests.plans.check` reads each against
the indexes its collection declares. With MONGODB_TEST_URI set the recorder is
the round-trip command listener instead, and each `find` is also run through
the server's `explain`, which must show no COLLSCAN and no SORT stage.
"""

import html
import re
import time
from datetime import timedelta
from urllib.parse import urljoin

import pyotp
import pytest
from bson import ObjectId
from pymongo.errors import OperationFailure

from comments import services as comment_services
from feeds.documents import PUBLIC, Post
from feeds.services import posts as feed_services
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import FollowingEdge
from socialsite import indexes, mongo
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests import plans
from tests.conftest import PASSWORD
from tests.federation.remote import remote  # noqa: F401 (the fake remote server, a fixture)
from tests.query_recorder import Recorder, install_listener, install_mongomock
from timelines.documents import MonthTimeline, SizeTimeline
from timelines.stores import read
from timelines.stores.base import month_of

# Queries that no index fully serves, each with the reason it is accepted and
# what sends it. Keyed by the application function that sends the query and a
# field of its filter that tells it apart from that function's others ("": its
# every query). No page is here (people search by name was the last, until
# name_terms stored edge n-grams, profiles/services/users.py): only a
# moderator's suspension, as rare as it is, and an operator's commands whose
# job is to visit every document.
SUSPENSION = "POST /mod/users/bob/suspend/"
ALLOWED: dict[tuple[str, str], tuple[str, str]] = {
    ("timelines.stores.base.remove_author_everywhere", "entries.by"): (
        "a suspension takes the author out of every timeline: rare, and an index "
        "on every entry's author would cost every delivery",
        SUSPENSION,
    ),
    ("feeds.services.posts.comments_shown_hide_author", "comments_shown.by.id"): (
        "a suspension hides the author's shown comments on every post: rare, and "
        "an index on them would cost every comment write",
        SUSPENSION,
    ),
    ("feeds.services.posts.comments_shown_truncate", "comments_shown.2"): (
        "truncate_comments trims every post past the limit: a sweep of them all",
        "truncate_comments",
    ),
    ("timelines.stores.base.comments_shown_trim", "entries.post.comments_shown.2"): (
        "truncate_comments trims every timeline's copies past the limit: a sweep",
        "truncate_comments",
    ),
    ("timelines.stores.base.stats", ""): (
        "feed_stats counts every timeline document and entry: a sweep",
        "feed_stats",
    ),
    ("feeds.selectors.delivery.delivery_counts", ""): (
        "feed_stats counts the posts by delivery state: a sweep",
        "feed_stats",
    ),
    ("profiles.selectors.graph.handles_all", ""): (
        "rebuild_feeds --all walks every handle on the _id index, read whole first",
        "rebuild_feeds",
    ),
}
# The driver's own queries, not ours: GridFS asks whether a bucket is empty
# (one document, any) before it makes its indexes, at each file it writes.
DRIVER_INTERNALS = ("gridfs.",)


def _allowed(query: plans.Query) -> bool:
    return any(
        query.caller == caller and (not field or field in query.filter)
        for caller, field in ALLOWED
    )


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder()
    if mongo.is_demo():
        install_mongomock(recorder, monkeypatch)
    else:
        install_listener(recorder, monkeypatch)
    return recorder


def _documents() -> dict:
    return {document._get_collection_name(): document for document in indexes.all_documents()}


def _explained(query: plans.Query) -> list[str]:
    """COLLSCAN/SORT stages (and an open history, plans.HISTORY) in the
    server's plan of a `find` or an `aggregate` (real server only)."""
    if mongo.is_demo() or query.op not in ("find", "aggregate"):
        return []
    if query.op == "aggregate":
        command = {"aggregate": query.collection, "pipeline": query.pipeline or [], "cursor": {}}
    else:
        command = {"find": query.collection, "filter": query.filter}
        if query.sort:
            command["sort"] = dict(query.sort)
        if query.limit:
            command["limit"] = query.limit
    if _NO_PLANNER:
        return []
    try:
        plan = mongo.database().command("explain", command, verbosity="queryPlanner")
    except OperationFailure:
        return []  # a wire server without `explain`: the declared-index check stands
    _, bounds = plans.HISTORY.get(query.collection, ("", ()))
    walked = bool(query.sort) and query.sort[0][0] in bounds
    found = plans.explain_problems(plan, () if walked else bounds)
    if found is None:
        # No MongoDB planner (mongoeco, for finds and aggregates alike): the
        # declared-index check stands alone there, and asking again for each
        # of the hundreds of queries an action sends would only cost time.
        _NO_PLANNER.append(True)
        return []
    return found


#: Set once the server answered `explain` without a MongoDB planner.
_NO_PLANNER: list[bool] = []


def problems(queries: list[plans.Query]) -> list[str]:
    documents = _documents()
    found = []
    for query in queries:
        document = documents.get(query.collection)
        if document is None or _allowed(query) or query.caller.startswith(DRIVER_INTERNALS):
            continue
        verdict = plans.check(query, plans.declared_indexes(document), plans.array_paths(document))
        if verdict.problem:
            found.append(str(verdict))
        for stage in _explained(query):
            if verdict.problem is None:
                found.append(f"explain shows {stage}: {verdict}")
    return found


def visit(client, recorder, url: str) -> str:
    recorder.on = True
    try:
        response = client.get(url)
    finally:
        recorder.on = False
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def next_link(page: str, url: str) -> str:
    match = re.search(r'<a rel="next"[^>]*href="([^"]+)"', page) or re.search(
        r'<a[^>]*href="([^"]+)"[^>]*rel="next"', page
    )
    assert match, "the page has no rel=next link"
    return urljoin(url, html.unescape(match.group(1)))


def assert_index_served(recorder, pages: list[str]) -> None:
    assert recorder.queries, "the recorder saw no queries"
    callers = sorted({q.caller for q in recorder.queries})
    found = problems(recorder.queries)
    assert not found, f"pages {pages} (callers {callers}):\n" + "\n".join(found)


@pytest.fixture
def feed_model(request, settings):
    """The timeline model, set before the world is built so its timelines exist."""
    settings.FEED_MODEL = getattr(request, "param", "cache")
    return settings.FEED_MODEL


@pytest.fixture
def world(feed_model, make_user, settings):
    settings.FEED_PAGE_SIZE = 3
    settings.COMMENTS_PAGE_SIZE = 2
    settings.SEARCH_PAGE_SIZE = 2
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    make_user("adam", "Adam Smith")
    make_user("adele", "Adele Adkins")
    mod = make_user("mod", "Mo Derator", role="moderator")
    graph.follow_create(follower=bob, followee="ada")
    graph.follow_create(follower=ada, followee="bob")
    # Bob's news merges #bread's posts (docs/discovery.md#following-a-tag).
    from profiles.services import tags

    tags.tag_follow_create(user=bob, tag="bread")
    t = now()
    posts = [
        feed_services.post_create(
            author=ada,
            type="status",
            detail={"text": f"post {n} #bread"},
            circles=[PUBLIC],
            ts=t - timedelta(minutes=n),
        )
        for n in range(8)
    ]
    for n in range(4):
        feed_services.post_create(
            author=ada, type="status", detail={"text": f"to bob {n}"}, circles=[PUBLIC], to="bob"
        )
    post = Post._get_collection().find_one({"_id": posts[0].id})
    top = [
        comment_services.comment_create(post=post, author=bob, text=f"comment {n}")
        for n in range(5)
    ]
    reply = comment_services.comment_create(
        post=post, author=ada, text="a reply", parent_slug=top[0].slug
    )
    comment_services.comment_create(post=post, author=bob, text="deeper", parent_slug=reply.slug)
    for target in [f"post:{p.id}" for p in posts[1:5]]:
        moderation.report_create(reporter=bob, target=resolve_target(target), reason="spam")
    moderation.report_create(reporter=ada, target=resolve_target("user:adam"), reason="spam")
    for target in [f"post:{p.id}" for p in posts[5:8]]:
        moderation.post_remove(moderator=mod, target=resolve_target(target), reason="spam")
        moderation.post_restore(moderator=mod, target=resolve_target(target), reason="fine")
    # Ada's wall starts with a pin (docs/discovery.md#pins): read with the
    # timeline under `cache`, by `_id` under the other models.
    from feeds.services import pins

    pins.post_pin(user=ada, post=Post._get_collection().find_one({"_id": posts[6].id}))
    return {"ada": ada, "bob": bob, "mod": mod, "post": posts[0], "reply": reply}


@pytest.mark.parametrize("feed_model", ["cache", "month", "size", "read"], indirect=True)
def test_feed_wall_and_incoming_pages_are_index_served(feed_model, world, login, recorder):
    bob = login(world["bob"])
    pages = ["/feed/", f"/u/{world['ada'].handle}/", "/incoming/"]
    for url in pages:
        first = visit(bob, recorder, url)
        if url != "/incoming/":
            visit(bob, recorder, next_link(first, url))
    from django.test import Client

    visit(Client(), recorder, "/")
    assert_index_served(recorder, [*pages, "/ (home)"])


@pytest.mark.parametrize("feed_model", ["cache", "month", "size", "read"], indirect=True)
def test_the_new_posts_count_is_index_served(feed_model, world, login, recorder):
    """`/feed/new/` (issue 12): the timeline read, or the read model's count,
    from a cursor below every post of the feed."""
    oldest = Post._get_collection().find_one({}, sort=[("ts", 1), ("_id", 1)])
    since = Cursor(oldest["ts"], oldest["_id"]).encode()
    visit(login(world["bob"]), recorder, f"/feed/new/?since={since}")
    assert_index_served(recorder, ["/feed/new/"])


@pytest.fixture
def embedded_copies(settings):
    """FEED_EMBED on before the world is built: its timelines hold copies."""
    settings.FEED_EMBED = True


@pytest.mark.parametrize("feed_model", ["cache", "month", "size"], indirect=True)
def test_copy_refreshes_are_index_served(feed_model, embedded_copies, world, recorder):
    """With FEED_EMBED, a like's new counts and an edit's new text reach
    every embedded copy of the post in one `update_many` per store, on
    `{entries: {$elemMatch: {id: post, ...}}}` (timelines/stores/base.py
    `update_counts`, `update_embedded`): the multikey `entries.id` index
    bounds it, never a scan of every timeline document."""
    from feeds.services import likes

    post = world["post"]
    recorder.on = True
    try:
        likes.like_create(post_id=post.id, user=world["bob"])
        feed_services.post_edit(post_id=post.id, actor=world["ada"], changes={"text": "new"})
    finally:
        recorder.on = False
    collection = f"timeline_{feed_model}"
    refreshes = {
        q.caller.rsplit(".", 1)[1]
        for q in recorder.queries
        if q.collection == collection and q.op == "update_many" and "entries" in q.filter
    }
    assert refreshes == {"update_counts", "update_embedded"}, recorder.queries
    assert_index_served(recorder, ["a like's copy refresh", "an edit's copy refresh"])
    holders = mongo.database()[collection].find({"entries.id": post.id})
    copies = [e["post"] for d in holders for e in d["entries"] if e["id"] == post.id]
    assert copies and all(c["likes_count"] == 1 and c["detail"]["text"] == "new" for c in copies)


def test_like_state_and_atom_feed_are_index_served(world, login, recorder):
    from feeds.services import likes

    likes.like_create(post_id=world["post"].id, user=world["bob"])
    bob = login(world["bob"])
    pages = ["/feed/", "/u/ada/", f"/posts/{world['post'].id}/", "/u/ada/feed.atom"]
    for url in pages:
        visit(bob, recorder, url)
    assert any(q.collection == "post_like" for q in recorder.queries)
    assert any(q.caller.endswith("public_posts") for q in recorder.queries)
    assert_index_served(recorder, pages)


@pytest.mark.parametrize("feed_model", ["cache", "month", "size", "read"], indirect=True)
def test_feed_and_wall_pages_with_reposts_are_index_served(
    feed_model, world, make_user, login, recorder
):
    """Reposted originals, the read model's reposts, and an older page's
    check that a newer one showed a post already (feeds/services/reposts.py `Once`)."""
    from feeds.services import reposts

    cyd = make_user("cyd", "Cyd Charisse")
    graph.follow_create(follower=world["bob"], followee="cyd")
    for post in Post.objects(**{"by__id": "ada", "to": None}).order_by("-ts")[1:6]:
        reposts.repost_create(post_id=post.id, user=cyd)
    bob = login(world["bob"])
    pages = []
    for url in ("/feed/", f"/u/{cyd.handle}/"):
        page = visit(bob, recorder, url)
        for _ in range(2):
            if 'rel="next"' not in page:
                break
            url = next_link(page, url)
            page = visit(bob, recorder, url)
            pages.append(url)
    assert len(pages) == 3, pages  # two older feed pages, one older wall page
    assert_index_served(recorder, pages)


@pytest.mark.parametrize("store", ["documents", "embedded", "buckets"])
def test_post_and_comment_pages_are_index_served(store, settings, make_user, login, recorder):
    settings.COMMENTS_STORE = store
    settings.COMMENTS_PAGE_SIZE = 2
    ada, bob = make_user("ada"), make_user("bob")
    post = feed_services.post_create(
        author=ada, type="status", detail={"text": "discuss"}, circles=[PUBLIC]
    )
    raw = Post._get_collection().find_one({"_id": post.id})
    top = [
        comment_services.comment_create(post=raw, author=bob, text=f"comment {n}")
        for n in range(5)
    ]
    reply = comment_services.comment_create(
        post=raw, author=ada, text="a reply", parent_slug=top[0].slug
    )
    comment_services.comment_create(post=raw, author=bob, text="deeper", parent_slug=reply.slug)
    client = login(bob)
    first = visit(client, recorder, f"/posts/{post.id}/")
    visit(client, recorder, next_link(first, f"/posts/{post.id}/"))
    visit(client, recorder, f"/posts/{post.id}/c/{reply.slug}/")
    assert_index_served(recorder, ["post page", "thread page 2", "sub-discussion"])


def test_tag_pages_and_post_search_are_index_served(world, login, recorder):
    from django.test import Client

    for client in (login(world["bob"]), Client()):
        for url in ("/tags/bread/", "/search/?q=bread+post"):
            first = visit(client, recorder, url)
            visit(client, recorder, next_link(first, url))
        assert 'class="trend" data-tag="bread"' in visit(client, recorder, "/explore/")
    bob = login(world["bob"])
    for kept in Post._get_collection().find({"by.id": "ada"}).limit(5):
        bob.post(f"/posts/{kept['_id']}/bookmark/")
    first = visit(bob, recorder, "/bookmarks/")
    visit(bob, recorder, next_link(first, "/bookmarks/"))
    edited = Post._get_collection().find_one({"by.id": "ada"})
    feed_services.post_edit(post_id=edited["_id"], actor=world["ada"], changes={"text": "new"})
    visit(bob, recorder, f"/posts/{edited['_id']}/history/")
    pages = ["tag page 1, 2", "post search 1, 2", "explore", "bookmarks", "history"]
    assert_index_served(recorder, pages)


def test_search_and_moderation_pages_are_index_served(world, login, recorder):
    bob, mod = login(world["bob"]), login(world["mod"])
    first = visit(bob, recorder, "/search/?q=ad")
    visit(bob, recorder, next_link(first, "/search/"))
    visit(mod, recorder, "/mod/")
    pages = [
        "/mod/reports/",
        "/mod/reports/?type=post",
        "/mod/reports/?reason=spam",
        "/mod/reports/?status=resolved",
        "/mod/log/",
        "/mod/log/?moderator=mod",
        "/mod/log/?action=post_remove",
        f"/mod/log/?target=post:{world['post'].id}",
        "/mod/users/?q=ad",
        "/mod/users/",
        "/mod/users/adam/",
        "/mod/users/bob/",
    ]
    for url in pages:
        visit(mod, recorder, url)
    assert_index_served(recorder, ["search", "/mod/", *pages])


def test_notifications_page_is_index_served(world, login, recorder, settings):
    """The world gave ada follows, comments and a reply to notify her of; a
    block makes the unread recount run too."""
    settings.NOTIFICATIONS_PAGE_SIZE = 2
    ada = login(world["ada"])
    first = visit(ada, recorder, "/notifications/")
    visit(ada, recorder, next_link(first, "/notifications/"))
    assert_index_served(recorder, ["/notifications/", "/notifications/ page 2"])


def _joins(queries: list[plans.Query]) -> list[plans.Query]:
    """The reads of each aggregate's `$lookup` stages (localField form), as
    the server runs them, once per joined value: the foreign field fixed,
    then the lookup pipeline's leading `$match`, `$sort` and `$limit`. The
    recorder checks an aggregate's first stages only; a page of one
    aggregate does its real reading in its joins."""
    found = []
    for query in queries:
        for stage in query.pipeline or []:
            lookup = stage.get("$lookup") or {}
            if "foreignField" not in lookup:
                continue
            inner = list(lookup.get("pipeline") or [])
            # A placeholder for each local value: the plan is the same for all.
            match = {lookup["foreignField"]: "<each local value>"}
            if inner and "$match" in inner[0]:
                match.update(inner.pop(0)["$match"])
            sort = tuple(inner.pop(0)["$sort"].items()) if inner and "$sort" in inner[0] else ()
            limit = inner[0]["$limit"] if inner and "$limit" in inner[0] else 0
            caller = f"{query.caller} ($lookup of {lookup['from']})"
            found.append(plans.Query(lookup["from"], match, sort, limit, caller=caller))
    return found


def prev_link(page: str, url: str) -> str:
    match = re.search(r'<a rel="prev"[^>]*href="([^"]+)"', page)
    assert match, "the page has no rel=prev link"
    return urljoin(url, html.unescape(match.group(1)))


def test_the_messages_pages_are_index_served(make_user, login, recorder, settings):
    """The inbox and its page 2 through the cursor; a conversation's newest
    page (unread: opening it moves the read marker and the header count),
    an older one through `rel="prev"` and a newer one back through
    `rel="next"` (`?after=`). Their `$lookup` joins (the buckets on
    (conversation, bucket), the people and the last author's block list on
    `_id`) are held to the same rules."""
    settings.MESSAGES_PAGE_SIZE = 3
    settings.MESSAGES_BUCKET_SIZE = 4  # pages that reach across buckets
    settings.MESSAGES_INBOX_PAGE_SIZE = 2
    from messaging import services as messaging

    ada, bob = make_user("ada"), make_user("bob")
    cyd, dee = make_user("cyd"), make_user("dee")
    for sender in (cyd, dee):
        messaging.conversation_start(sender=sender, to=["ada"], text=f"from {sender.handle}")
    long = messaging.conversation_start(sender=ada, to=["bob"], text="m0")
    for n in range(1, 12):  # bob's last: ada has it unread
        sender = bob if n % 2 else ada
        messaging.message_send(conversation_id=long, sender=sender, text=f"m{n}")
    client = login(ada)
    first = visit(client, recorder, "/messages/")
    visit(client, recorder, next_link(first, "/messages/"))
    url = f"/messages/{long}/"
    newest = visit(client, recorder, url)
    older = visit(client, recorder, prev_link(newest, url))
    visit(client, recorder, next_link(older, url))
    pages = ["/messages/", "/messages/ page 2", "conversation", "older", "newer"]
    assert_index_served(recorder, pages)
    assert any(q.caller == "messaging.services.conversation_read" for q in recorder.queries)
    joins = _joins([q for q in recorder.queries if q.caller.startswith("messaging.")])
    assert {q.collection for q in joins} == {"message_buckets", "user"}, joins
    found = problems(joins)
    assert not found, "\n".join(found)


def test_the_developers_lens_pages_are_index_served(settings, make_user, login, recorder):
    """/dev/ and /dev/compare/ (issue 14): the compare page sends its page's
    queries under every timeline model and comment store, shadows on."""
    settings.FEED_SHADOW_MODELS = "all"
    settings.COMMENTS_SHADOW_STORES = "all"
    root, ada = make_user("root", role="admin"), make_user("ada")
    graph.follow_create(follower=root, followee="ada")
    post = feed_services.post_create(
        author=ada, type="status", detail={"text": "discuss"}, circles=[PUBLIC]
    )
    raw = Post._get_collection().find_one({"_id": post.id})
    comment_services.comment_create(post=raw, author=root, text="a comment")
    client = login(root)
    pages = ["/dev/", "/feed/", f"/posts/{post.id}/", "/u/ada/"]
    visit(client, recorder, pages[0])
    for page in pages[1:]:
        visit(client, recorder, f"/dev/compare/?path={page}")
    assert_index_served(recorder, pages)


@pytest.mark.parametrize(("caller", "field"), list(ALLOWED))
def test_every_allowed_query_is_sent_and_still_flagged(world, login, recorder, caller, field):
    """The allow-list is not a place to forget things: each entry names a query
    an action or a command sends and the checker still flags; a fixed one must
    leave the list."""
    import io

    from django.core.management import call_command

    sent_by = ALLOWED[(caller, field)][1]
    recorder.on = True
    try:
        if sent_by == SUSPENSION:
            response = login(world["mod"]).post(sent_by.split()[1], {"reason": "spam"})
            assert response.status_code == 302
        else:
            call_command(sent_by, *COMMANDS[sent_by], stdout=io.StringIO())
    finally:
        recorder.on = False
    sent = [q for q in recorder.queries if q.caller == caller and (not field or field in q.filter)]
    assert sent, f"{sent_by} no longer sends {caller}'s query on {field or 'anything'}"
    document = _documents()[sent[0].collection]
    flagged = [
        plans.check(q, plans.declared_indexes(document), plans.array_paths(document)) for q in sent
    ]
    assert all(v.problem for v in flagged), f"{caller} is served now: drop it from ALLOWED"


def test_moderation_pages_page_on_to_the_end_through_index_served_cursors(
    world, login, recorder, settings, monkeypatch
):
    from moderation import selectors

    monkeypatch.setattr(selectors, "PAGE", 2)
    mod = login(world["mod"])
    for url in ("/mod/reports/", "/mod/log/"):
        page = visit(mod, recorder, url)
        visit(mod, recorder, next_link(page, url))
    assert_index_served(recorder, ["reports page 2", "log page 2"])


def test_ad_management_pages_are_index_served(make_user, login, recorder, monkeypatch):
    """The campaign list (both roles' indexes, page 2 through its cursor), a
    campaign page with its report, and the CSV."""
    from ads import selectors as ad_selectors
    from ads import services as ads
    from ads.documents import AdStats, stats_row_id

    monkeypatch.setattr(ad_selectors, "PAGE", 2)
    admin = login(make_user("ada", role="admin"))
    advertiser = login(make_user("adv", role="advertiser"))
    made = [
        ads.campaign_create(owner="adv", advertiser="acme", name=f"S{n}", ecpm="2", keywords=[])
        for n in range(3)
    ]
    campaign_id = made[0].id
    for day in ("2026-11-01", "2026-11-02"):
        AdStats(
            id=stats_row_id(campaign_id, "u1", day),
            campaign_id=campaign_id,
            ad_unit_id="u1",
            day=day,
            impressions=10,
            clicks=1,
        ).save()
    pages = [
        f"/ads/manage/campaigns/{campaign_id}/",
        f"/ads/manage/campaigns/{campaign_id}/?format=csv",
    ]
    for client in (admin, advertiser):
        first = visit(client, recorder, "/ads/manage/")
        visit(client, recorder, next_link(first, "/ads/manage/"))
        for url in pages:
            visit(client, recorder, url)
    assert_index_served(recorder, ["/ads/manage/", "/ads/manage/ page 2", *pages])


def test_ad_serving_clicks_and_views_are_index_served(make_user, login, recorder):
    """/ads/serve/ (anonymous and signed in, with keywords and a cap), then a
    view and a click on what it served (ads/views/public.py)."""
    from django.test import Client

    from ads import services as ads

    capped = {"cap_count": 3, "cap_hours": 1}
    made = ads.campaign_create(
        owner="adv", advertiser="acme", name="Sale", ecpm="2", keywords=["car"], **capped
    )
    unit = {"ad_unit_id": "u1", "title": "T", "text": "", "url": "https://example.org/"}
    ads.unit_add(campaign_id=made.id, site="socialsite", zone="feed", **unit)
    ads.campaign_activate(campaign_id=made.id)
    recorder.on = True
    try:
        for client in (Client(), login(make_user("ada"))):
            response = client.get("/ads/serve/?site=socialsite&zone=feed&kw=car")
            [ad] = response.json()["ads"]
            assert client.get(ad["view_url"]).status_code == 204
            assert client.get(ad["click_url"]).status_code == 302
    finally:
        recorder.on = False
    assert_index_served(recorder, ["/ads/serve/", "/ads/view/", "/ads/click/"])


def test_a_reader_of_450_authors_gets_an_index_served_news_page(recorder):
    """Past 200 authors one `$in` loses the `by_ts` order (a blocking sort of
    every post of every author); the read model splits it into `$or` clauses."""
    authors = [f"author{n:03d}" for n in range(450)]
    FollowingEdge._get_collection().insert_many(
        [{"_f": "reader", "_t": author, "_g": [], "state": "active"} for author in authors]
    )
    recorder.on = True
    read.read_entries("news", "reader", Cursor(now(), ObjectId()), 20)
    recorder.on = False
    (page,) = [q for q in recorder.queries if q.collection == "post"]
    clauses = page.filter["$and"][0]["$or"]
    assert [len(c["by.id"]["$in"]) for c in clauses[1:]] == [200, 200, 50]
    assert_index_served(recorder, ["news page of a reader of 450"])
    one_in = {"by.id": {"$in": authors}, "circles": PUBLIC, "ts": {"$lte": now()}}
    # Held to the author index: `circles_ts` (the client API's public
    # timeline) also gives this order on paper, by walking every public post
    # newest first and keeping the authors' (a server's plan race prefers
    # by_ts's branches, which yield a page in about as many steps as posts).
    post_indexes = [i for i in plans.declared_indexes(Post) if i.name != "circles_ts"]
    unsplit = plans.Query("post", one_in, (("ts", -1), ("_id", -1)), 20)
    assert plans.check(unsplit, post_indexes).problem == plans.SORT


@pytest.mark.parametrize("model", ["cache", "month"])
def test_a_reader_of_300_pulled_authors_gets_an_index_served_news_page(
    model, settings, make_user, login, recorder, round_trips
):
    """Past 200 authors one `$lookup`'s `$in` would lose the `by_ts` order:
    the pulled authors' posts are read in branches of 200, each in index
    order, and the page still costs what a page costs."""
    from timelines.documents import PulledAuthor
    from timelines.selectors import pulled

    settings.FEED_MODEL = model
    reader = make_user("reader")
    authors = [f"star{n:03d}" for n in range(300)]
    t = now()
    PulledAuthor._get_collection().insert_many(
        [{"_id": author, "since": t - timedelta(days=1)} for author in authors]
    )
    FollowingEdge._get_collection().insert_many(
        [{"_f": "reader", "_t": author, "_g": [], "state": "active"} for author in authors]
    )
    Post._get_collection().insert_many(
        [
            {
                "by": {"id": author, "name": author},
                "type": "status",
                "detail": {"text": f"from {author}"},
                "circles": [PUBLIC],
                "ts": t - timedelta(minutes=n),
                "removed": None,
            }
            for n, author in enumerate(authors)
        ]
    )
    pulled.forget()
    client = login(reader)
    visit(client, recorder, "/feed/")  # the process reads the list (once a period)
    assert_index_served(recorder, ["the list of pulled authors"])
    assert len(pulled.authors()) == 300
    recorder.queries.clear()
    with round_trips() as counter:
        page = visit(client, recorder, "/feed/")
    assert "from star000" in page and "from star299" not in page  # the newest 20
    assert_index_served(recorder, ["news page of a reader of 300 pulled authors"])
    by_authors = [
        q.filter["$and"][0]["by.id"]
        for q in recorder.queries
        if q.op == "lookup" and q.collection == "post" and "by.id" in q.filter["$and"][0]
    ]
    assert sorted(len(points["$in"]) for points in by_authors) == [200, 200]
    # The session, the page (cache: one aggregate; month: its entries, then
    # the pulled posts in one aggregate of their own).
    assert counter.total == {"cache": 2, "month": 3}[model], counter.commands


def test_the_checker_looks_inside_lookup_sub_pipelines():
    from tests.query_recorder import lookup_queries

    post_indexes = plans.declared_indexes(Post)
    unindexed = [
        {"$match": {"_id": "x"}},
        {
            "$lookup": {
                "from": "post",
                "localField": "words",
                "foreignField": "detail.text",
                "pipeline": [{"$match": {"type": "poll"}}],
                "as": "found",
            }
        },
    ]
    [joined] = lookup_queries(unindexed)
    assert plans.check(joined, post_indexes).problem == plans.COLLSCAN
    newest = [{"$sort": {"ts": -1, "_id": -1}}, {"$limit": 20}]
    authors = [f"a{n}" for n in range(300)]
    one_lookup = [
        {"$addFields": {"authors": {"$literal": authors}}},
        {
            "$lookup": {
                "from": "post",
                "localField": "authors",
                "foreignField": "by.id",
                "pipeline": newest,
                "as": "posts",
            }
        },
    ]
    [joined] = lookup_queries(one_lookup)
    assert plans.check(joined, post_indexes).problem == plans.SORT
    branch = {"$addFields": {"authors__0": {"$slice": ["$authors", 0, 200]}}}
    one_lookup[1]["$lookup"]["localField"] = "authors__0"
    [joined] = lookup_queries([one_lookup[0], branch, one_lookup[1]])
    assert plans.check(joined, post_indexes).problem is None


# --- the checker itself -------------------------------------------------------

INDEXES = [
    plans.Index("_id_", (("_id", 1),)),
    plans.Index("by_ts", (("by", 1), ("ts", -1), ("_id", -1))),
    plans.Index("status_created", (("status", 1), ("created", -1))),
    plans.Index("tags", (("tags", 1), ("_id", 1))),
    plans.Index("entries_id", (("entries.id", 1),)),
]


def verdict(filter, sort=(), limit=20, arrays=frozenset({"tags"})):
    return plans.check(plans.Query("c", filter, tuple(sort), limit), INDEXES, set(arrays)).problem


def test_the_checker_flags_a_collection_scan():
    assert verdict({"text": "x"}) == plans.COLLSCAN
    assert verdict({"created": {"$gte": now()}}) == plans.COLLSCAN  # second key only
    assert verdict({}, limit=0) == plans.COLLSCAN
    assert verdict({"by": {"$ne": "ada"}}) == plans.COLLSCAN
    assert verdict({"$or": [{"by": "ada"}, {"text": "x"}]}) == plans.COLLSCAN


def test_the_checker_flags_a_blocking_sort():
    assert verdict({"by": "ada"}, [("created", -1)]) == plans.SORT
    assert verdict({"by": "ada"}, [("ts", -1), ("_id", 1)]) == plans.SORT  # mixed directions
    assert verdict({"by": {"$gte": "a"}}, [("ts", -1)]) == plans.SORT  # range before sort
    assert verdict({"by": {"$in": [str(n) for n in range(201)]}}, [("ts", -1)]) == plans.SORT
    assert verdict({"tags": {"$gte": "a", "$lt": "b"}}, [("_id", 1)]) == plans.SORT
    multikey = {"tags": {"$in": ["a", "b"]}}
    assert verdict(multikey, [("tags", 1), ("_id", 1)]) == plans.SORT  # an array's sort
    both = {"$or": [{"by": "ada"}, {"tags": {"$regex": "^a"}}]}
    assert verdict(both, [("ts", -1)]) == plans.SORT


def test_the_checker_flags_a_cursor_hidden_in_a_second_or():
    cursor = {"$or": [{"ts": {"$lt": now()}}, {"ts": now(), "_id": {"$lt": 5}}]}
    feed = {"$or": [{"by": "ada"}, {"by": {"$in": ["bob", "cyd"]}}]}
    sort = [("ts", -1), ("_id", -1)]
    assert verdict({"$and": [feed, cursor]}, sort) == plans.UNBOUNDED
    assert verdict({"$and": [feed, cursor, {"ts": {"$lte": now()}}]}, sort) is None


def test_the_checker_passes_what_an_index_serves():
    assert verdict({"_id": "x", "text": "anything"}) is None
    assert verdict({"by": "ada"}, [("ts", -1), ("_id", -1)]) is None
    assert verdict({"by": "ada"}, [("ts", 1), ("_id", 1)]) is None  # all reversed
    assert verdict({"by": {"$in": ["a", "b"]}, "ts": {"$lt": now()}}, [("ts", -1)]) is None
    assert verdict({"status": "active"}, [("created", -1)]) is None
    assert verdict({"status": "active", "created": {"$gte": now()}}) is None
    assert verdict({}, [("_id", 1)]) is None  # a limited walk of the _id index
    assert verdict({"$or": [{"by": "ada"}, {"by": "bob"}]}, [("ts", -1)]) is None
    assert verdict({"tags": "a", "_id": {"$gt": "m"}}, [("_id", 1)]) is None
    assert verdict({"_id": {"$regex": "^ad"}}, [("_id", 1)]) is None
    copy_refresh = {"entries": {"$elemMatch": {"id": 7, "post": {"$exists": True}}}}
    assert verdict(copy_refresh, limit=0) is None  # the multikey entries.id index
    assert verdict({"tags": {"$elemMatch": {"$gte": "a", "$lt": "b"}}}) is None


def test_the_checker_flags_an_elem_match_that_fixes_no_indexed_field():
    assert verdict({"entries": {"$elemMatch": {"by": "ada"}}}, limit=0) == plans.COLLSCAN
    unbounded = {"entries": {"$elemMatch": {"id": {"$ne": 7}}}}
    assert verdict(unbounded, limit=0) == plans.COLLSCAN
    assert verdict({"entries": {"$not": {"$elemMatch": {"id": 7}}}}, limit=0) == plans.COLLSCAN


def test_a_regex_is_bounded_only_as_a_plain_prefix():
    assert verdict({"by": {"$regex": "^ada"}}) is None
    assert verdict({"by": {"$regex": "^ada", "$options": "i"}}) == plans.COLLSCAN
    assert verdict({"by": {"$regex": "ada"}}) == plans.COLLSCAN
    assert verdict({"by": re.compile("^ada")}) == plans.COLLSCAN  # Python's `re` sends "u"
    assert verdict({"by": {"$regex": "^ada(/|$)"}}) is None


def test_explain_output_is_read_for_scans_and_sorts():
    plan = {
        "queryPlanner": {
            "winningPlan": {
                "stage": "SORT",
                "inputStage": {"stage": "FETCH", "inputStage": {"stage": "COLLSCAN"}},
            }
        }
    }
    assert plans.explain_problems(plan) == ["SORT", "COLLSCAN"]
    merged = {"stage": "SORT_MERGE", "inputStages": [{"stage": "IXSCAN"}, {"stage": "IXSCAN"}]}
    assert plans.explain_problems({"queryPlanner": {"winningPlan": merged}}) == []
    assert plans.explain_problems({"engine": "memory", "plan": "scan"}) is None


def test_the_checker_flags_a_read_of_a_whole_timeline_history():
    """A month's parts or size buckets fixed by owner alone are every
    document the reader ever stored: `reposts_above` before it was bounded
    by time (its old `$match`), against the bounded and walked reads."""
    month = plans.declared_indexes(MonthTimeline)
    size = plans.declared_indexes(SizeTimeline)
    old = {"owner": "bob", "kind": "news", "entries.of": {"$in": [ObjectId()]}}

    def problem(collection, indexes, filter, sort=()):
        return plans.check(plans.Query(collection, filter, sort, op="aggregate"), indexes).problem

    assert problem("timeline_month", month, old) == plans.UNBOUNDED
    assert problem("timeline_size", size, old) == plans.UNBOUNDED
    assert problem("timeline_month", month, {**old, "month": {"$gte": "202611"}}) is None
    assert problem("timeline_size", size, {**old, "max_ts": {"$gte": now()}}) is None
    walk = (("month", -1), ("part", -1))
    assert problem("timeline_month", month, {"owner": "bob", "kind": "news"}, walk) is None
    # A write meant for every document of the timeline is not a page's read.
    remove = plans.Query("timeline_month", {"owner": "bob", "kind": "news"}, op="update_many")
    assert plans.check(remove, month).problem is None


# --- what writes: POST actions, tasks and management commands -----------------
#
# Pages are not the only readers: an action's request, the tasks it queues and
# the commands an operator runs query too, and a scan there is as slow (a
# conversion that reads every post, a read of a whole timeline history). Each
# is driven once, with valid input, on tests/hostile/world.py's small world
# (one of everything a route can name), and its queries checked as a page's.


def _code(values: dict, kind: str, *, ahead: int = 0) -> str:
    """A TOTP code of the world's secret of this kind, `ahead` steps from now
    (the step enrolment used is spent): called when the request is sent."""
    if kind not in values:
        return "000000"
    totp = pyotp.TOTP(values[kind][0])
    return totp.generate_otp(int(time.time()) // totp.interval + ahead)


# Requests that succeed with a page rather than a redirect: the recovery codes
# are shown once, in the answer to the request that made them.
SHOWN_ONCE = {"settings/2fa/ #0 as alice"}


def _actions(values: dict, model: str = "cache") -> dict[str, list[tuple[str, dict]]]:
    """A valid request (role, form) or more for each route a form posts to,
    keyed as tests/hostile/routes.py keys them; the path's parameters are the
    world's first valid values (`probe.valid_path`)."""
    post = values["post_id"][0]  # alice's status, with the thread
    target = f"post:{post}"
    fresh = "zq8!vLx#2pRt"
    campaign = {
        "name": "Winter",
        "ecpm": "2",
        "keywords": "car",
        "cap_count": "3",
        "cap_hours": "1",
        "budget": "100",
        "ends": "2999-01-01",
    }
    return {
        "accounts/signup/": [
            ("anon", {"username": "newbie", "name": "N", "password1": fresh, "password2": fresh})
        ],
        "accounts/login/": [("anon", {"username": "bob", "password": PASSWORD})],
        "accounts/logout/": [("alice", {})],
        "settings/profile/": [
            ("alice", {"name": "Al", "bio": "b", "location": "l", "interests": "tea"})
        ],
        "settings/password/": [
            (
                "alice",
                {"old_password": PASSWORD, "new_password1": fresh, "new_password2": fresh},
            )
        ],
        "settings/email/": [("alice", {"email": "alice@example.net", "password": PASSWORD})],
        # bob takes his old address back (his password is then reset: a redirect).
        "accounts/email/undo/<str:token>/": [("anon", {})],
        "accounts/password/reset/": [("anon", {"email": "bob@example.org"})],
        "accounts/password/reset/<str:token>/": [
            ("anon", {"new_password1": fresh, "new_password2": fresh})
        ],
        "settings/sessions/<str:session_id>/end/": [("alice", {})],
        # The moderator asks for an export (built by the task at once); bob
        # leaves: the whole erasure walk runs inside the request (immediate backend).
        "settings/export/": [("mod", {})],
        "tags/<str:tag>/follow/": [("bob", {})],
        "mod/tags/<str:tag>/hide/": [("mod", {"reason": "spam"})],
        "mod/tags/<str:tag>/show/": [("mod", {"reason": "fine"})],
        "tags/<str:tag>/unfollow/": [("bob", {})],
        "settings/delete/": [("bob", {"password": PASSWORD})],
        "settings/filters/": [
            ("alice", {"phrase": "cats", "context": ["home", "public"], "action": "hide"}),
            ("alice", {"phrase": "dogs", "context": "thread", "action": "warn", "expires": "1d"}),
        ],
        "settings/filters/<str:filter_id>/delete/": [("alice", {})],
        # Alice confirms her enrolment (the page shows her recovery codes
        # once: a 200, `SHOWN_ONCE`); cyd's code completes her login.
        "settings/2fa/": [
            ("alice", {"password": PASSWORD, "code": lambda: _code(values, "totp_pending")})
        ],
        "accounts/login/2fa/": [("anon", {"code": lambda: _code(values, "totp_secret", ahead=1)})],
        "circles/": [
            ("alice", {"action": "create", "name": "pals"}),
            ("alice", {"action": "add", "circle": "pals", "member": "bob"}),
            ("alice", {"action": "remove", "circle": "pals", "member": "bob"}),
            ("alice", {"action": "rename", "circle": "friends", "new": "mates"}),
            ("alice", {"action": "delete", "circle": "mates"}),
        ],
        "u/<str:handle>/follow/": [("alice", {"circles": "friends"})],  # bob, again
        "u/<str:handle>/unfollow/": [("alice", {})],
        "u/<str:handle>/block/": [("alice", {})],
        "u/<str:handle>/unblock/": [("alice", {})],
        "u/<str:handle>/mute/": [("alice", {})],
        "u/<str:handle>/unmute/": [("alice", {})],
        "u/<str:handle>/circles/": [("alice", {"circles": "friends"})],
        "posts/": [
            ("alice", {"type": "status", "text": "hi @bob", "circles": PUBLIC}),
            ("alice", {"type": "status", "text": "friends", "circles": "friends"}),
            ("alice", {"type": "poll", "text": "q", "options": "a\nb", "circles": PUBLIC}),
            ("bob", {"type": "status", "text": "on your wall", "to": "alice"}),
        ],
        "posts/<str:post_id>/edit/": [("alice", {"text": "edited"})],
        "posts/<str:post_id>/delete/": [("alice", {})],
        "posts/<str:post_id>/vote/": [("bob", {"option": "0"})],  # the poll (`poll_post_id`)
        "posts/<str:post_id>/like/": [("bob", {})],
        "posts/<str:post_id>/bookmark/": [("bob", {})],
        "posts/<str:post_id>/unbookmark/": [("bob", {})],
        # Alice pins her status, and unpins the link she pinned in the world.
        "posts/<str:post_id>/pin/": [("alice", {})],
        "posts/<str:post_id>/unpin/": [("alice", {})],
        "posts/<str:post_id>/unlike/": [("bob", {})],
        "posts/<str:post_id>/repost/": [("bob", {})],
        "posts/<str:post_id>/unrepost/": [("bob", {})],
        "posts/<str:post_id>/comments/": [
            ("bob", {"text": "nice"}),
            ("alice", {"text": "thanks", "parent": values["slug"][0]}),
        ],
        "posts/<str:post_id>/comments/<path:slug>/edit/": [("bob", {"text": "edited"})],
        # Alice votes on bob's comment, and takes it back.
        "posts/<str:post_id>/comments/<path:slug>/vote/": [
            ("alice", {"dir": "up"}),
            ("alice", {"dir": "down"}),
            ("alice", {"dir": "none"}),
        ],
        "posts/<str:post_id>/comments/<path:slug>/delete/": [("bob", {})],
        "report/": [("bob", {"target": target, "reason": "spam", "note": "ads"})],
        "mod/act/": [
            ("mod", {"key": target, "action": "remove", "reason": "spam"}),
            ("mod", {"key": target, "action": "restore", "reason": "fine"}),
            ("mod", {"key": target, "action": "dismiss", "reason": ""}),
        ],
        "mod/bulk/": [("mod", {"keys": target, "action": "remove", "reason": "spam"})],
        "mod/users/<str:handle>/suspend/": [("mod", {"until": "2999-01-01", "reason": "spam"})],
        "mod/users/<str:handle>/unsuspend/": [("mod", {"reason": "ok"})],
        # A rule for a server, then lifted; a retry of its failed deliveries.
        "mod/domains/": [("mod", {"domain": "remote.example", "level": "block", "reason": "x"})],
        "mod/domains/<str:domain>/lift/": [("mod", {})],
        "mod/domains/<str:domain>/retry/": [("mod", {})],
        "settings/domains/block/": [("alice", {"domain": "remote.example"})],
        "settings/domains/unblock/": [("alice", {"domain": "remote.example"})],
        "mod/users/<str:handle>/role/": [("admin", {"role": "moderator"})],
        "ads/manage/campaigns/": [("admin", {"advertiser": "acme", **campaign})],
        "ads/manage/campaigns/<str:campaign_id>/": [("admin", campaign)],
        "ads/manage/campaigns/<str:campaign_id>/units/": [
            (
                "admin",
                {
                    "ad_unit_id": "unit2",
                    "site": "socialsite",
                    "zone": "feed",
                    "title": "T",
                    "text": "t",
                    "url": "https://example.org/",
                },
            )
        ],
        "ads/manage/campaigns/<str:campaign_id>/units/<str:ad_unit_id>/delete/": [("admin", {})],
        "ads/manage/campaigns/<str:campaign_id>/activate/": [("admin", {})],
        "ads/manage/campaigns/<str:campaign_id>/deactivate/": [("admin", {})],
        "dev/": [("admin", {"timeline_model": model, "comment_store": "documents"})],
        # Direct messages (the world's: alice and bob's conversation first):
        # a new one-to-one, a new group past bob's "people I follow" (he
        # follows alice), and one continuing alice and bob's; a message
        # each way; then bob leaves it, which writes the line alice sees.
        "messages/": [
            ("alice", {"to": "mod", "text": "a new one"}),
            ("alice", {"to": ["bob", "mod"], "text": "the three of us"}),
            ("alice", {"to": "bob", "text": "and again"}),
        ],
        "messages/<str:conversation_id>/": [
            ("alice", {"text": "hello"}),
            ("bob", {"text": "hello back"}),
        ],
        "messages/<str:conversation_id>/leave/": [("bob", {})],
    }


# The client API's routes take a bearer token, not a session's form: driven
# by `test_the_client_apis_reads_and_writes_are_index_served` instead.
API_ROUTES = ("api/", "oauth/", "settings/apps/")
# The inboxes take signed JSON, not forms: the federation test below drives them.
INBOX_ROUTES = ("inbox", "u/<str:handle>/inbox")


def _posted_routes() -> set[str]:
    from tests.hostile import probe
    from tests.hostile.routes import ROUTES

    return {
        key
        for key, route in ROUTES.items()
        if probe.own_method(route) == "POST"
        and not key.startswith(API_ROUTES)
        and key not in INBOX_ROUTES
    }


def test_federations_reads_and_writes_are_index_served(make_user, recorder, remote, client):  # noqa: F811
    """Federation (docs/federation.md) both ways: discovery and the documents
    a server reads, and activities into the inbox (a follow and its Accept, a
    post, a like, a reply, an edit, a delete, an undo) with what they queue."""
    import json as json_module

    from feeds.services.posts import post_create

    alice = make_user("alice")
    ours = post_create(author=alice, type="status", detail={"text": "hi"}, circles=[])
    ada = remote.actor_id("ada")
    remote.person("ada")
    note = {
        "id": ada + "/statuses/1",
        "type": "Note",
        "attributedTo": ada,
        "to": ["https://www.w3.org/ns/activitystreams#Public"],
        "content": "<p>hello @alice</p>",
        "tag": [{"type": "Mention", "href": "http://testserver/u/alice/"}],
    }
    reply = {**note, "id": ada + "/statuses/2", "inReplyTo": f"http://testserver/posts/{ours.id}/"}
    like = {"id": ada + "#like", "type": "Like", "actor": ada, "object": reply["inReplyTo"]}
    accept = {"Accept": "application/activity+json"}
    recorder.on = True
    try:
        for path in (
            "/.well-known/webfinger?resource=acct:alice@testserver",
            "/.well-known/nodeinfo",
            "/nodeinfo/2.0",
            "/u/alice/outbox?page=1",
            "/u/alice/followers/?page=1",
        ):
            assert client.get(path).status_code == 200, path
        for path in ("/u/alice/", f"/posts/{ours.id}/"):
            assert client.get(path, headers=accept).status_code == 200, path
        for activity in (
            {
                "id": ada + "#f",
                "type": "Follow",
                "actor": ada,
                "object": "http://testserver/u/alice/",
            },
            {"id": ada + "/statuses/1/activity", "type": "Create", "actor": ada, "object": note},
            {"id": ada + "/statuses/2/activity", "type": "Create", "actor": ada, "object": reply},
            like,
            {"id": ada + "#u", "type": "Update", "actor": ada, "object": {**note, "content": "x"}},
            {"id": ada + "#undo", "type": "Undo", "actor": ada, "object": like},
            {"id": ada + "#d", "type": "Delete", "actor": ada, "object": note["id"]},
        ):
            response = remote.deliver("ada", activity)
            assert response.status_code == 202, json_module.loads(response.content)
        alice.reload()  # as the next request reads her: with her remote follower
        post_create(author=alice, type="status", detail={"text": "to ada"}, circles=[])
    finally:
        recorder.on = False
    assert remote.sent("Accept") and remote.sent("Create")
    assert_index_served(recorder, ["federation"])


def test_the_client_apis_reads_and_writes_are_index_served(make_user, recorder):
    """The client API (docs/api.md) through Mastodon.py: registering,
    consenting, the token exchange, every account endpoint, revoking from
    the sessions page and through /oauth/revoke."""
    from api.documents import OAuthToken
    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    ann, bob = make_user("ann"), make_user("bob")
    graph.follow_create(follower=bob, followee="ann")
    web = login_client(ann)
    recorder.on = True
    try:
        api = logged_in(web)
        api.account_verify_credentials()
        api.account_update_credentials(note="hello")
        api.account("bob")
        api.account_lookup("bob")
        api.account_follow("bob")
        api.account_relationships(["bob", "nobody"])
        api.account_followers("ann", limit=1)
        api.account_following("ann", limit=1)
        api.account_mute("bob")
        api.mutes()
        api.account_unmute("bob")
        api.account_block("bob")
        api.blocks()
        api.account_unblock("bob")
        api.account_unfollow("bob")
        api.instance_v2()
        web.get("/settings/sessions/")
        other = logged_in(web, scopes=["read"])
        recorder.on = False  # the test's own read of the newest token's key
        key = OAuthToken.objects(user="ann").order_by("-created").first().key
        recorder.on = True
        assert web.post(f"/settings/apps/{key}/revoke/").status_code == 302
        api.revoke_access_token()
        assert other.access_token
    finally:
        recorder.on = False
    assert_index_served(recorder, ["the client API"])


def test_the_client_apis_statuses_media_and_polls_are_index_served(make_user, recorder):
    """Statuses, media and polls through Mastodon.py (docs/api.md#statuses):
    posting (with a key, a poll, a photo, a reply), reading, the context,
    editing, the marks and their lists, a person's statuses, deleting."""
    import io

    from PIL import Image

    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    ann, bob = make_user("ann"), make_user("bob")
    graph.follow_create(follower=bob, followee="ann")
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(picture, "PNG")
    ann_api, bob_api = logged_in(login_client(ann)), logged_in(login_client(bob))
    recorder.on = True
    try:
        post = ann_api.status_post("Hello #tea @bob", idempotency_key="plan-key-1")
        ann_api.status_post("Hello #tea @bob", idempotency_key="plan-key-1")
        poll = ann_api.status_post("Which?", poll=ann_api.make_poll(["a", "b"], expires_in=600))
        media = ann_api.media_post(
            io.BytesIO(picture.getvalue()), mime_type="image/png", description="dots"
        )
        ann_api.media_update(media.id, description="small dots")
        ann_api.media(media.id)
        ann_api.status_post("A photo", media_ids=[media.id])
        reply = bob_api.status_reply(post, "Yes")
        ann_api.status_reply(reply, "Good")
        bob_api.status(post.id)
        bob_api.status(reply.id)
        bob_api.status_context(post.id)
        bob_api.status_context(reply.id)
        bob_api.status_favourite(post.id)
        wrapper = bob_api.status_reblog(post.id)
        bob_api.status(wrapper.id)
        bob_api.status_bookmark(post.id)
        ann_api.status_pin(post.id)
        ann_api.status_favourited_by(post.id)
        ann_api.status_reblogged_by(post.id)
        bob_api.poll_vote(poll.id, [0])
        bob_api.poll(poll.id)
        bob_api.account_statuses("ann", limit=2)
        bob_api.account_statuses("ann", pinned=True)
        bob_api.account_statuses("ann", max_id=post.id)
        ann_api.status_update(post.id, "Hello again")
        ann_api.status_history(post.id)
        ann_api.status_source(post.id)
        bob_api.status_unfavourite(post.id)
        bob_api.status_unreblog(post.id)
        bob_api.status_unbookmark(post.id)
        ann_api.status_unpin(post.id)
        bob_api.status_delete(reply.id)
        ann_api.status_delete(post.id)
    finally:
        recorder.on = False
    assert_index_served(recorder, ["the client API's statuses"])


def test_the_client_apis_timelines_lists_and_marks_are_index_served(make_user, recorder):
    """Timelines, lists (circles), bookmarks and favourites through
    Mastodon.py (docs/api.md#timelines): every timeline paged both ways, a
    list's life and its members, the marks' lists."""
    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    ann, bob = make_user("ann"), make_user("bob")
    graph.follow_create(follower=ann, followee="bob")
    bob_api, ann_api = logged_in(login_client(bob)), logged_in(login_client(ann))
    posts = [bob_api.status_post(f"Tea {n} #tea") for n in range(3)]
    recorder.on = True
    try:
        circle = ann_api.list_create("Tea people")
        ann_api.lists()
        ann_api.list_update(circle.id, "Tea friends")
        ann_api.list_accounts_add(circle.id, ["bob"])
        ann_api.list_accounts(circle.id)
        ann_api.account_lists("bob")
        ann_api.list(circle.id)
        for page in (
            ann_api.timeline_home(limit=2),
            ann_api.timeline_public(limit=2, only_media=False),
            ann_api.timeline_hashtag("tea", limit=2),
            ann_api.timeline_list(circle.id, limit=2),
        ):
            ann_api.fetch_next(page)
            ann_api.fetch_previous(page)
        ann_api.timeline_home(since_id=posts[0].id)
        ann_api.status_bookmark(posts[0].id)
        ann_api.status_favourite(posts[0].id)
        ann_api.status_favourite(posts[1].id)
        ann_api.fetch_next(ann_api.bookmarks(limit=1))
        ann_api.fetch_next(ann_api.favourites(limit=1))
        ann_api.list_accounts_delete(circle.id, ["bob"])
        ann_api.list_delete(circle.id)
    finally:
        recorder.on = False
    assert_index_served(recorder, ["the client API's timelines and lists"])


def test_the_client_apis_notifications_and_conversations_are_index_served(make_user, recorder):
    """Notifications and conversations through Mastodon.py
    (docs/api.md#notifications, #conversations): every way of paging the
    notifications, one read, a dismissal and the clearing; a direct status
    sent, the conversations listed and paged, read and left."""
    from notifications import services as notifications
    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    ann, bob = make_user("ann"), make_user("bob")
    make_user("cyd")
    post = feed_services.post_create(
        author=ann, type="status", detail={"text": "mine"}, circles=[PUBLIC]
    ).id
    graph.follow_create(follower=bob, followee="ann")
    notifications.notify(recipient="ann", kind="like", actor="bob", post_id=post)
    ann_api, bob_api = logged_in(login_client(ann)), logged_in(login_client(bob))
    recorder.on = True
    try:
        shown = ann_api.notifications(limit=1)
        ann_api.fetch_next(shown)
        ann_api.fetch_previous(shown)
        ann_api.notifications(since_id=shown[0].id, types=["favourite"], account_id="bob")
        ann_api.notifications(id=shown[0].id)
        ann_api.notifications_unread_count()
        ann_api.notifications_dismiss(shown[0].id)
        ann_api.notifications_clear()
        bob_api.status_post("@ann hello", visibility="direct")
        bob_api.status_post("@ann @cyd all", visibility="direct")
        listed = ann_api.conversations(limit=1)
        ann_api.fetch_next(listed)
        ann_api.fetch_previous(listed)
        ann_api.conversations_read(listed[0].id)
        ann_api.session.delete(
            f"{ann_api.api_base_url}/api/v1/conversations/{listed[0].id}",
            headers={"Authorization": f"Bearer {ann_api.access_token}"},
        )
    finally:
        recorder.on = False
    assert_index_served(recorder, ["the client API's notifications and conversations"])


def test_the_client_apis_discovery_and_settings_are_index_served(make_user, recorder, settings):
    """Tags, trends, search, filters, markers and reports through
    Mastodon.py (docs/api.md#tags-and-trends and after)."""
    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    settings.TRENDS_CACHE_SECONDS = 0
    ann, bob = make_user("ann"), make_user("bob")
    ann_api, bob_api = logged_in(login_client(ann)), logged_in(login_client(bob))
    post = bob_api.status_post("Fresh bread #baking")
    recorder.on = True
    try:
        ann_api.tag("baking")
        ann_api.tag_follow("baking")
        ann_api.followed_tags(limit=1)
        ann_api.tag_unfollow("baking")
        ann_api.trending_tags()
        ann_api.trending_statuses()
        ann_api.search_v2("bread")
        ann_api.search_v2("bread", result_type="statuses", account_id="bob", max_id=post.id)
        ann_api.account_search("bo", following=True)
        made = ann_api.create_filter_v2(
            "spoilers",
            ["home"],
            "warn",
            keywords_attributes=[{"keyword": "spoilers", "whole_word": True}],
        )
        ann_api.filters_v2()
        ann_api.update_filter_v2(made.id, filter_action="hide")
        ann_api.delete_filter_v2(made.id)
        ann_api.markers_set("home", post.id)
        ann_api.markers_get(["home", "notifications"])
        ann_api.report("bob", status_ids=[post.id], comment="spam", category="spam")
        ann_api.report("bob", category="other")
    finally:
        recorder.on = False
    assert_index_served(recorder, ["the client API's discovery and settings"])


@pytest.fixture
def small_world(feed_model, settings):
    from tests.hostile import world as hostile_world

    settings.RATELIMIT_ENABLED = False
    built = hostile_world.build()
    yield built
    hostile_world.clear_photos()


def test_every_route_a_form_posts_to_is_driven():
    """A new POST route must get a valid request in `_actions`."""
    values = {"post_id": ["x"], "slug": ["x"]}
    assert set(_actions(values)) == _posted_routes()


@pytest.mark.parametrize("feed_model", ["cache", "month", "size"], indirect=True)
def test_post_actions_and_the_tasks_they_queue_are_index_served(feed_model, small_world, recorder):
    """Every route a form posts to, once with valid input, and the tasks it
    queues (fan-out, resync, copy refreshes: the immediate backend runs them
    inside the request)."""
    from tests.hostile import probe
    from tests.hostile.routes import ROUTES

    found, answers = [], {}
    for key, requests in _actions(small_world.values, feed_model).items():
        small_world.restore()
        path = probe.valid_path(key, ROUTES[key], small_world)
        recorder.queries = []
        recorder.on = True
        try:
            for number, (role, form) in enumerate(requests):
                # A value made when sent (a TOTP code lasts 30 seconds).
                form = {
                    name: value() if callable(value) else value for name, value in form.items()
                }
                response = small_world.clients[role].post(path, form)
                answers[f"{key} #{number} as {role}"] = response.status_code
        finally:
            recorder.on = False
        found += [f"POST {key}: {problem}" for problem in problems(recorder.queries)]
    # Each action redirects once it has written: anything else is a refusal
    # (a form re-rendered with its errors), whose writes went unchecked.
    refused = {
        request: code
        for request, code in answers.items()
        if code // 100 != 3 and not (request in SHOWN_ONCE and code == 200)
    }
    assert not refused, f"the valid requests were refused, their writes unchecked: {refused}"
    assert not found, "\n".join(found)


def _tasks() -> dict:
    """Every task the apps declare in their tasks.py, by "app.name"."""
    from importlib import import_module

    from django.apps import apps
    from django.tasks import Task

    found = {}
    for config in apps.get_app_configs():
        try:
            module = import_module(f"{config.name}.tasks")
        except ModuleNotFoundError:
            continue
        for name, value in vars(module).items():
            if isinstance(value, Task):
                found[f"{config.name}.{name}"] = value
    return found


# Keyword arguments of the tasks that take some: what a coalesced run does
# for every request it answers (socialsite/durable.py).
TASK_KEYWORDS = {
    "timelines.refresh_post_copies": {
        "items": ["likes_count", "reposts_count", "comments_count", "comments_shown"]
    },
}


def _task_calls(values: dict) -> dict[str, tuple]:
    """Valid arguments for each task (strings: they cross a queue)."""
    post = values["post_id"][0]
    return {
        "timelines.deliver_post": (post,),
        "timelines.resync": ("bob", "alice"),
        "timelines.rebuild": ("bob", "news"),
        "timelines.refresh_post_copies": (post,),
        "timelines.refresh_circle_copies": ("alice", "friends"),
        "timelines.deliver_repost": (post, "bob"),
        "comments.refresh_summary": (post,),
        "notifications.tell": ("alice", "like", "bob", post),
        "notifications.tell_post_created": (post, "bob", "alice", "carol"),
        "notifications.tell_comment_created": (post, "alice", "bob", "x", None, "carol"),
        "ads.ads_pacing": (),
        # A delivery nobody wrote: the claim by `_id` finds nothing to send.
        "federation.send_deliveries": (["000000000000000000000000"],),
        "profiles.build_export": (values.get("export_id", ["x"])[0],),
        "profiles.password_reset_send": ("bob@example.org", "http://testserver"),
        # Last: it erases dora (an erasure job is made for her first).
        "profiles.erase_account": ("dora",),
    }


def _our_commands() -> set[str]:
    """The project's commands, less Django's SQL commands it answers with a
    sentence (socialsite/management/no_sql.py: they read nothing)."""
    from django.core.management import get_commands, load_command_class

    from socialsite.management.no_sql import NoSqlCommand

    ours = (
        "socialsite",
        "profiles",
        "feeds",
        "timelines",
        "comments",
        "moderation",
        "notifications",
    )
    return {
        name
        for name, app in get_commands().items()
        if app in (*ours, "ads", "devlens")
        and not isinstance(load_command_class(app, name), NoSqlCommand)
    }


# `manage.py` commands with the arguments they are run with; None: not run,
# with the reason.
COMMANDS: dict[str, list[str] | str] = {
    "ads_pacing": [],
    "convert_comments": ["--to", "buckets"],
    "truncate_comments": ["--limit", "2"],
    "feed_stats": [],
    "rebuild_feeds": ["--all"],
    "redeliver_pending": [],
    "create_admin": ["--handle", "root", "--name", "Root", "--password", "zq8!vLx#2pRt"],
    "createsuperuser": "create_admin under Django's name (the same command, run above)",
    "expire_suspensions": [],
    "set_role": ["bob", "moderator"],
    "repair_graph": [],
    "accounts_sweep": ["--older-than", "0"],
    "ensure_indexes": [],
    "shard_plan": [],
    "seed_demo": "generated data written in bulk, read by the pages checked above",
    "demo": "seed_demo, then the development server",
    "run_worker": "the worker loop of a queue backend: it runs the tasks checked here",
}


def test_every_task_and_command_is_driven():
    """A new task or command must be added to `_task_calls` or COMMANDS."""
    assert set(_task_calls({"post_id": ["x"]})) == set(_tasks())
    assert set(COMMANDS) == _our_commands()


@pytest.mark.parametrize("feed_model", ["cache", "month", "size"], indirect=True)
def test_tasks_and_commands_are_index_served(feed_model, small_world, recorder):
    """Each task once with valid arguments, then each command (the sweepers,
    rebuilds, conversions and repairs an operator runs)."""
    import io

    from django.core.management import call_command

    from feeds.services import reposts
    from profiles.documents import DataExport, ErasureJob, User

    reposts.repost_create(
        post_id=ObjectId(small_world.values["post_id"][0]), user=User.objects.get(handle="bob")
    )
    # A queued export for the export task, and an erasure under way for dora's.
    DataExport(owner="bob").save()
    small_world.values["export_id"].insert(0, str(DataExport.objects(state="building")[0].id))
    ErasureJob(handle="dora").save()
    found = []
    tasks = _tasks()
    for name, arguments in _task_calls(small_world.values).items():
        recorder.queries, recorder.on = [], True
        try:
            tasks[name].call(*arguments, **TASK_KEYWORDS.get(name, {}))
        finally:
            recorder.on = False
        found += [f"task {name}: {problem}" for problem in problems(recorder.queries)]
    for name, arguments in COMMANDS.items():
        if isinstance(arguments, str):
            continue
        recorder.queries, recorder.on = [], True
        try:
            call_command(name, *arguments, stdout=io.StringIO(), stderr=io.StringIO())
        finally:
            recorder.on = False
        found += [f"manage.py {name}: {problem}" for problem in problems(recorder.queries)]
    assert not found, "\n".join(found)


def test_explain_output_of_an_aggregate_is_read_too():
    """A classic aggregate explain puts the plan in its first stage's
    `$cursor`; an index scan of a whole history has open bounds on its key."""
    open_month = {
        "stage": "IXSCAN",
        "indexName": "owner_kind_month_part",
        "indexBounds": {
            "owner": ['["bob", "bob"]'],
            "kind": ['["news", "news"]'],
            "month": ["[MaxKey, MinKey]"],
            "part": ["[MaxKey, MinKey]"],
        },
    }
    classic = {"stages": [{"$cursor": {"queryPlanner": {"winningPlan": open_month}}}]}
    assert plans.explain_problems(classic) == []
    assert plans.explain_problems(classic, ("month",)) == [plans.UNBOUNDED]
    bounded = {
        **open_month,
        "indexBounds": {**open_month["indexBounds"], "month": ['[MaxKey, "202611"]']},
    }
    assert plans.explain_problems({"queryPlanner": {"winningPlan": bounded}}, ("month",)) == []
    sharded = {"shards": {"s0": {"queryPlanner": {"winningPlan": {"stage": "COLLSCAN"}}}}}
    assert plans.explain_problems(sharded) == [plans.COLLSCAN]
    mongoeco = {"engine_plan": {"engine": "memory", "plan": "scan"}, "remaining_pipeline": []}
    assert plans.explain_problems(mongoeco) is None


@pytest.mark.skipif(mongo.is_demo(), reason="explain needs a server (MONGODB_TEST_URI)")
def test_the_server_explains_the_aggregates_it_is_sent(feed_model):
    """Pass 2 sends each recorded aggregate's pipeline through `explain`
    (`_explained`). On MongoDB the old, unbounded `reposts_above` shows its
    open month; mongoeco's wire server answers with its own engine's plan,
    which has no MongoDB planner in it: there the simulation checks
    aggregates alone, and this test says so by skipping."""
    from timelines.stores.month import MonthStore

    when = now()
    post = ObjectId()
    MonthStore().append("news", "bob", [{"id": ObjectId(), "ts": when, "by": "ada", "of": post}])
    old = {"owner": "bob", "kind": "news", "entries.of": {"$in": [post]}}
    bounded = {**old, "month": {"$gte": month_of(when)}}

    def explain(match: dict) -> dict:
        command = {"aggregate": "timeline_month", "pipeline": [{"$match": match}], "cursor": {}}
        return mongo.database().command("explain", command, verbosity="queryPlanner")

    plan = explain(old)
    if plans.explain_problems(plan) is None:
        assert "engine_plan" in plan, f"an explain answer nobody reads: {plan}"
        pytest.skip(
            "mongoeco_gap: mongoeco's wire server explains an aggregate with its own "
            "engine's plan, not MongoDB's planner; aggregates are checked by simulation there"
        )
    assert plans.UNBOUNDED in plans.explain_problems(plan, ("month",))
    assert plans.explain_problems(explain(bounded), ("month",)) == []
    assert plans.COLLSCAN in plans.explain_problems(explain({"entries.by": "ada"}))
