"""How the embedded demo database's page queries scale with the size of the world.

    .venv/bin/python -m benchmarks.demo_db --users 150 1500
    .venv/bin/python -m benchmarks.demo_db --users 150 1500 --engine scan  # mongomock's scans
    .venv/bin/python -m benchmarks.demo_db --users 150 1500 --engine mongoeco  # in-process
    .venv/bin/python -m benchmarks.demo_db --users 150 1500 --pages  # seed_demo, whole pages

For each size it bulk-inserts a synthetic world shaped like the demo's (users,
their sessions, posts by Zipf-chosen authors, a news and a wall timeline per
user under the `cache` model, comments), with the collections and indexes the
apps declare, then times the queries a page makes, each size in turn so that
the machine's load weighs on all alike, and prints one table: the median
milliseconds per query at each size and the ratio of the largest to the
smallest. A flat demo database keeps that ratio near 1. With `--pages` it
seeds the demo world with `seed_demo` instead and times whole pages signed in
as alice (the feed, her wall, incoming, posting), through Django's test client.

Engines: `demo` is demo mode as the site runs it (mongomock with the
secondary indexes of embedded_mongo/indexes.py); `scan` is the same with
those indexes switched off (mongomock scanning and copying whole collections,
as before); `mongoeco` is mongoeco's in-process client, measured as the
alternative embedded engine (it is a dev dependency, for the wire server).
"""

import argparse
import datetime
import itertools
import os
import random
import re
import statistics
import time

from benchmarks.common import setup_django, table

POSTS_PER_USER = 8
COMMENTS_PER_POST = 2
TIMELINE_ENTRIES = 200
REPEAT = 30
PAGE_REPEAT = 15
# mongoeco's create_index spells pymongo's camelCase options in snake case.
_SNAKE = {
    "expireAfterSeconds": "expire_after_seconds",
    "partialFilterExpression": "partial_filter_expression",
}


def _zipf_author(rng: random.Random, weights: list[float], users: list[str]) -> str:
    # Early users are the popular ones, as in the demo's graph (Zipf, s = 1).
    return rng.choices(users, cum_weights=weights)[0]


def build_world(db, n_users: int, seed: int) -> dict:
    """Insert the synthetic world; returns what the queries need to name."""
    from bson import ObjectId

    rng = random.Random(seed)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    users = [f"user{i:05d}" for i in range(n_users)]
    db.user.insert_many(
        {"_id": h, "name": h.title(), "name_terms": [h], "role": "user", "status": "active"}
        for h in users
    )
    expire = start + datetime.timedelta(days=3650)
    db.session.insert_many(
        {"_id": f"s-{h}", "data": "{}", "expire": expire, "user": h} for h in users
    )
    posts, weights = [], list(itertools.accumulate(1 / (rank + 1) for rank in range(n_users)))
    for n in range(n_users * POSTS_PER_USER):
        author = _zipf_author(rng, weights, users)
        ts = start + datetime.timedelta(seconds=n)
        posts.append(
            {
                "_id": ObjectId(),
                "by": {"id": author, "name": author},
                "ts": ts,
                "type": "status",
                "circles": ["*public*"],
                "detail": {"text": "x" * 80},
                "comments_count": 0,
            }
        )
    db.post.insert_many(posts)
    ids = [p["_id"] for p in posts]
    db.timeline_cache.insert_many(
        {
            "owner": h,
            "kind": kind,
            "entries": [
                {"id": ids[rng.randrange(len(ids))], "ts": start, "by": "x"}
                for _ in range(TIMELINE_ENTRIES)
            ],
        }
        for h in users
        for kind in ("news", "wall")
    )
    comments = []
    for post in posts[: len(posts) // 2]:
        for c in range(COMMENTS_PER_POST):
            slug = f"{c:04x}"
            comments.append(
                {
                    "discussion_id": post["_id"],
                    "slug": slug,
                    "full_slug": f"{post['ts']}:{slug}",
                    "posted": post["ts"],
                    "author": {"id": users[c]},
                    "text": "y" * 40,
                    "depth": 0,
                }
            )
    db.comments.insert_many(comments)
    return {"users": users, "posts": posts, "rng": rng}


def _queries(db, world: dict) -> dict:
    """name -> a function making one query as a page does."""
    import pymongo

    users, posts, rng = world["users"], world["posts"], world["rng"]
    popular = users[0]
    middle = posts[len(posts) // 2]

    def user_by_id():
        db.user.find_one({"_id": rng.choice(users)})

    def session_by_id():
        db.session.find_one({"_id": f"s-{rng.choice(users)}"})

    def posts_in_20():
        wanted = [rng.choice(posts)["_id"] for _ in range(20)]
        list(db.post.find({"_id": {"$in": wanted}}))

    def timeline_first_page():
        list(
            db.timeline_cache.aggregate(
                [
                    {"$match": {"owner": rng.choice(users), "kind": "news"}},
                    {"$limit": 1},
                    {"$project": {"entries": {"$slice": ["$entries", 20]}}},
                ]
            )
        )

    def wall_keyset_page(author=None):
        author = author or rng.choice(posts)["by"]["id"]
        list(
            db.post.find({"by.id": author, "ts": {"$lt": middle["ts"]}})
            .sort([("ts", pymongo.DESCENDING), ("_id", pymongo.DESCENDING)])
            .limit(20)
        )

    def popular_wall_keyset_page():
        wall_keyset_page(popular)

    def recent_posts_range():
        since = middle["ts"] - datetime.timedelta(seconds=30)
        list(db.post.find({"ts": {"$gte": since, "$lt": middle["ts"]}}).sort("ts", -1).limit(20))

    def comment_page():
        list(
            db.comments.find({"discussion_id": rng.choice(posts[: len(posts) // 2])["_id"]})
            .sort("full_slug", 1)
            .limit(50)
        )

    def people_search():
        prefix = rng.choice(users)[:8]
        list(db.user.find({"_id": {"$gte": prefix, "$lt": prefix + "\uffff"}}).limit(20))

    def fan_out_push():
        owners = [rng.choice(users) for _ in range(20)]
        db.timeline_cache.update_many(
            {"owner": {"$in": owners}, "kind": "news"},
            {
                "$push": {
                    "entries": {
                        "$each": [{"id": middle["_id"], "ts": middle["ts"], "by": "x"}],
                        "$position": 0,
                        "$slice": TIMELINE_ENTRIES,
                    }
                }
            },
        )

    def insert_post():
        author = rng.choice(users)
        db.post.insert_one(
            {
                "by": {"id": author, "name": author},
                "ts": middle["ts"],
                "circles": ["*public*"],
                "type": "status",
                "detail": {},
            }
        )

    return {
        "find_one user by _id": user_by_id,
        "find_one session by _id (TTL)": session_by_id,
        "find post $in 20 _ids": posts_in_20,
        "timeline aggregate $match+$slice": timeline_first_page,
        "wall keyset by.id+ts sort limit 20": wall_keyset_page,
        "the same, most popular author": popular_wall_keyset_page,
        "post ts range sort limit 20": recent_posts_range,
        "comments by discussion sort": comment_page,
        "people search _id prefix range": people_search,
        "fan-out update_many $in 20 owners": fan_out_push,
        "insert_one post": insert_post,
    }


def _database(engine: str, n_users: int):
    """An empty database of its own for one world, with the declared indexes."""
    from embedded_mongo import indexes as demo_indexes
    from socialsite import indexes, mongo

    if engine == "mongoeco":
        import mongoeco

        client, options_of = mongoeco.MongoClient(), lambda k: _SNAKE.get(k, k)
    else:
        demo_indexes.set_enabled(engine == "demo")
        client, options_of = mongo.database().client, lambda k: k
    db = client[f"bench_demo_db_{n_users}"]
    for document in indexes.all_documents():
        name = document._get_collection_name()
        db.drop_collection(name)
        for index in document._meta.get("index_specs", []):
            options = {options_of(k): v for k, v in index.items() if k != "fields"}
            db[name].create_index(index["fields"], **options)
    return db


def measure(engine: str, sizes: list[int], seed: int) -> dict:
    """Build every world first, then time each query on them in turn, so that
    the machine's load weighs on every size alike."""
    worlds, built = {}, {}
    for n in sizes:
        db = _database(engine, n)
        started = time.perf_counter()
        worlds[n] = _queries(db, build_world(db, n, seed))
        built[n] = time.perf_counter() - started
    figures = {n: {} for n in sizes}
    for name in worlds[sizes[0]]:
        times = {n: [] for n in sizes}
        for n in sizes:
            worlds[n][name]()  # a first call may build an index lazily: not a page's cost
        for _ in range(REPEAT):
            for n in sizes:
                t0 = time.perf_counter()
                worlds[n][name]()
                times[n].append((time.perf_counter() - t0) * 1000)
        for n in sizes:
            figures[n][name] = statistics.median(times[n])
    return {n: (figures[n], built[n]) for n in sizes}


def measure_pages(engine: str, n_users: int, seed: int) -> tuple[dict, float]:
    """Seed the demo world with `seed_demo` and time whole pages as alice."""
    import io

    from django.core.management import call_command
    from django.test import Client

    from embedded_mongo import indexes as demo_indexes
    from profiles.demo import DEMO_PASSWORD
    from socialsite import indexes, mongo

    demo_indexes.set_enabled(engine == "demo")
    db = mongo.database()
    for document in indexes.all_documents():
        db.drop_collection(document._get_collection_name())
    indexes.ensure_all()
    started = time.perf_counter()
    call_command("seed_demo", users=n_users, seed=seed, stdout=io.StringIO())
    seeded = time.perf_counter() - started
    client = Client()
    client.post("/accounts/login/", {"username": "alice", "password": DEMO_PASSWORD})
    counter = itertools.count()

    def get(path):
        return lambda: client.get(path)

    def post_status():
        client.post("/posts/", {"type": "status", "text": f"benchmark {next(counter)}"})

    from feeds.documents import LIVE, PUBLIC, Post

    # The demo's public post with the longest discussion, and a followed wall.
    discussed = Post._get_collection().find_one(
        {"circles": PUBLIC, **LIVE}, sort=[("comments_count", -1)]
    )
    pages = {
        "GET /feed/": get("/feed/"),
        "GET /feed/ (older page)": get(_older_page(client)),
        "GET /u/alice/": get("/u/alice/"),
        "GET /u/<followed>/": get(f"/u/{_followed(client)}/"),
        "GET /incoming/": get("/incoming/"),
        "GET /u/alice/followers/": get("/u/alice/followers/"),
        "GET /search/?q=al": get("/search/?q=al"),
        "GET /posts/<id>/": get(f"/posts/{discussed['_id']}/"),
        "POST /posts/": post_status,
    }
    figures = {}
    for name, page in pages.items():
        page()
        times = []
        for _ in range(PAGE_REPEAT):
            t0 = time.perf_counter()
            page()
            times.append((time.perf_counter() - t0) * 1000)
        figures[name] = statistics.median(times)
    return figures, seeded


def _older_page(client) -> str:
    """The feed's second page, by its `rel="next"` link."""
    html = client.get("/feed/").content.decode()
    found = re.search(r'href="([^"]+)"[^>]*rel="next"', html) or re.search(
        r'rel="next"[^>]*href="([^"]+)"', html
    )
    return found.group(1).replace("&amp;", "&") if found else "/feed/"


def _followed(client) -> str:
    """Someone alice follows (the first on her following page)."""
    html = client.get("/u/alice/following/").content.decode()
    handles = [h for h in re.findall(r'href="/u/([a-z0-9_]+)/"', html) if h != "alice"]
    return handles[0] if handles else "alice"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, nargs="+", default=[150, 1500])
    parser.add_argument("--engine", choices=("demo", "scan", "mongoeco"), default="demo")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--pages",
        action="store_true",
        help="seed the demo with seed_demo and time whole pages instead of single queries",
    )
    args = parser.parse_args()
    os.environ.setdefault("RATELIMIT_ENABLED", "false")  # POST /posts/ in a loop
    setup_django()
    from socialsite import mongo

    if not mongo.is_demo():
        raise SystemExit("benchmarks.demo_db measures the embedded database: unset MONGODB_URI.")
    sizes = sorted(args.users)
    if args.pages:
        results = {n: measure_pages(args.engine, n, args.seed) for n in sizes}
    else:
        results = measure(args.engine, sizes, args.seed)
    first, last = sizes[0], sizes[-1]
    header = (
        "page (ms, median)" if args.pages else "query (ms, median)",
        *(f"{n:,} users" for n in sizes),
        f"{last:,}/{first:,}",
    )
    rows = [header]
    for name in results[first][0]:
        small, large = results[first][0][name], results[last][0][name]
        rows.append(
            (name, *(f"{results[n][0][name]:.2f}" for n in sizes), f"{large / small:.1f}x")
        )
    built = "(seed_demo, s)" if args.pages else "(building the world, s)"
    rows.append((built, *(f"{results[n][1]:.1f}" for n in sizes), ""))
    if args.pages:
        print(f"engine: {args.engine}; seed_demo worlds, as alice, {PAGE_REPEAT} runs a page")
    else:
        print(
            f"engine: {args.engine}; {POSTS_PER_USER} posts and 2 timelines a user, "
            f"{TIMELINE_ENTRIES} entries a timeline, {REPEAT} runs a query"
        )
    print(table(rows))


if __name__ == "__main__":
    main()
