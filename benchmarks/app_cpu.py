"""The app's own CPU time per page, the database excluded (docs/performance.md).

    .venv/bin/python -m benchmarks.app_cpu --users 100 --runs 50
    .venv/bin/python -m benchmarks.app_cpu --profile feed   # where the app time goes

Seeds a demo world (`seed_demo`) in the in-process database, signs in as
alice, and renders the signed-in feed, a wall, a post page with comments, a
people search, her notifications and her longest conversation (its newest
page: MESSAGES_PAGE_SIZE messages) through Django's test client, `--runs`
times each. Per page it prints the CPU time of the request (this thread's,
`time.thread_time`, the in-process database's share included: the figure
to compare on a loaded machine), the total time, the time spent inside the
database (as the round-trip counter clocks it, `socialsite.roundtrips`:
every call into the in-process database and every cursor batch, the same
figure as the `Server-Timing` db entry; on a real server that is the wait
for the reply) and the difference, the app's time: Django, middleware,
templates and our Python. Those three are wall-clock times: on a loaded
machine compare the `cpu ms` column, or the `app min` column of paired runs.
Production settings: DEBUG off, so the cached template loader and Django's
template engine run as they do when serving.

`--profile <page>` runs that page under cProfile and lists the functions that
take the most app time: the in-process database's frames are left out of the
list (their time still counts in the `cum` of the app function that called
them).
"""

import argparse
import cProfile
import io
import pstats
import statistics
import time

PAGES = ("feed", "wall", "post", "search", "notifications", "conversation")
# Where the in-process database's frames come from, left out of `--profile`.
DATABASE_FRAMES = ("/mongomock/", "/embedded_mongo/")


def seed_world(users: int, maxfollows: int) -> tuple[float, int]:
    """Empty the database and seed the demo world (`seed_demo`): the CPU
    seconds it took this thread and its round trips (the seeders' tasks run
    inline, on this thread).

    The collections are dropped, and `seed_demo` creates their indexes
    again: a world seeded after another one (benchmarks/growth.py) costs
    what seeding a new database costs. Emptied, they kept what the embedded
    database had built on demand for the last world's pages (sorted orders,
    range lists), which every document seeded then kept current: 42 s of CPU
    for 5,000 users after 150, 28 s on its own."""
    from django.core.management import call_command

    from socialsite import indexes, roundtrips

    for document in indexes.all_documents():
        document._get_collection().drop()
    started, trips = time.thread_time(), roundtrips.total()
    call_command("seed_demo", users=users, maxfollows=maxfollows, stdout=io.StringIO())
    return time.thread_time() - started, roundtrips.total() - trips


def build_world(users: int, maxfollows: int) -> dict[str, str]:
    """Seed the demo world; the pages' paths, as alice sees them."""
    from feeds.documents import Post
    from messaging.documents import Conversation

    cpu, _ = seed_world(users, maxfollows)
    print(f"Seeded {users} demo users in {cpu:.1f} s.")
    posts = Post._get_collection()
    # The busiest public thread, and the wall of its author (a wall with posts).
    busiest = posts.find_one(
        {"circles": "*public*", "removed": None}, sort=[("comments_count", -1)]
    )
    # Her longest conversation: its newest page is a full page of messages.
    longest = Conversation._get_collection().find_one({"active": "alice"}, sort=[("count", -1)])
    return {
        "feed": "/feed/",
        "wall": f"/u/{busiest['by']['id']}/",
        "post": f"/posts/{busiest['_id']}/",
        "search": "/search/?q=a",
        "notifications": "/notifications/",
        "conversation": f"/messages/{longest['_id']}/",
    }


def signed_in_client():
    from django.test import Client

    from profiles.demo import DEMO_PASSWORD

    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": DEMO_PASSWORD})
    if response.status_code != 302:
        raise SystemExit(f"Could not sign in as alice: {response.status_code}")
    return client


def measure(client, path: str, runs: int) -> dict:
    from socialsite import roundtrips

    for _ in range(3):  # warm: template loader, URL resolver, imports
        client.get(path)
    totals, cpus, dbs, trips = [], [], [], 0
    for _ in range(runs):
        with roundtrips.count() as counted:
            started, cpu_started = time.perf_counter(), time.thread_time()
            response = client.get(path)
            cpus.append((time.thread_time() - cpu_started) * 1000)
            totals.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}")
        dbs.append(counted.ms)
        trips = counted.total
    total, db = statistics.median(totals), statistics.median(dbs)
    apps = sorted(t - d for t, d in zip(totals, dbs, strict=True))
    return {
        "cpu": statistics.median(cpus),
        "total": total,
        "db": db,
        "app": statistics.median(apps),
        "app_min": apps[0],
        "trips": trips,
        "bytes": len(response.content),
    }


def profile(client, path: str, runs: int, top: int, by: str) -> None:
    """cProfile the page; list app functions by own time, database frames out."""
    for _ in range(3):
        client.get(path)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        client.get(path)
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = []
    for (file, line, name), (_, calls, tottime, cumtime, callers) in stats.stats.items():
        if "benchmarks/app_cpu" in file or _database_frame(file):
            continue
        # Built-ins the database called (isinstance, dict.get...) are its time too.
        for caller, (_, caller_calls, caller_tottime, caller_cumtime) in callers.items():
            if _database_frame(caller[0]):
                calls -= caller_calls
                tottime -= caller_tottime
                cumtime -= caller_cumtime
        if calls > 0:
            rows.append(
                (tottime, cumtime, calls, f"{file.split('site-packages/')[-1]}:{line}({name})")
            )
    rows.sort(reverse=True, key=lambda row: row[0 if by == "own" else 1])
    print(f"\n{path}: top {top} by {by} time, ms per page (database frames left out)")
    print(f"{'own':>7} {'cum':>7} {'calls':>6}  function")
    for tottime, cumtime, calls, where in rows[:top]:
        print(
            f"{tottime * 1000 / runs:7.2f} {cumtime * 1000 / runs:7.2f} {calls // runs:6}  {where}"
        )


def _database_frame(file: str) -> bool:
    return any(part in file for part in DATABASE_FRAMES)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--maxfollows", type=int, default=40)
    parser.add_argument("--runs", type=int, default=30, help="renders per page")
    parser.add_argument("--profile", choices=PAGES, help="cProfile this page instead")
    parser.add_argument("--top", type=int, default=30, help="functions listed by --profile")
    parser.add_argument("--sort", choices=("own", "cum"), default="own", help="--profile's order")
    args = parser.parse_args(argv)

    from benchmarks.common import production_like, serving_overrides, silence_request_log, table

    production_like()
    import django

    django.setup()
    serving_overrides().enable()
    silence_request_log()
    paths = build_world(args.users, args.maxfollows)
    client = signed_in_client()
    if args.profile:
        profile(client, paths[args.profile], args.runs, args.top, args.sort)
        return
    rows = [("page", "path", "cpu ms", "total ms", "db ms", "app ms", "app min", "trips", "KB")]
    for page in PAGES:
        got = measure(client, paths[page], args.runs)
        rows.append(
            (
                page,
                paths[page],
                f"{got['cpu']:.1f}",
                f"{got['total']:.1f}",
                f"{got['db']:.1f}",
                f"{got['app']:.1f}",
                f"{got['app_min']:.1f}",
                str(got["trips"]),
                f"{got['bytes'] / 1024:.0f}",
            )
        )
    print(f"\nMedians of {args.runs} renders per page, signed in as alice ({args.users} users):")
    print(table(rows))


if __name__ == "__main__":
    main()
