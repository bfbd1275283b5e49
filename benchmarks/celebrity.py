"""A send by an author with many followers, pushed and pulled.

    .venv/bin/python -m benchmarks.celebrity                  # 10,000 followers
    .venv/bin/python -m benchmarks.celebrity --followers 100000 --models cache,size

The fan-out article's celebrity problem (docs/performance.md#celebrities-are-pulled).
For each stored model, the benchmark empties the database and inserts one
author with `--followers` active followers (both edge collections, and the
`cache` documents sign-up makes). It then sends `--sends` public posts
through `post_create` (delivery in the same thread, on the immediate tasks
backend) twice: with the author pushed, and with the author pulled (marked
past FEED_PULL_THRESHOLD long ago). After each, it reads `--reads` news first
pages of random followers. It prints, per model and way, the round trips,
milliseconds and timeline entries written per send, and the round trips and
milliseconds per page read (without the session a request adds). It runs
against MONGODB_URI when that is set (the database is emptied: pass --wipe).
"""

import argparse
import random
import sys
import time

from benchmarks.common import (
    add_common_arguments,
    announce_database,
    empty_database,
    per,
    setup_django,
    table,
)

STORED_MODELS = ("cache", "month", "size")
IMMEDIATE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
HEADER = ("model", "way", "trips/send", "ms/send", "entries/send", "trips/read", "ms/read")
SLICE = 5000  # documents per bulk insert


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.celebrity", description=__doc__)
    parser.add_argument("--followers", type=int, default=10000)
    parser.add_argument("--sends", type=int, default=5)
    parser.add_argument("--reads", type=int, default=20)
    parser.add_argument("--models", default=",".join(STORED_MODELS))
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    if not args.models or any(m not in STORED_MODELS for m in args.models):
        parser.error(f"--models: a comma list of {', '.join(STORED_MODELS)}")
    if args.followers < 1 or args.sends < 1 or args.reads < 1:
        parser.error("--followers, --sends and --reads must be >= 1")
    return args


def _insert(collection, docs: list[dict]) -> None:
    for start in range(0, len(docs), SLICE):
        collection.insert_many(docs[start : start + SLICE], ordered=False)


def prepare(followers: int) -> list[str]:
    """The author and their followers, in bulk; returns the followers."""
    from profiles.documents import FollowerEdge, FollowingEdge, User
    from socialsite.clock import now
    from timelines.stores import write_stores

    empty_database()
    t = now()
    fans = [f"fan{i:06d}" for i in range(followers)]
    person = {
        "password": "x",
        "status": "active",
        "last_seen": t,
        "blocked": [],
        "muted": [],
        "remote_followers_count": 0,  # as user_create writes it: nobody elsewhere to tell
    }
    _insert(
        User._get_collection(),
        [{"_id": h, "name": h, **person} for h in ["star", *fans]],
    )
    User._get_collection().update_one({"_id": "star"}, {"$set": {"followers_count": followers}})
    edge = {"_g": [], "state": "active", "since": t, "changed": t}
    _insert(FollowingEdge._get_collection(), [{"_f": h, "_t": "star", **edge} for h in fans])
    _insert(FollowerEdge._get_collection(), [{"_f": "star", "_t": h, "since": t} for h in fans])
    for store in write_stores():
        store.ensure_owner(["star", *fans])
    return fans


def send_and_read(args, fans: list[str], rng: random.Random) -> tuple[str, ...]:
    from feeds.documents import PUBLIC, Post
    from feeds.services import posts as services
    from profiles.documents import User
    from socialsite import roundtrips
    from timelines.selectors import pages as selectors

    star = User.objects.get(handle="star")
    with roundtrips.count() as trips:
        started = time.perf_counter()
        for i in range(args.sends):
            services.post_create(
                author=star, type="status", detail={"text": f"send {i}"}, circles=[PUBLIC]
            )
        send_seconds = time.perf_counter() - started
    rows = Post._get_collection().find({}, {"delivery.readers": 1, "to": 1})
    entries = sum((row.get("delivery") or {}).get("readers", 0) + 1 for row in rows)
    readers = [User.objects.get(handle=rng.choice(fans)) for _ in range(args.reads)]
    with roundtrips.count() as reads:
        started = time.perf_counter()
        for reader in readers:
            page = selectors.news_page(reader).posts
            assert page and page[0]["by"]["id"] == "star", "the newest send tops the page"
        read_seconds = time.perf_counter() - started
    return (
        per(trips.total, args.sends),
        f"{1000 * send_seconds / args.sends:.1f}",
        per(entries, args.sends),
        per(reads.total, args.reads),
        f"{1000 * read_seconds / args.reads:.2f}",
    )


def run_model(model: str, args) -> list[tuple[str, ...]]:
    from django.test import override_settings

    from socialsite.cursors import EPOCH
    from timelines.delivery import pulled as pulling
    from timelines.selectors import pulled

    rows = []
    for way in ("pushed", "pulled"):
        rng = random.Random(args.seed)
        overrides = {
            "FEED_MODEL": model,
            "FEED_SHADOW_MODELS": "",
            "TASKS": IMMEDIATE_TASKS,
            # Pushed: never past the threshold. Pulled: marked long ago.
            "FEED_PULL_THRESHOLD": 10 * args.followers if way == "pushed" else 0,
        }
        with override_settings(**overrides):
            fans = prepare(args.followers)
            if way == "pulled":
                pulling.mark("star", since=EPOCH)
            pulled.authors()  # each process reads the list once a while, not per send
            rows.append((model, way, *send_and_read(args, fans, rng)))
        pulled.forget()
    return rows


def main(argv=None) -> int:
    args = parse_args(argv)
    setup_django()
    from django.conf import settings

    if not announce_database(args, "It scans collections and copies documents."):
        return 2
    print(
        f"followers={args.followers} sends={args.sends} reads={args.reads} "
        f"batch={settings.FEED_FANOUT_BATCH} page={settings.FEED_PAGE_SIZE}"
    )
    rows = []
    for model in args.models:
        started = time.perf_counter()
        rows += run_model(model, args)
        print(f"  {model}: done in {time.perf_counter() - started:.1f} s", flush=True)
    print()
    print(table([HEADER, *rows]))
    print()
    print(
        "A send is post_create with its delivery (immediate tasks); entries are the news "
        "and wall entries written. A read is a follower's news first page without the "
        "session a request adds: pulled, it merges the author's posts when read."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
