"""Benchmark the three comment stores on one large discussion.

    .venv/bin/python -m benchmarks.comments --comments 2000 --threads-depth 12

For each store (COMMENTS_STORE: documents, embedded, buckets): post
`--comments` comments into one discussion through the store's `post` (for
documents and embedded a mix of top-level comments and replies down to
`--threads-depth`; buckets keeps comments chronologically, so all top level),
then read page 1 and a deep page (`--deep-page`, of COMMENTS_PAGE_SIZE
comments) `--reads` times each, in the threaded order where the store has one
and oldest first otherwise, and count the documents that hold the discussion.
Round trips are counted the way the tests count them (docs/performance.md). It runs
against MONGODB_URI when that is set (the database is emptied: pass --wipe),
and otherwise in demo mode on the in-process database, whose timings say nothing about
MongoDB.
"""

import argparse
import random
import sys
import time
from dataclasses import dataclass
from datetime import timedelta

from benchmarks.common import (
    add_common_arguments,
    announce_database,
    empty_database,
    per,
    rate,
    setup_django,
    table,
)

STORE_NAMES = ("documents", "embedded", "buckets")
HEADER = (
    "store",
    "order",
    "comments/s",
    "trips/comment",
    "page 1 reads/s",
    "trips/page 1",
    "deep reads/s",
    "trips/deep",
    "deep page",
    "docs/discussion",
    "max depth",
)


@dataclass
class Result:
    store: str
    order: str
    comments: int
    post_seconds: float
    post_trips: int
    reads: int
    first_seconds: float
    first_trips: int
    deep_seconds: float
    deep_trips: int
    deep_page: int
    docs: int
    max_depth: int

    def row(self) -> tuple[str, ...]:
        return (
            self.store,
            self.order,
            rate(self.comments, self.post_seconds),
            per(self.post_trips, self.comments),
            rate(self.reads, self.first_seconds),
            per(self.first_trips, self.reads),
            rate(self.reads, self.deep_seconds),
            per(self.deep_trips, self.reads),
            str(self.deep_page),
            f"{self.docs:,}",
            str(self.max_depth),
        )


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.comments", description=__doc__)
    parser.add_argument("--comments", type=int, default=2000, help="comments in the discussion")
    parser.add_argument(
        "--threads-depth", type=int, default=12, help="deepest reply (documents, embedded)"
    )
    parser.add_argument(
        "--replies", type=float, default=0.7, help="share of comments that are replies"
    )
    parser.add_argument("--reads", type=int, default=40, help="reads of each page")
    parser.add_argument("--deep-page", type=int, default=30, help="the deep page's number")
    parser.add_argument(
        "--stores",
        default=",".join(STORE_NAMES),
        help="comma-separated, from " + ",".join(STORE_NAMES),
    )
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = [s for s in stores if s not in STORE_NAMES]
    if unknown or not stores:
        parser.error(f"--stores: unknown store(s) {', '.join(unknown) or '(none)'}")
    if args.comments < 1 or args.reads < 1 or args.deep_page < 1 or args.threads_depth < 0:
        parser.error("--comments, --reads and --deep-page must be >= 1, --threads-depth >= 0")
    if not 0 <= args.replies <= 1:
        parser.error("--replies must be between 0 and 1")
    args.stores = stores
    return args


def new_discussion():
    from feeds.documents import PUBLIC, Author, Post

    post = Post(
        by=Author(id="bench", name="Bench"),
        circles=[PUBLIC],
        type="status",
        detail={"text": "A long discussion"},
    ).save()
    return post.id


def plan(args, threaded: bool, rng: random.Random) -> list[int | None]:
    """The parent (an earlier comment's index) of each comment, or None.

    Replies favour recent comments, so threads grow deep as well as wide."""
    parents: list[int | None] = []
    depths: list[int] = []
    for i in range(args.comments):
        parent = None
        if threaded and i and rng.random() < args.replies:
            candidate = max(0, i - 1 - int(rng.expovariate(1 / 8)))
            if depths[candidate] < args.threads_depth:
                parent = candidate
        parents.append(parent)
        depths.append(0 if parent is None else depths[parent] + 1)
    return parents


def documents_holding(store, discussion_id) -> int:
    from comments.documents import CommentBucket, CommentDocument

    if store.name == "documents":
        return CommentDocument._get_collection().count_documents({"discussion_id": discussion_id})
    if store.name == "buckets":
        return CommentBucket._get_collection().count_documents({"discussion_id": discussion_id})
    return 1  # embedded: the post itself


def timed_reads(store, discussion_id, order: str, after, reads: int) -> tuple[float, int]:
    from socialsite import roundtrips

    with roundtrips.count() as trips:
        start = time.perf_counter()
        for _ in range(reads):
            page = store.page(discussion_id, order=order, after=after)
            assert page.comments
        seconds = time.perf_counter() - start
    return seconds, trips.total


def run_store(name: str, args) -> Result:
    from django.test import override_settings

    from comments.stores import get_store
    from socialsite import roundtrips
    from socialsite.clock import now

    rng = random.Random(args.seed)
    with override_settings(COMMENTS_STORE=name):
        empty_database()
        store = get_store(name)
        discussion_id = new_discussion()
        parents = plan(args, store.threaded, rng)
        authors = [{"id": f"user{i}", "name": f"User {i}"} for i in range(20)]
        start_time = now() - timedelta(seconds=len(parents))
        made = []
        with roundtrips.count() as trips:
            start = time.perf_counter()
            for i, parent in enumerate(parents):
                made.append(
                    store.post(
                        discussion_id,
                        author=authors[i % len(authors)],
                        text=f"Comment {i}: " + "lorem ipsum " * rng.randint(1, 12),
                        parent_slug=None if parent is None else made[parent].slug,
                        posted=start_time + timedelta(seconds=i),
                    )
                )
            post_seconds = time.perf_counter() - start
        order = "threaded" if store.threaded else "oldest"
        # The cursor of the deep page: follow `next` there once, untimed.
        deep, after = 1, None
        while deep < args.deep_page:
            page = store.page(discussion_id, order=order, after=after)
            if page.next is None:
                break
            deep, after = deep + 1, page.next
        first_seconds, first_trips = timed_reads(store, discussion_id, order, None, args.reads)
        deep_seconds, deep_trips = timed_reads(store, discussion_id, order, after, args.reads)
        return Result(
            store=name,
            order=order,
            comments=len(made),
            post_seconds=post_seconds,
            post_trips=trips.total,
            reads=args.reads,
            first_seconds=first_seconds,
            first_trips=first_trips,
            deep_seconds=deep_seconds,
            deep_trips=deep_trips,
            deep_page=deep,
            docs=documents_holding(store, discussion_id),
            max_depth=max(c.depth for c in made),
        )


def main(argv=None) -> int:
    args = parse_args(argv)
    setup_django()
    from django.conf import settings

    caveat = (
        "It scans collections and copies whole documents on every read and write "
        "(the embedded store's post grows with the discussion)."
    )
    if not announce_database(args, caveat):
        return 2
    print(
        f"comments={args.comments} replies={args.replies:.0%} threads-depth={args.threads_depth} "
        f"reads={args.reads} page={settings.COMMENTS_PAGE_SIZE} "
        f"bucket={settings.COMMENTS_BUCKET_SIZE} seed={args.seed}"
    )
    results = []
    for name in args.stores:
        started = time.perf_counter()
        results.append(run_store(name, args))
        print(f"  {name}: done in {time.perf_counter() - started:.1f} s", flush=True)
    print()
    print(table([HEADER, *(r.row() for r in results)]))
    print()
    print(
        "comments/s: comments posted per second through the store (one discussion); "
        "reads/s: pages of COMMENTS_PAGE_SIZE read per second, page 1 and the deep page "
        "(reached by cursor); trips are database round trips; docs/discussion: documents "
        "holding the discussion (comments, the post, or buckets). buckets cannot thread, "
        "so it stores every comment top level and pages oldest first."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
