"""Benchmark the timeline storage models on one Zipf follower graph.

    .venv/bin/python -m benchmarks.feeds --users 2000 --maxfollows 100 --posts 2000

For each model: seed the graph, create `--posts` posts from Zipf-chosen
authors through `post_create` (delivery runs in the same thread, on the
immediate tasks backend), read `--reads` news pages of random users, then
count what the timelines store. Round trips are counted the way the tests
count them (docs/performance.md). Then, unless --no-shadows, each stored model runs
again with FEED_SHADOW_MODELS=all (every stored model kept current, as the
demo does for /dev/) and a second table prints what shadows cost a fan-out.
It runs against MONGODB_URI when that is set (the database is emptied: pass
--wipe), and otherwise in demo mode (in-process database), whose timings say
nothing about MongoDB.
"""

import argparse
import random
import sys
import time
from dataclasses import dataclass

from benchmarks.common import (
    add_common_arguments,
    announce_database,
    empty_database,
    per,
    rate,
    setup_django,
    table,
)

TIMELINE_MODELS = ("cache", "month", "size", "read")
HEADER = (
    "model",
    "posts/s",
    "entries/s",
    "reads/s",
    "trips/post",
    "trips/read",
    "timeline docs",
    "timeline entries",
)
IMMEDIATE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


@dataclass
class Result:
    model: str
    posts: int
    post_seconds: float
    entries: int
    post_trips: int
    reads: int
    read_seconds: float
    read_trips: int
    docs: int
    stored: int

    def row(self) -> tuple[str, ...]:
        return (
            self.model,
            rate(self.posts, self.post_seconds),
            rate(self.entries, self.post_seconds),
            rate(self.reads, self.read_seconds),
            per(self.post_trips, self.posts),
            per(self.read_trips, self.reads),
            f"{self.docs:,}",
            f"{self.stored:,}",
        )


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.feeds", description=__doc__)
    parser.add_argument("--users", type=int, default=250)
    parser.add_argument("--maxfollows", type=int, default=50)
    parser.add_argument("--posts", type=int, default=250)
    parser.add_argument("--reads", type=int, default=60, help="news first pages to read")
    parser.add_argument(
        "--models",
        default=",".join(TIMELINE_MODELS),
        help="comma-separated, from " + ",".join(TIMELINE_MODELS),
    )
    parser.add_argument("--embed", action="store_true", help="entries embed the post")
    parser.add_argument(
        "--no-shadows",
        action="store_false",
        dest="shadows",
        help="skip the runs with FEED_SHADOW_MODELS=all",
    )
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in models if m not in TIMELINE_MODELS]
    if unknown or not models:
        parser.error(f"--models: unknown model(s) {', '.join(unknown) or '(none)'}")
    if args.users < 2 or args.posts < 1 or args.reads < 0 or args.maxfollows < 1:
        parser.error("--users must be >= 2, --posts and --maxfollows >= 1, --reads >= 0")
    args.models = models
    return args


def prepare(args) -> list[str]:
    from profiles import demo
    from profiles.documents import User
    from socialsite.clock import now
    from timelines.stores import write_stores

    empty_database()
    handles = demo.seed(users=args.users, maxfollows=args.maxfollows, seed=args.seed)
    for store in write_stores():
        store.ensure_owner(handles)
    User._get_collection().update_many({}, {"$set": {"last_seen": now(), "status": "active"}})
    return handles


def write_posts(args, handles, rng) -> tuple[int, float, int, int]:
    """(posts, seconds, entries delivered, round trips)."""
    from feeds.documents import ALL_CIRCLES, PUBLIC, Post
    from feeds.services import posts as services
    from profiles.documents import User
    from socialsite import roundtrips
    from socialsite.zipf import Zipf
    from timelines.stores import write_stores

    users = {u.handle: u for u in User.objects(handle__in=handles)}
    authors = Zipf(len(handles), rng=rng)
    plan = []
    for i in range(args.posts):
        author = users[handles[authors.rank() - 1]]
        circles = [ALL_CIRCLES] if rng.random() < 0.2 else [PUBLIC]
        plan.append((author, circles, f"Benchmark post {i} by {author.handle}"))
    with roundtrips.count() as trips:
        start = time.perf_counter()
        for author, circles, text in plan:
            services.post_create(
                author=author, type="status", detail={"text": text}, circles=circles
            )
        seconds = time.perf_counter() - start
    entries = 0
    if write_stores():
        rows = Post._get_collection().aggregate(
            [
                {
                    "$group": {
                        "_id": None,
                        "news": {"$sum": "$delivery.readers"},
                        "walls": {"$sum": {"$cond": [{"$ifNull": ["$to", False]}, 2, 1]}},
                    }
                }
            ]
        )
        for row in rows:
            entries = row["news"] + row["walls"]
    return len(plan), seconds, entries, trips.total


def read_pages(args, handles, rng) -> tuple[int, float, int]:
    """(pages, seconds, round trips): first pages, and a second page now and then."""
    from profiles.documents import User
    from socialsite import roundtrips
    from socialsite.cursors import Cursor
    from timelines.selectors import pages as selectors

    if not args.reads:
        return 0, 0.0, 0
    viewers = [rng.choice(handles) for _ in range(args.reads)]
    users = {u.handle: u for u in User.objects(handle__in=sorted(set(viewers)))}
    pages = 0
    with roundtrips.count() as trips:
        start = time.perf_counter()
        for i, handle in enumerate(viewers):
            viewer = users[handle]
            page = selectors.news_page(viewer)
            pages += 1
            if i % 10 == 0 and page.next_cursor:
                selectors.news_page(viewer, Cursor.decode(page.next_cursor))
                pages += 1
        seconds = time.perf_counter() - start
    return pages, seconds, trips.total


def run_model(model: str, args, shadows: str = "") -> Result:
    from django.test import override_settings

    from timelines.stores import write_stores

    rng = random.Random(args.seed)
    overrides = {
        "FEED_MODEL": model,
        "FEED_EMBED": args.embed,
        "FEED_SHADOW_MODELS": shadows,
        "TASKS": IMMEDIATE_TASKS,
    }
    with override_settings(**overrides):
        handles = prepare(args)
        posts, post_seconds, entries, post_trips = write_posts(args, handles, rng)
        reads, read_seconds, read_trips = read_pages(args, handles, rng)
        every = [store.stats() for store in write_stores()]
        stats = {k: sum(s[k] for s in every) for k in ("documents", "entries")}
    return Result(
        model,
        posts,
        post_seconds,
        entries,
        post_trips,
        reads,
        read_seconds,
        read_trips,
        stats["documents"],
        stats["entries"],
    )


SHADOW_HEADER = (
    "model",
    "trips/post",
    "+shadows",
    "ms/post",
    "+shadows",
    "timeline docs",
    "+shadows",
)


def ms_per(seconds: float, n: int) -> str:
    return f"{1000 * seconds / n:.2f}" if n else "-"


def shadow_row(alone: Result, shadowed: Result) -> tuple[str, ...]:
    return (
        alone.model,
        per(alone.post_trips, alone.posts),
        per(shadowed.post_trips, shadowed.posts),
        ms_per(alone.post_seconds, alone.posts),
        ms_per(shadowed.post_seconds, shadowed.posts),
        f"{alone.docs:,}",
        f"{shadowed.docs:,}",
    )


def print_shadow_costs(args, results: list[Result]) -> None:
    """Each stored model again with FEED_SHADOW_MODELS=all, beside its own run."""
    rows = []
    for alone in results:
        if alone.model == "read":  # stores nothing: with shadows it writes the others
            continue
        started = time.perf_counter()
        shadowed = run_model(alone.model, args, shadows="all")
        print(f"  {alone.model}+shadows: done in {time.perf_counter() - started:.1f} s")
        rows.append(shadow_row(alone, shadowed))
    if rows:
        print()
        print("Cost of shadows (FEED_SHADOW_MODELS=all: every fan-out writes every stored model):")
        print(table([SHADOW_HEADER, *rows]))


def main(argv=None) -> int:
    args = parse_args(argv)
    setup_django()
    from django.conf import settings

    from profiles.documents import FollowingEdge

    caveat = (
        "It scans collections and copies documents (its aggregate, which the cache "
        "model's page read uses, copies the whole collection)."
    )
    if not announce_database(args, caveat):
        return 2
    print(
        f"users={args.users} maxfollows={args.maxfollows} posts={args.posts} "
        f"reads={args.reads} embed={args.embed} seed={args.seed} "
        f"page={settings.FEED_PAGE_SIZE} cache={settings.FEED_CACHE_SIZE} "
        f"bucket={settings.FEED_BUCKET_SIZE} batch={settings.FEED_FANOUT_BATCH}"
    )
    results = []
    for model in args.models:
        started = time.perf_counter()
        results.append(run_model(model, args))
        if model == args.models[0]:
            edges = FollowingEdge._get_collection().count_documents({})
            print(f"graph: {args.users} users, {edges} follow edges (Zipf, theta 0.99)")
        print(f"  {model}: done in {time.perf_counter() - started:.1f} s", flush=True)
    print()
    print(table([HEADER, *(r.row() for r in results)]))
    print()
    print(
        "entries/s counts news and wall entries written per second of posting; trips are "
        "database round trips (reads: the news page without session or user lookups). "
        "The read model stores nothing, so its reads do the work."
    )
    if args.shadows:
        print_shadow_costs(args, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
