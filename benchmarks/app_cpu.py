"""The app's own CPU time per page, the database excluded (docs/performance.md).

    .venv/bin/python -m benchmarks.app_cpu --users 100 --runs 50
    .venv/bin/python -m benchmarks.app_cpu --profile feed   # where the app time goes

Seeds a demo world (`seed_demo`) in the in-process database, signs in as
alice, and renders the signed-in feed, a wall, a post page with comments and a
people search through Django's test client, `--runs` times each. Per page it
prints the total time, the time spent inside the database (as the
round-trip counter clocks it, `socialsite.roundtrips`: every call into the
in-process database and every cursor batch, the same figure as the
`Server-Timing` db entry; on a real server that is the wait for the reply)
and the difference, the app's time: Django, middleware, templates and our
Python. Those three are wall-clock times, so on a loaded machine compare the
`app min` column of paired runs. `cpu ms` is the request's CPU time (this
thread's, the in-process database included), which other processes on the
machine do not inflate. Production settings: DEBUG off, so the cached
template loader and Django's template engine run as they do when serving.

`--profile <page>` runs that page under cProfile and lists the functions that
take the most app time: the in-process database's frames are left out of the
list (their time still counts in the `cum` of the app function that called
them).
"""

import argparse
import cProfile
import io
import os
import pstats
import statistics
import time

# Production-like settings (read when Django sets up): DEBUG off, plain http
# for the test client, and only this process's in-memory database.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
os.environ["DEBUG"] = "false"
os.environ.setdefault("SECRET_KEY", "benchmark-only-" + "x" * 40)
os.environ["MONGODB_URI"] = ""
for _flag in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
    os.environ[_flag] = "false"

PAGES = ("feed", "wall", "post", "search")
# Where the in-process database's frames come from, left out of `--profile`.
DATABASE_FRAMES = ("/mongomock/", "/embedded_mongo/")


def build_world(users: int, maxfollows: int) -> dict[str, str]:
    """Seed the demo world; the four pages' paths, as alice sees them."""
    from django.core.management import call_command

    from feeds.documents import Post
    from socialsite import indexes

    for document in indexes.all_documents():
        document._get_collection().delete_many({})
    started = time.thread_time()
    call_command("seed_demo", users=users, maxfollows=maxfollows, stdout=io.StringIO())
    print(f"Seeded {users} demo users in {time.thread_time() - started:.1f} s.")
    posts = Post._get_collection()
    # The busiest public thread, and the wall of its author (a wall with posts).
    busiest = posts.find_one(
        {"circles": "*public*", "removed": None}, sort=[("comments_count", -1)]
    )
    return {
        "feed": "/feed/",
        "wall": f"/u/{busiest['by']['id']}/",
        "post": f"/posts/{busiest['_id']}/",
        "search": "/search/?q=a",
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
    totals, dbs, cpus, trips = [], [], [], 0
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
        "total": total,
        "db": db,
        "app": statistics.median(apps),
        "app_min": apps[0],
        "cpu": statistics.median(cpus),
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

    import django

    django.setup()
    from django.test.utils import override_settings

    from benchmarks.common import table

    quiet = override_settings(
        # Unhashed static names: no collectstatic manifest needed to render.
        STORAGES={
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
        },
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        RATELIMIT_ENABLED=False,
    )
    quiet.enable()
    _silence_request_log()
    paths = build_world(args.users, args.maxfollows)
    client = signed_in_client()
    if args.profile:
        profile(client, paths[args.profile], args.runs, args.top, args.sort)
        return
    rows = [("page", "path", "total ms", "db ms", "app ms", "app min", "cpu ms", "trips", "KB")]
    for page in PAGES:
        got = measure(client, paths[page], args.runs)
        rows.append(
            (
                page,
                paths[page],
                f"{got['total']:.1f}",
                f"{got['db']:.1f}",
                f"{got['app']:.1f}",
                f"{got['app_min']:.1f}",
                f"{got['cpu']:.1f}",
                str(got["trips"]),
                f"{got['bytes'] / 1024:.0f}",
            )
        )
    print(f"\nMedians of {args.runs} renders per page, signed in as alice ({args.users} users):")
    print(table(rows))


def _silence_request_log() -> None:
    """The JSON request log still formats each line (that is app time), but
    writes it nowhere, so the table is readable."""
    import logging

    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)


if __name__ == "__main__":
    main()
