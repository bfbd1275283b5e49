"""Each page's CPU and round trips as the world grows (docs/performance.md#growth).

    .venv/bin/python -m benchmarks.growth --users 150,1500,15000 --runs 30
    .venv/bin/python -m benchmarks.growth --users 150,1500            # a few minutes

For each user count in turn it drops the in-process embedded database's
collections and seeds the demo world into new ones (`seed_demo`,
benchmarks/app_cpu.py's `seed_world`),
with the settings app_cpu measures under (DEBUG off, the demo's defaults of
a server without MONGODB_URI: every timeline model and comment store kept,
authors past 100 followers pulled). Then, signed in as alice through
Django's test client, it measures each operation `--runs` times:

- pages: her news feed; someone's wall (the biggest wall with circle
  posts she may not see, so its page reads past them, topped up to a full
  page at every size: `_fill_wall`); a post search
  ("coffee", a word of many demo posts); a people search ("a"); her
  notifications; a conversation (the first page, 30 messages, of her long
  one); and the floor, `/settings/`: a signed-in page that does nothing but
  show the site's frame (session, user, middleware, base template).
- background work: a like and a comment, on the newest public post of the
  most followed author whose posts are pushed, not pulled (so it is held by
  about FEED_PULL_THRESHOLD timelines in each stored model at any world
  size). The request only queues its tasks (the dummy task backend); the
  tasks it queued, and the ones they queue, then run in this thread as a
  worker runs them. The figures are the tasks' alone: the like's count and
  copy refreshes and its notification, the comment's summary refresh and
  notifications. The like is undone after each run (the unlike and its
  tasks untimed), so every run likes anew; each comment stays.

An operation's figures: the CPU time of this thread (`time.thread_time`,
so neither the machine's other processes nor its waits count), median of
the runs, after two warm-up rounds (template loader, URL resolver,
imports), and its round trips, counted as the `Server-Timing` header
counts them (socialsite/roundtrips.py): a page's whole request, session
and user included. Each round runs every operation once, in the same order,
so the columns of different user counts compare run for run; the machine's
noise is printed below the table (the load, and how far an operation's runs
spread around its median). The seeding row is `seed_demo`'s CPU seconds and
round trips for that user count.

At the largest count the operations then run `--runs` rounds more under a
sampler of this thread's frames (benchmarks/layers.py, which says how a
frame's layer is found): the share of each one's CPU in the database,
Django's templates, the middleware and our own code; more rounds while an
operation has fewer than LEAST_SAMPLES samples. The sampled rounds do not
count in the CPU column, and nothing samples the timed ones.
"""

import argparse
import itertools
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from benchmarks import layers

READER = "alice"
SEARCH_WORD = "coffee"
FLOOR = "floor: a signed-in /settings/"
SEEDING = "seeding the demo (CPU s)"
WARM_ROUNDS = 2
# Samples an operation's layer shares should rest on: sampled rounds go on
# past `--runs` until each has them, up to MOST_SAMPLED_ROUNDS times `--runs`.
LEAST_SAMPLES = 100
MOST_SAMPLED_ROUNDS = 20
DUMMY_TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}


# The part of a run that is measured is run inside `window()`: the sampled
# rounds name the operation to the sampler there, and only there.
Window = Callable[[], AbstractContextManager[object]]
Run = Callable[[Window], tuple[float, int]]  # one run: CPU seconds, round trips


@dataclass
class Operation:
    name: str
    run: Run


@dataclass
class Figures:
    """What one user count measured: per operation the runs' CPU seconds and
    round trips, and the seeding's."""

    users: int
    seeding: tuple[float, int]
    cpu: dict[str, list[float]] = field(default_factory=dict)
    trips: dict[str, list[int]] = field(default_factory=dict)
    load: float = 0.0


def run_queued(window: Window = nullcontext) -> tuple[float, int]:
    """Run what the request queued, and what that queues, as a worker runs
    it: this thread's CPU seconds and the round trips."""
    from django.tasks import task_backends

    from socialsite import roundtrips

    backend: Any = task_backends["default"]
    with window(), roundtrips.count() as trips:
        started = time.thread_time()
        while backend.results:
            result = backend.results.pop(0)
            result.task.call(*result.args, **result.kwargs)
        cpu = time.thread_time() - started
    return cpu, trips.total


def page(client: Any, path: str) -> Run:
    from socialsite import roundtrips

    def run(window: Window) -> tuple[float, int]:
        with window(), roundtrips.count() as trips:
            started = time.thread_time()
            response = client.get(path)
            cpu = time.thread_time() - started
        if response.status_code != 200:
            raise SystemExit(f"{path} answered {response.status_code}")
        run_queued()  # what a page queued is not its figure
        return cpu, trips.total

    return run


def background(client: Any, path: str, form: Callable[[], dict], undo: str | None = None) -> Run:
    """The tasks a POST to `path` queues (the request itself untimed)."""

    def run(window: Window) -> tuple[float, int]:
        response = client.post(path, form())
        if response.status_code != 302:
            raise SystemExit(f"POST {path} answered {response.status_code}")
        figures = run_queued(window)
        if undo:
            client.post(undo)
            run_queued()
        return figures

    return run


def wall_with_hidden_posts(reader: str) -> str:
    """The biggest wall (most posts) among the authors, not the reader, who
    wrote circle posts the reader is in none of the circles of: a wall whose
    page must read past posts it may not show."""
    from feeds.documents import ALL_CIRCLES, PUBLIC, Post
    from profiles.documents import FollowingEdge

    # Whose circles the reader is in: the edges to the reader, with the
    # owner's circle names for them.
    placed = {
        edge["_f"]: set(edge.get("_g") or ())
        for edge in FollowingEdge._get_collection().find({"_t": reader}, {"_f": 1, "_g": 1})
    }
    posts: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    query = {"removed": None, "by.id": {"$ne": reader}}
    for post in Post._get_collection().find(query, {"by.id": 1, "circles": 1}):
        author, circles = post["by"]["id"], set(post["circles"])
        posts[author] += 1
        mine = placed.get(author, set())
        if PUBLIC not in circles and not (circles & mine or (ALL_CIRCLES in circles and mine)):
            hidden[author] += 1
    if not hidden:
        raise SystemExit("No wall has circle posts the reader may not see.")
    author = max(hidden, key=lambda author: (posts[author], hidden[author], author))
    _fill_wall(author, placed.get(author, set()), posts[author])
    return author


def _fill_wall(author: str, placed: set[str], have: int) -> None:
    """Top the wall up to two pages of posts and a bit, one in three in a
    circle the reader is in none of, so that its first page is full and reads
    past posts it may not show at every world size: at 150 users the biggest
    such wall holds eight posts, at 1,500 forty, and without this the
    columns would compare a page of seven cards with a page of twenty."""
    from django.conf import settings

    from feeds.documents import PUBLIC, Post
    from feeds.services.posts import post_create
    from profiles.documents import User
    from socialsite.clock import now

    user = User.objects.get(handle=author)
    unseen = [name for name in user.circles if name not in placed]
    if not unseen:
        raise SystemExit(f"{author} has no circle the reader is not in.")
    # Older than the author's every post: they fill the wall's page from
    # below and stay off the top of anyone's news feed, whose page would
    # otherwise be these short statuses at one size and the demo's mix of
    # photos, links and polls at another.
    oldest = Post.objects(by__id=author).order_by("ts").only("ts").first()
    start = (oldest.ts if oldest else now()) - timedelta(days=1)
    for n in range(2 * settings.FEED_PAGE_SIZE + 2 - have):
        circles = unseen[:1] if n % 3 == 0 else [PUBLIC]
        text = f"Growth benchmark wall post #{n}"
        ts = start - timedelta(minutes=n)
        post_create(author=user, type="status", detail={"text": text}, circles=circles, ts=ts)
    run_queued()  # their delivery, as a worker runs it


def post_with_most_copies(reader: str) -> str:
    """The newest public post of the most followed author (not the reader)
    whose posts are pushed, not pulled: the post held by the most timelines,
    about FEED_PULL_THRESHOLD of them at any world size, so a like's or a
    comment's work on its copies compares across the columns."""
    from feeds.documents import PUBLIC, Post
    from profiles.documents import User
    from timelines.selectors import pulled

    skipped = [reader, *pulled.authors()]
    authors = User._get_collection().find(
        {"_id": {"$nin": skipped}}, {"_id": 1}, sort=[("followers_count", -1), ("_id", 1)]
    )
    for author in authors:
        post = Post._get_collection().find_one(
            {"by.id": author["_id"], "circles": PUBLIC, "removed": None},
            {"_id": 1},
            sort=[("ts", -1)],
        )
        if post is not None:
            return str(post["_id"])
    raise SystemExit("No pushed author has a public post.")


def longest_conversation(reader: str) -> str:
    from messaging.documents import Conversation

    found = Conversation._get_collection().find_one(
        {"everyone": reader}, {"_id": 1}, sort=[("count", -1)]
    )
    if found is None:
        raise SystemExit(f"{reader} has no conversation.")
    return str(found["_id"])


def operations(client: Any) -> list[Operation]:
    """The operations, in the table's order, on the world seeded now."""
    post = post_with_most_copies(READER)
    client.post(f"/posts/{post}/unlike/")  # each run likes it anew
    run_queued()
    comments = itertools.count()
    return [
        Operation("news feed", page(client, "/feed/")),
        Operation("someone's wall", page(client, f"/u/{wall_with_hidden_posts(READER)}/")),
        Operation("post search", page(client, f"/search/?q={SEARCH_WORD}")),
        Operation("people search", page(client, "/search/?q=a")),
        Operation("notifications", page(client, "/notifications/")),
        Operation(
            "a conversation (30 messages)",
            page(client, f"/messages/{longest_conversation(READER)}/"),
        ),
        Operation(
            "a like's background work",
            background(client, f"/posts/{post}/like/", dict, undo=f"/posts/{post}/unlike/"),
        ),
        Operation(
            "a comment's background work",
            background(
                client,
                f"/posts/{post}/comments/",
                lambda: {"text": f"Growth benchmark comment #{next(comments)}"},
            ),
        ),
        Operation(FLOOR, page(client, "/settings/")),
    ]


def measure(users: int, *, runs: int, maxfollows: int, sampler: layers.Sampler | None) -> Figures:
    """Seed `users` and run every operation `runs` times, interleaved; with
    a sampler, sampled rounds more (`runs` at least)."""
    from django.test.utils import override_settings

    from benchmarks.app_cpu import seed_world, signed_in_client
    from timelines.selectors import pulled

    figures = Figures(users, seed_world(users, maxfollows))
    pulled.forget()  # the authors pulled in the world seeded now, not the last one
    with override_settings(TASKS=DUMMY_TASKS):
        client = signed_in_client()
        ops = operations(client)
        for _ in range(WARM_ROUNDS):
            for op in ops:
                op.run(nullcontext)
        figures.load = os.getloadavg()[0]
        for _ in range(runs):
            for op in ops:
                cpu, trips = op.run(nullcontext)
                figures.cpu.setdefault(op.name, []).append(cpu)
                figures.trips.setdefault(op.name, []).append(trips)
        figures.load = max(figures.load, os.getloadavg()[0])
        if sampler is None:
            return figures
        with sampler.sampling():
            # `runs` rounds, and more while an operation has too few samples
            # for its shares to mean much (a short task: a sample a run).
            while sampler.rounds < runs or (
                min(sampler.samples[op.name] for op in ops) < sampler.least
                and sampler.rounds < MOST_SAMPLED_ROUNDS * runs
            ):
                for op in ops:
                    op.run(partial(sampler.naming, op.name))
                sampler.rounds += 1
    return figures


def median_ms(figures: Figures, name: str) -> float:
    return statistics.median(figures.cpu[name]) * 1000


def trips(figures: Figures, name: str) -> str:
    """The operation's round trips: the same every run, or their median."""
    median = statistics.median(figures.trips[name])
    return f"{median:.0f}" if median == int(median) else f"{median:.1f}"


def spread(figures: Figures) -> float:
    """The machine's noise: over the operations, the median of their runs'
    half inter-quartile range, relative to their median, in per cent."""
    spreads = []
    for runs in figures.cpu.values():
        if len(runs) >= 2:
            low, _, high = statistics.quantiles(runs, n=4, method="inclusive")
            spreads.append(50 * (high - low) / statistics.median(runs))
    return statistics.median(spreads) if spreads else 0.0


def report(measured: list[Figures], sampler: layers.Sampler | None, runs: int) -> str:
    from benchmarks.common import table

    first, last = measured[0], measured[-1]
    names = [name for name in first.cpu if name != FLOOR]
    header = ["operation"]
    for figures in measured:
        header += [f"{figures.users:,}: CPU ms", f"{figures.users:,}: trips"]
    if len(measured) > 1:
        header.append(f"{last.users:,} / {first.users:,}")
    header.append("x floor")
    if sampler is not None:
        header += [f"{layer} %" for layer in layers.LAYERS]
    rows = [tuple(header)]
    floor = median_ms(last, FLOOR)
    for name in [*names, FLOOR]:
        row = [name]
        for figures in measured:
            row += [f"{median_ms(figures, name):.1f}", trips(figures, name)]
        if len(measured) > 1:
            row.append(f"{median_ms(last, name) / median_ms(first, name):.2f}x")
        row.append(f"{median_ms(last, name) / floor:.1f}")
        rows.append(tuple(row + _shares(sampler, name)))
    row = [SEEDING]
    for figures in measured:
        row += [f"{figures.seeding[0]:.1f}", f"{figures.seeding[1]:,}"]
    if len(measured) > 1:
        row.append(f"{last.seeding[0] / first.seeding[0]:.2f}x")
    rows.append(tuple([*row, "-", *(["-"] * len(layers.LAYERS) if sampler else [])]))
    lines = [
        f"CPU ms per operation (this thread's, median of {runs} runs, warm) and round "
        f"trips, signed in as {READER}; the in-process embedded database:",
        table(rows),
        "floor: "
        + "; ".join(
            f"{median_ms(f, FLOOR):.1f} ms CPU and {trips(f, FLOOR)} round trip(s) "
            f"at {f.users:,} users"
            for f in measured
        )
        + f". Every page's figure includes it; `x floor` is the operation's CPU over "
        f"the floor's, at {last.users:,} users.",
        "noise: "
        + "; ".join(
            f"{f.users:,} users: load {f.load:.1f} on {os.cpu_count()} cores, runs within "
            f"±{spread(f):.0f} % of their median"
            for f in measured
        ),
    ]
    if sampler is not None:
        seen = min(sampler.samples[name] for name in [*names, FLOOR])
        lines.append(
            f"layers: this thread's CPU by layer at {last.users:,} users, "
            f"{sampler.rounds} sampled rounds (benchmarks/layers.py), at least {seen} "
            "samples an operation"
        )
    return "\n".join(lines)


def _shares(sampler: layers.Sampler | None, name: str) -> list[str]:
    if sampler is None:
        return []
    if not sampler.samples[name]:
        return ["-"] * len(layers.LAYERS)
    return [f"{share:.0f}" for share in sampler.shares(name).values()]


def growth(
    users: list[int],
    *,
    runs: int,
    maxfollows: int,
    sample: bool = True,
    least: int = LEAST_SAMPLES,
) -> str:
    """The benchmark's core, in a process whose Django is set up: seed and
    measure each user count in turn; the report. `least`: the samples each
    operation should have for its layer shares."""
    sampler = layers.Sampler(least) if sample else None
    measured = []
    for count in users:
        largest = count == max(users)
        measured.append(
            measure(count, runs=runs, maxfollows=maxfollows, sampler=sampler if largest else None)
        )
        print(f"{count:,} users measured.", file=sys.stderr)
    return report(measured, sampler, runs)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.growth", description=__doc__)
    parser.add_argument(
        "--users", default="150,1500", help="user counts, comma-separated, smallest first"
    )
    parser.add_argument("--runs", type=int, default=30, help="runs of each operation")
    parser.add_argument("--maxfollows", type=int, default=40)
    parser.add_argument(
        "--no-layers", action="store_true", help="leave out the sampled rounds and layer shares"
    )
    args = parser.parse_args(argv)
    try:
        args.users = [int(n) for n in args.users.split(",")]
    except ValueError:
        parser.error("--users takes numbers, e.g. 150,1500")
    if any(n < 10 for n in args.users) or args.runs < 1:
        parser.error("each user count must be at least 10, and --runs at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from benchmarks.common import production_like, serving_overrides, silence_request_log

    production_like()
    import django

    django.setup()
    serving_overrides().enable()
    silence_request_log()
    print(
        growth(args.users, runs=args.runs, maxfollows=args.maxfollows, sample=not args.no_layers)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
