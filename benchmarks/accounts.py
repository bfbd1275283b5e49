"""An account's export and erasure, on the demo's data.

    .venv/bin/python -m benchmarks.accounts                    # 200 users
    .venv/bin/python -m benchmarks.accounts --users 1500 --extra-posts 5000

Seeds the demo (`seed_demo`, every timeline model and comment store kept, as
the demo does), takes its most active person (most posts and comments), gives
them `--extra-posts` more posts (each delivered to their followers), then
builds their export and erases them, on the immediate tasks backend. It
prints the documents that named them per collection before, the export's
time, round trips and size, and the erasure's time and round trips (the
delete page's part and the whole walk, which the immediate backend runs),
then checks that no document names them any more (the audit log aside). It
runs against MONGODB_URI when that is set (the database is emptied: pass --wipe).
"""

import argparse
import io
import re
import sys
import time

from benchmarks.common import add_common_arguments, announce_database, empty_database, table

IMMEDIATE_TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.accounts", description=__doc__)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--extra-posts", type=int, default=500)
    parser.add_argument("--batch", type=int, default=None, help="ERASURE_BATCH (default: setting)")
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    if args.users < 10 or args.extra_posts < 0:
        parser.error("--users must be >= 10 and --extra-posts >= 0")
    return args


def most_active() -> str:
    from comments.documents import CommentDocument
    from feeds.documents import Post

    counts: dict[str, int] = {}
    for collection, field in ((Post, "$by.id"), (CommentDocument, "$author.id")):
        rows = collection._get_collection().aggregate(
            [{"$group": {"_id": field, "n": {"$sum": 1}}}]
        )
        for row in rows:
            counts[row["_id"]] = counts.get(row["_id"], 0) + row["n"]
    return max(sorted(counts), key=lambda handle: counts[handle])


def _pattern(handle: str) -> re.Pattern:
    """The handle as a whole word: "ann" is not in "anna"."""
    return re.compile(rf"(?<![a-z0-9_]){re.escape(handle)}(?![a-z0-9_])")


def naming(handle: str) -> dict[str, int]:
    """Documents per collection holding the handle anywhere (the audit log aside)."""
    from socialsite import mongo

    db, found = mongo.database(), {}
    named = _pattern(handle)
    for name in sorted(db.list_collection_names()):
        if name == "audit_log":
            continue
        hits = sum(1 for doc in db[name].find({}) if named.search(repr(doc)))
        if hits:
            found[name] = hits
    return found


def mongo_db():
    from socialsite import mongo

    return mongo.database()


def main(argv=None) -> int:
    args = parse_args(argv)
    from benchmarks.common import setup_django

    setup_django()
    from django.core.management import call_command
    from django.test import override_settings

    if not announce_database(args, "It scans every collection before and after."):
        return 2
    overrides = {
        "TASKS": IMMEDIATE_TASKS,
        "RATELIMIT_ENABLED": False,
        "FEED_SHADOW_MODELS": "all",
        "COMMENTS_SHADOW_STORES": "all",
    }
    if args.batch:
        overrides["ERASURE_BATCH"] = args.batch
    with override_settings(**overrides):
        return run(args, call_command)


def run(args, call_command) -> int:
    from django.conf import settings

    from feeds.documents import PUBLIC
    from feeds.services import posts
    from profiles.documents import DataExport, ErasureJob, User
    from profiles.services import erasure, exports
    from socialsite import roundtrips

    empty_database()
    started = time.perf_counter()
    call_command("seed_demo", users=args.users, seed=args.seed, stdout=io.StringIO())
    handle = most_active()
    person = User.objects.get(handle=handle)
    for i in range(args.extra_posts):
        posts.post_create(
            author=person, type="status", detail={"text": f"more {i}"}, circles=[PUBLIC]
        )
    print(
        f"users={args.users} person=@{handle} extra posts={args.extra_posts} "
        f"batch={settings.ERASURE_BATCH} (seeded in {time.perf_counter() - started:.1f} s)"
    )
    before = naming(handle)

    with roundtrips.count() as trips:
        started = time.perf_counter()
        export = exports.export_request(handle=handle)
        export_seconds = time.perf_counter() - started
    export.reload()
    assert export.state == "ready", export.state
    export_trips = trips.total

    with roundtrips.count() as trips:
        started = time.perf_counter()
        erasure.erasure_begin(user=User.objects.get(handle=handle))
        erase_seconds = time.perf_counter() - started
    erase_trips = trips.total
    after = naming(handle)
    assert not ErasureJob.objects(handle=handle).first(), "the walk did not finish"
    assert not DataExport.objects(owner=handle).first()

    rows = [("collection", "documents naming them before", "after")]
    rows += [(name, str(count), str(after.get(name, 0))) for name, count in before.items()]
    print()
    print(table(rows))
    print()
    print(
        table(
            [
                ("", "ms", "round trips", "size"),
                (
                    "export",
                    f"{1000 * export_seconds:,.0f}",
                    str(export_trips),
                    f"{export.size:,} B",
                ),
                (
                    "erasure",
                    f"{1000 * erase_seconds:,.0f}",
                    str(erase_trips),
                    f"{sum(before.values()):,} docs",
                ),
            ]
        )
    )
    print()
    if after:
        print(f"LEFT NAMING @{handle}: {after}")
        for name in after:
            for doc in mongo_db()[name].find({}):
                if _pattern(handle).search(repr(doc)):
                    print(f"  {name}: {doc}")
        return 1
    print(f"After the erasure no collection but the audit log names @{handle}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
