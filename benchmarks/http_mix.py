"""Drive Socialite's traffic mix over HTTP against the demo server.

    .venv/bin/python -m benchmarks.http_mix --users 150 --seconds 30 --threads 4
    .venv/bin/python -m benchmarks.http_mix --url http://127.0.0.1:8000 --users 200

Without `--url` it starts `manage.py demo` on a free port with `--users` (rate
limits and the debug toolbar off, the environment's MONGODB_URI and DEBUG
otherwise) and stops it at the end; with `--url`, `--users` and `--seed` must
be the ones that server was seeded with, since the demo handles are derived
from them.

The mix is Socialite's service calls as pages: read the timeline (`GET /feed/`),
scroll it (the page's `rel="next"` link), send a post (`POST /posts/`), follow
and unfollow (`POST /u/<handle>/follow/`, `/unfollow/`). Before the clock starts,
`--sessions` users drawn Zipf-wise from the world sign in (a login is one
deliberately slow password hash, so it is kept out of the timed mix); each
thread holds its share of them on its own keep-alive connection and picks the
acting user Zipf-wise too, the more popular users acting more. Follow targets
are Zipf-chosen from the whole world.

An operation is what a browser does (benchmarks/http_client.py): a send, a
follow or an unfollow is the form's POST and, since the site answers it with
a redirect, the GET of the page it leads to, on the same connection with the
session's cookies (that page shows the flash message the POST left, so the
messages cookie does not grow from one operation to the next). Its time,
round trips and documents are the two requests' together; round trips and
documents come from the responses' Server-Timing headers ("-" when they
carry none). A 4xx or 5xx of either request counts against the operation.

`--cpu-seconds N` then runs each operation alone for N seconds and prints
the server's CPU per operation (the page threads and the task worker
together, read from /proc), and the ceiling that makes for one process.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks import demo_server, http_cpu
from benchmarks.common import setup_django, table
from benchmarks.http_client import Connection, Sample, Session

# Operation and weight. Reads dominate, as on every social site.
MIX = (("read", 50), ("scroll", 20), ("send", 15), ("follow", 8), ("unfollow", 7))
OPERATIONS = ("login", *(name for name, _ in MIX))
HEADER = ("operation", "count", "ops/s", "p50 ms", "p99 ms", "trips/op", "docs/op", "4xx", "5xx")
NEXT_LINK = re.compile(r'<a\b[^>]*\brel="next"[^>]*\bhref="([^"]+)"')
SEEDING = re.compile(r"Demo data ready in ([\d.]+) s")


class Driver(threading.Thread):
    """One client thread: its own connection, its own signed-in users."""

    def __init__(self, *, url, handles, world, seed, only: str | None = None):
        super().__init__(daemon=True)
        self.only = only  # one operation alone (the CPU phase), else the mix
        from socialsite.zipf import Zipf

        parts = urlsplit(url)
        self.connection = Connection(parts.hostname, parts.port or 80)
        self.sessions = [Session(handle) for handle in handles]
        self.world = world
        self.rng = random.Random(seed)
        self.actors = Zipf(len(self.sessions), rng=self.rng)
        self.targets = Zipf(len(world), rng=self.rng)
        self.samples: dict[str, list[Sample]] = {name: [] for name in OPERATIONS}
        self.deadline = 0.0
        self.failure: BaseException | None = None

    def alone(self, name: str) -> "Driver":
        """A new client thread that does only `name`, as this one's users
        (signed in already): the CPU phase (benchmarks/http_cpu.py)."""
        return self.again(only=name)

    def again(self, only: str | None = None) -> "Driver":
        """A new client thread as this one's users, signed in already, with
        samples of its own: one more timed phase (benchmarks/live_streams.py)."""
        driver = Driver(
            url=f"http://{self.connection.host}:{self.connection.port}",
            handles=[session.handle for session in self.sessions],
            world=self.world,
            seed=self.rng.randrange(2**32),
            only=only,
        )
        driver.sessions = self.sessions  # their cookies
        return driver

    def login_all(self, password: str, *, land: bool = True) -> None:
        """Sign every session in; `land`: load the page the login leads to,
        as a browser does (not for the streams' sessions, which want only
        the cookie)."""
        try:
            for session in self.sessions:
                self.connection.request(session, "GET", "/accounts/login/")
                form = {"username": session.handle, "password": password}
                sample, _ = self.connection.request(
                    session, "POST", "/accounts/login/", form, follow=land
                )
                self.samples["login"].append(sample)
                if sample.status != 302:
                    raise RuntimeError(f"login as {session.handle} answered {sample.status}")
        except Exception as exc:  # reported by the main thread, before the mix starts
            self.failure = exc

    def run(self):
        names = [name for name, _ in MIX]
        weights = [weight for _, weight in MIX]
        # Each operation once first, so a short run still shows every row.
        opening = [] if self.only else self.rng.sample(names, len(names))
        try:
            while time.perf_counter() < self.deadline:
                session = self.sessions[self.actors.rank() - 1]
                name = opening.pop() if opening else self.rng.choices(names, weights)[0]
                name = self.only or name
                getattr(self, name)(session)
        except BaseException as exc:  # reported by the main thread
            self.failure = exc
        finally:
            self.connection.close()

    def read(self, session: Session) -> None:
        sample, page = self.connection.request(session, "GET", "/feed/")
        self.samples["read"].append(sample)
        found = NEXT_LINK.search(page)
        session.next_page = found[1].replace("&amp;", "&") if found else None

    def scroll(self, session: Session) -> None:
        if not session.next_page:
            self.read(session)  # a scroll starts from a page the user has seen
            if not session.next_page:
                return
        sample, page = self.connection.request(session, "GET", session.next_page)
        self.samples["scroll"].append(sample)
        found = NEXT_LINK.search(page)
        session.next_page = found[1].replace("&amp;", "&") if found else None

    def send(self, session: Session) -> None:
        text = f"Benchmark post by {session.handle}, #{self.rng.randrange(10**6)}"
        form = {"type": "status", "text": text}
        sample, _ = self.connection.request(session, "POST", "/posts/", form)
        self.samples["send"].append(sample)

    def follow(self, session: Session) -> None:
        target = self.world[self.targets.rank() - 1]
        sample, _ = self.connection.request(session, "POST", f"/u/{target}/follow/", {})
        self.samples["follow"].append(sample)
        if sample.status < 400:
            session.followed.append(target)

    def unfollow(self, session: Session) -> None:
        if session.followed:
            target = session.followed.pop(self.rng.randrange(len(session.followed)))
        else:
            target = self.world[self.targets.rank() - 1]
        sample, _ = self.connection.request(session, "POST", f"/u/{target}/unfollow/", {})
        self.samples["unfollow"].append(sample)


def percentile(sorted_values: list[float], p: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p))]


def row(name: str, samples: list[Sample], seconds: float) -> tuple[str, ...]:
    if not samples:
        return (name, "0", "-", "-", "-", "-", "-", "0", "0")
    times = sorted(s.ms for s in samples)
    timed = [s for s in samples if s.trips is not None]
    return (
        name,
        f"{len(samples):,}",
        f"{len(samples) / seconds:,.1f}" if seconds else "-",
        f"{percentile(times, 0.50):.1f}",
        f"{percentile(times, 0.99):.1f}",
        f"{sum(s.trips for s in timed) / len(timed):.1f}" if timed else "-",
        f"{sum(s.docs for s in timed) / len(timed):.1f}" if timed else "-",
        str(sum(1 for s in samples if 400 <= s.worst < 500)),
        str(sum(1 for s in samples if s.worst >= 500)),
    )


def start_server(
    args, logs: Path, env: dict | None = None, module: str | None = None
) -> tuple[subprocess.Popen, str, str]:
    """`manage.py demo` on a free port: (process, base URL, seeding seconds).
    `env` adds to (or overrides) the environment below; `module` runs the
    command through that module instead of manage.py (benchmarks/demo_server.py)."""
    env = {
        "DEBUG": os.environ.get("DEBUG", "true"),
        "RATELIMIT_ENABLED": "false",  # one user posting many times a second is the point
        "DEBUG_TOOLBAR": "false",  # its panels would time themselves, not the site
        **(env or {}),
    }
    server, port = demo_server.start(
        ["--users", str(args.users), "--maxfollows", str(args.maxfollows)],
        env=env,
        logs=logs,
        timeout=args.start_timeout,
        module=module,
    )
    seeding = SEEDING.search((logs / "stdout").read_text())
    return server, f"http://127.0.0.1:{port}", f"{seeding[1]} s" if seeding else "-"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.http_mix", description=__doc__)
    parser.add_argument("--users", type=int, default=150, help="demo users in the world")
    parser.add_argument("--maxfollows", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the timed mix")
    parser.add_argument("--threads", type=int, default=4, help="client threads")
    parser.add_argument("--sessions", type=int, default=24, help="users signed in, in all")
    parser.add_argument("--url", help="an already running demo server (seeded with --users)")
    parser.add_argument("--seed", type=int, default=42, help="the server's seed_demo --seed")
    parser.add_argument(
        "--start-timeout", type=float, default=900, help="seconds the server may take to seed"
    )
    parser.add_argument(
        "--cpu-seconds",
        type=float,
        default=0,
        help="after the mix, run each operation alone this long and print the server's "
        "CPU per operation (needs the server this command starts: no --url)",
    )
    args = parser.parse_args(argv)
    if args.users < 2 or args.threads < 1 or args.seconds <= 0:
        parser.error("--users must be >= 2, --threads >= 1 and --seconds > 0")
    if args.sessions < args.threads:
        parser.error("--sessions must be at least --threads (each thread signs in one)")
    return args


def world_handles(users: int, seed: int) -> list[str]:
    """The demo handles by rank, as seed_demo makes them (rank 1, alice, first)."""
    setup_django()
    from profiles.demo import demo_people

    return [handle for handle, _ in demo_people(users, random.Random(seed))]


def sign_in(args, url: str) -> list[Driver]:
    """The mix's client threads, not started, their `--sessions` users
    (Zipf-drawn) signed in: the untimed part."""
    from profiles.demo import DEMO_PASSWORD
    from socialsite.zipf import Zipf

    world = world_handles(args.users, args.seed)
    signed_in = [
        world[rank - 1]
        for rank in Zipf(len(world), rng=random.Random(args.seed)).distinct(
            args.sessions, within=len(world)
        )
    ]
    drivers = [
        Driver(url=url, handles=signed_in[i :: args.threads], world=world, seed=args.seed + i)
        for i in range(args.threads)
    ]
    logins = [threading.Thread(target=d.login_all, args=(DEMO_PASSWORD,)) for d in drivers]
    for thread in logins:
        thread.start()
    for thread in logins:
        thread.join()
    for driver in drivers:
        if driver.failure:
            raise RuntimeError(f"signing in failed: {driver.failure}")
    return drivers


def run_phase(drivers: list[Driver], seconds: float) -> float:
    """Run the client threads (not started yet) for `seconds`; the seconds it took."""
    started = time.perf_counter()
    for driver in drivers:
        driver.deadline = started + seconds
        driver.start()
    for driver in drivers:
        driver.join()
    return time.perf_counter() - started


def run_mix(args, url: str) -> tuple[list[Driver], float]:
    drivers = sign_in(args, url)
    return drivers, run_phase(drivers, args.seconds)


def report(args, drivers: list[Driver], seconds: float, seeding: str, health=None) -> str:
    merged = {name: [s for d in drivers for s in d.samples[name]] for name in OPERATIONS}
    mixed = sum(len(merged[name]) for name, _ in MIX)
    rows = [HEADER, *(row(name, merged[name], seconds) for name, _ in MIX)]
    logins = row("login", merged["login"], 0)
    rows.append(("login (untimed)", *logins[1:]))
    lines = [
        f"{args.users:,} demo users, {args.threads} threads, {len(merged['login'])} "
        f"signed in, {seconds:.1f} s; seeding: {seeding}",
        table(rows),
        f"all operations: {mixed / seconds:,.1f} ops/s",
    ]
    if health:
        p50, p99 = health[len(health) // 2], health[min(len(health) - 1, len(health) * 99 // 100)]
        lines.append(
            f"/healthz, {len(health)} on one keep-alive connection: "
            f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    server = None
    logs = Path(tempfile.mkdtemp(prefix="http_mix-"))
    try:
        if args.url:
            url, seeding = args.url.rstrip("/"), "-"
        else:
            server, url, seeding = start_server(args, logs)
        health = demo_server.health_checks(url)
        drivers, seconds = run_mix(args, url)
        cpu = None
        if args.cpu_seconds and server is not None:
            cpu = http_cpu.cpu_per_operation(
                drivers[0].alone,
                [name for name, _ in MIX],
                url=url,
                server_pid=server.pid,
                seconds=args.cpu_seconds,
            )
    except RuntimeError as exc:
        if args.url:
            shutil.rmtree(logs, ignore_errors=True)
            print(exc, file=sys.stderr)
        else:
            print(f"{exc}; server logs in {logs}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            demo_server.stop(server)
    print(report(args, drivers, seconds, seeding, health))
    if cpu:
        print(f"server CPU per operation, each alone for {args.cpu_seconds:g} s:")
        print(table(cpu))
    failures = [d.failure for d in drivers if d.failure]
    for failure in failures:
        print(f"a client thread stopped: {failure!r}", file=sys.stderr)
    server_errors = any(s.worst >= 500 for d in drivers for v in d.samples.values() for s in v)
    if server and (failures or server_errors):
        print(f"server logs kept in {logs}", file=sys.stderr)
    else:
        shutil.rmtree(logs, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
