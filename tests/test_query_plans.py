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
from datetime import timedelta
from urllib.parse import urljoin

import pytest
from bson import ObjectId
from pymongo.errors import OperationFailure

from comments import services as comment_services
from feeds.documents import PUBLIC, MonthTimeline, Post, SizeTimeline
from feeds.services import posts as feed_services
from feeds.timelines import read
from moderation import services as moderation
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import FollowingEdge
from socialsite import indexes, mongo
from socialsite.clock import now
from socialsite.cursors import Cursor
from tests import plans
from tests.query_recorder import Recorder, install_listener, install_mongomock

# Queries a page may send that no index fully serves, each with the reason it
# is accepted for now. Keyed by the application function that sends the query
# and a field of its filter that tells it apart from that function's others.
# Empty now: people search by name was the last entry, until name_terms
# stored edge n-grams (profiles/services/users.py) and its branch became an
# equality on `(name_terms, _id)`.
ALLOWED: dict[tuple[str, str], str] = {}


def _allowed(query: plans.Query) -> bool:
    return any(query.caller == caller and field in query.filter for caller, field in ALLOWED)


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
    """COLLSCAN/SORT stages in the server's plan of a `find` (real server only)."""
    if mongo.is_demo() or query.op != "find":
        return []
    command = {"find": query.collection, "filter": query.filter}
    if query.sort:
        command["sort"] = dict(query.sort)
    if query.limit:
        command["limit"] = query.limit
    try:
        plan = mongo.database().command("explain", command, verbosity="queryPlanner")
    except OperationFailure:
        return []  # a wire server without `explain`: the declared-index check stands
    return plans.explain_problems(plan) or []  # None: no MongoDB planner (mongoeco)


def problems(queries: list[plans.Query]) -> list[str]:
    documents = _documents()
    found = []
    for query in queries:
        document = documents.get(query.collection)
        if document is None or _allowed(query):
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
    t = now()
    posts = [
        feed_services.post_create(
            author=ada,
            type="status",
            detail={"text": f"post {n}"},
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
    the pages send and the checker still flags; a fixed one must leave the list."""
    visit(login(world["bob"]), recorder, "/search/?q=ad")
    sent = [q for q in recorder.queries if q.caller == caller and field in q.filter]
    assert sent, f"{caller} no longer sends a query on {field}"
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
    post_indexes = plans.declared_indexes(Post)
    unsplit = plans.Query("post", one_in, (("ts", -1), ("_id", -1)), 20)
    assert plans.check(unsplit, post_indexes).problem == plans.SORT


# --- the checker itself -------------------------------------------------------

INDEXES = [
    plans.Index("_id_", (("_id", 1),)),
    plans.Index("by_ts", (("by", 1), ("ts", -1), ("_id", -1))),
    plans.Index("status_created", (("status", 1), ("created", -1))),
    plans.Index("tags", (("tags", 1), ("_id", 1))),
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
