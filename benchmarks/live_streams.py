"""Idle live streams beside the HTTP mix, against one demo server
(docs/benchmarks.md#idle-live-streams-beside-the-mix):

    .venv/bin/python -m benchmarks.live_streams --users 1500 --streams 1000 --seconds 30

It starts `manage.py demo` once (benchmarks/http_mix.py's server: rate limits
and the debug toolbar off) and, in that one run:

- signs in the mix's `--sessions` users and the streams' users (the first
  `--streams` demo users, one stream each; several tabs each when there are
  more streams than users), then runs the mix `--warmup` seconds: none of
  it counted;
- runs the mix (benchmarks/http_mix.py) `--seconds` per phase, in the order
  `--phases` gives (ABA by default): an A with no stream open, a B beside
  `--streams` streams to `GET /live/stream`, opened for it from a separate
  small process (benchmarks/sse_client.py: asyncio sockets, no thread per
  stream) and closed after it;
- before the first B, with the streams open and nothing else to do, lets
  them sit idle for `--idle` seconds: the server's database round trips and
  CPU meanwhile, and the heartbeats each stream heard;
- checks every stream was answered 200 `text/event-stream`, was still open
  at the end of its B having heard from the server lately, and that the
  server let them all go after;
- with `--fanout N`, after the last B, posts N times as the most followed
  author whose posts are pushed, and times each post's `feed` event from
  the POST to every follower's open stream.

It prints the mix without streams and beside them, each kind's phases
pooled (two As around a B cancel a steady drift of the machine), with the
ratios; each phase's figures in order; the server worker's threads and
resident memory before the streams, with them open and after (from /proc);
and the stream client's own CPU, since on a small machine it shares the
cores with the server.

The server runs with, beside http_mix's environment: LIVE_HEARTBEAT_SECONDS
set to `--heartbeat` (by default its own default, 15 s: a 30-s phase hears
from every stream twice, and a shorter one costs the pages more, in
proportion); sign-ins hashed with MD5 (untimed: a
thousand of PBKDF2's would take minutes); sweepers hourly (the first at
start-up), so the idle spell's round trips are the streams' own; and
benchmarks/probed_demo.py around it, whose signal handler tells the
worker's round trips and open streams.
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarks import demo_server, http_cpu, http_mix, probed_demo
from benchmarks.common import table
from benchmarks.http_client import Connection, Session
from benchmarks.http_mix import MIX, Driver, percentile

# Sign-ins run on this many connections at once; more than the server's page
# threads, so its pool has all its threads before the first thread count.
LOGIN_CONNECTIONS = 16
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Phase:
    label: str
    streams: int
    drivers: list[Driver]
    seconds: float
    server_cpu: float  # seconds of the server's processes over the phase
    client_cpu: float = 0.0  # seconds of the stream client over the phase
    switches: int = 0  # the server worker's context switches over the phase

    def samples(self, name: str) -> list:
        return [s for d in self.drivers for s in d.samples[name]]

    def ops(self) -> int:
        return sum(len(self.samples(name)) for name, _ in MIX)

    def rate(self, name: str | None = None) -> float:
        count = self.ops() if name is None else len(self.samples(name))
        return count / self.seconds

    def p(self, name: str, at: float) -> float | None:
        times = sorted(s.ms for s in self.samples(name))
        return percentile(times, at) if times else None

    def errors(self) -> int:
        return sum(
            1 for d in self.drivers for name, _ in MIX for s in d.samples[name] if s.worst >= 400
        )


@dataclass
class Moment:
    label: str
    threads: int
    rss_kib: int
    open_streams: int | str


class Watch(threading.Thread):
    """The worker's thread count and memory, a few times a second, the most
    seen per phase: a thread that came and went between two readings of a
    moment still shows."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.label = "start"
        self.most: dict[str, tuple[int, int]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            try:
                threads, rss = demo_server.threads_and_rss(self.pid)
            except (OSError, KeyError):  # the worker ended
                return
            seen = self.most.get(self.label, (0, 0))
            self.most[self.label] = (max(seen[0], threads), max(seen[1], rss))


class Probe:
    """The worker's round trips and open streams (benchmarks/probed_demo.py)."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path = pid, path

    def read(self, timeout: float = 10) -> dict[str, int]:
        self.path.unlink(missing_ok=True)
        os.kill(self.pid, probed_demo.PROBE_SIGNAL)
        deadline = time.monotonic() + timeout
        while not self.path.exists():
            if time.monotonic() > deadline:
                raise RuntimeError("the server's probe did not answer")
            time.sleep(0.01)
        return json.loads(self.path.read_text())

    def wait_for_streams(self, n: int, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while (open_streams := self.read()["open_streams"]) != n:
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return open_streams


class StreamClient:
    """benchmarks/sse_client.py in its own process, spoken to in JSON lines."""

    def __init__(self, url: str) -> None:
        host, port = url.split("://", 1)[1].split(":")
        self.process = subprocess.Popen(  # noqa: S603 (our own interpreter and module)
            [sys.executable, "-m", "benchmarks.sse_client", host, port],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **order: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(order) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the stream client ended ({self.process.wait()})")
        return json.loads(line)

    def close(self) -> dict[str, Any]:
        try:
            return self.ask(close=True)
        finally:
            self.process.wait(timeout=30)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.live_streams", description=__doc__)
    parser.add_argument("--users", type=int, default=1500, help="demo users in the world")
    parser.add_argument("--maxfollows", type=int, default=40)
    parser.add_argument("--streams", type=int, default=1000, help="idle streams held open")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each mix phase")
    parser.add_argument("--threads", type=int, default=4, help="the mix's client threads")
    parser.add_argument("--sessions", type=int, default=24, help="the mix's users signed in")
    parser.add_argument("--seed", type=int, default=42, help="the server's seed_demo --seed")
    parser.add_argument(
        "--heartbeat",
        type=float,
        default=15.0,
        help="the server's LIVE_HEARTBEAT_SECONDS (15, its default): each heartbeat of each "
        "stream is a wake-up of the event loop and a write, so the streams cost the pages "
        "in proportion to streams / heartbeat",
    )
    parser.add_argument(
        "--idle",
        type=float,
        help="seconds the open streams sit idle, counted (default: 1.5 heartbeats and "
        "half a second, so every stream's heartbeat comes at least once)",
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=10.0,
        help="seconds of the mix before the first phase, not counted: the server's first "
        "minute is slower (caches filling), which would count against the first A",
    )
    parser.add_argument(
        "--phases",
        default="ABA",
        help="the mix's phases in order, A without streams and B beside them: ABA "
        "(the default), AB, ABABA (more, shorter phases even out the machine's drift)",
    )
    parser.add_argument(
        "--fanout",
        type=int,
        default=0,
        help="after the last B, this many posts by the most followed author whose posts "
        "are pushed; how long each took to reach its followers' open streams",
    )
    parser.add_argument(
        "--switch-interval",
        type=float,
        help="an experiment: the server worker's sys.setswitchinterval, in seconds "
        "(Python's default is 0.005)",
    )
    parser.add_argument(
        "--start-timeout", type=float, default=900, help="seconds the server may take to seed"
    )
    args = parser.parse_args(argv)
    if args.users < 2 or args.threads < 1 or args.seconds <= 0 or args.streams < 1:
        parser.error("--users must be >= 2, --threads and --streams >= 1, --seconds > 0")
    if args.sessions < args.threads:
        parser.error("--sessions must be at least --threads (each thread signs in one)")
    if not args.phases or set(args.phases) - {"A", "B"} or "A" not in args.phases:
        parser.error("--phases is a string of A and B with at least one of each, like ABA")
    if "B" not in args.phases:
        parser.error("--phases needs a B")
    if args.idle is None:
        args.idle = 1.5 * args.heartbeat + 0.5
    return args


def sign_in_streams(args: argparse.Namespace, url: str) -> list[str]:
    """The streams' users signed in (without loading the page a login leads
    to); one Cookie header per stream."""
    from profiles.demo import DEMO_PASSWORD

    world = http_mix.world_handles(args.users, args.seed)
    distinct = world[: min(args.streams, len(world))]
    drivers = [
        Driver(url=url, handles=distinct[i::LOGIN_CONNECTIONS], world=world, seed=i)
        for i in range(min(LOGIN_CONNECTIONS, len(distinct)))
    ]
    logins = [
        threading.Thread(target=d.login_all, args=(DEMO_PASSWORD,), kwargs={"land": False})
        for d in drivers
    ]
    for thread in logins:
        thread.start()
    for thread in logins:
        thread.join()
    cookies = {}
    for driver in drivers:
        driver.connection.close()
        if driver.failure:
            raise RuntimeError(f"signing in the streams' users failed: {driver.failure}")
        for session in driver.sessions:
            cookies[session.handle] = "; ".join(f"{k}={v}" for k, v in session.cookies.items())
    return [cookies[distinct[i % len(distinct)]] for i in range(args.streams)]


FOLLOWERS = re.compile(r'<strong data-count="followers">(\d+)</strong>')


def fanout(args: argparse.Namespace, url: str, client: StreamClient) -> dict[str, Any]:
    """Posts by the most followed author whose posts are still pushed (pulled
    authors' posts reach no browser stream: docs/live.md#what-streams), and
    when each post's `feed` event reached each follower's open stream,
    counted from the moment the POST was sent: the request, the fan-out
    task (the thread backend's queue, FEED_FANOUT_BATCH followers a write),
    the hub and the stream's send."""
    from django.conf import settings

    from profiles.demo import DEMO_PASSWORD

    world = http_mix.world_handles(args.users, args.seed)
    parts = urlsplit(url)
    connection = Connection(parts.hostname or "127.0.0.1", parts.port or 80)
    visitor = Session("visitor")
    counts = {}
    for handle in world[:60]:  # the most followed are the first
        _, page = connection.request(visitor, "GET", f"/u/{handle}/")
        found = FOLLOWERS.search(page)
        if found:
            counts[handle] = int(found[1])
    pushed = {h: c for h, c in counts.items() if c <= settings.FEED_PULL_THRESHOLD}
    author = max(pushed, key=lambda h: pushed[h])
    driver = Driver(url=url, handles=[author], world=world, seed=0)
    driver.login_all(DEMO_PASSWORD, land=False)
    if driver.failure:
        raise RuntimeError(f"signing in {author} failed: {driver.failure}")
    session = driver.sessions[0]
    latencies: list[float] = []
    reached = []
    for k in range(args.fanout):
        sent = time.monotonic()
        form = {"type": "status", "text": f"Fan-out to the open streams, #{k}"}
        sample, _ = driver.connection.request(session, "POST", "/posts/", form, follow=False)
        if sample.status != 302:
            raise RuntimeError(f"the post answered {sample.status}")
        arrivals: list[float] = []
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 1.0 and time.monotonic() - sent < 30:
            time.sleep(0.1)
            now = client.ask(feed=author, since=sent)["arrivals"]
            if len(now) > len(arrivals):
                arrivals, quiet_since = now, time.monotonic()
        reached.append(len(arrivals))
        latencies += [(at - sent) * 1000 for at in arrivals]
    driver.connection.close()
    connection.close()
    latencies.sort()
    return {
        "author": author,
        "followers": pushed[author],
        "posts": args.fanout,
        "reached": reached,
        "p50": percentile(latencies, 0.50) if latencies else None,
        "p99": percentile(latencies, 0.99) if latencies else None,
        "max": latencies[-1] if latencies else None,
    }


def run(args: argparse.Namespace, server: subprocess.Popen, url: str, probe_file: Path) -> dict:
    """Every phase; what the report prints."""
    found: dict[str, Any] = {"phases": [], "moments": [], "streams": []}
    found["load"] = [os.getloadavg()]
    worker = demo_server.worker_pid(server.pid)
    probe = Probe(worker, probe_file)
    watch = Watch(worker)
    watch.start()
    client: StreamClient | None = None
    n = args.streams

    def moment(label: str) -> None:
        threads, rss = demo_server.threads_and_rss(worker)
        found["moments"].append(Moment(label, threads, rss, probe.read()["open_streams"]))

    def phase(label: str, streams: int) -> None:
        watch.label = label
        drivers = [d.again() for d in mix]
        cpu = demo_server.cpu_seconds(server.pid)
        switches = demo_server.context_switches(worker)
        client_cpu = client.ask(report=True)["cpu_seconds"] if client else 0.0
        seconds = http_mix.run_phase(drivers, args.seconds)
        done = Phase(label, streams, drivers, seconds, demo_server.cpu_seconds(server.pid) - cpu)
        done.switches = demo_server.context_switches(worker) - switches
        if client:
            done.client_cpu = client.ask(report=True)["cpu_seconds"] - client_cpu
        found["phases"].append(done)

    def idle_spell(client: StreamClient) -> dict[str, Any]:
        """Nothing but the open streams and their heartbeats: the server's
        round trips and CPU, what the streams heard."""
        before, heard = probe.read(), client.ask(mark=True)
        cpu = demo_server.cpu_seconds(server.pid)
        time.sleep(args.idle)
        after, heard_after = probe.read(), client.ask(report=True)
        return {
            "seconds": args.idle,
            "round_trips": after["round_trips"] - before["round_trips"],
            "heartbeats": heard_after["heartbeats"] - heard["heartbeats"],
            "fewest": heard_after["fewest_since_mark"],
            "server_cpu": demo_server.cpu_seconds(server.pid) - cpu,
            "client_cpu": heard_after["cpu_seconds"] - heard["cpu_seconds"],
        }

    try:
        started = time.perf_counter()
        mix = http_mix.sign_in(args, url)
        cookies = sign_in_streams(args, url)
        found["sign_in"] = time.perf_counter() - started
        if args.warmup > 0:
            watch.label = "warm-up"
            http_mix.run_phase([d.again() for d in mix], args.warmup)
        counts = {"A": 0, "B": 0}
        for kind in args.phases:
            counts[kind] += 1
            label = f"{kind}{counts[kind]}"
            if kind == "A":
                phase(label, 0)
                continue
            first = counts["B"] == 1
            if first:  # the server as the runs without streams left it
                watch.label = "before"
                http_cpu.settle(url, server.pid)
                moment(f"before the streams (after {found['phases'][-1].label})")
            watch.label = "opening"
            client = StreamClient(url)
            streams: dict[str, Any] = {"label": label}
            found["streams"].append(streams)
            targets = [[cookie, "/live/stream"] for cookie in cookies]
            streams["opened"] = client.ask(open=targets, at_once=50)
            streams["open_on_server"] = probe.wait_for_streams(n)
            while demo_server.tasks_pending(url):  # what the opening requests left
                time.sleep(0.05)
            if first:
                time.sleep(0.5)
                moment(f"{n:,} streams open, idle")
                watch.label = "idle"
                found["idle"] = idle_spell(client)
            phase(label, n)
            streams["alive"] = client.ask(report=True)
            streams["open_after"] = probe.read()["open_streams"]
            if first:
                moment(f"{n:,} streams open, after {label}")
            if args.fanout and counts["B"] == args.phases.count("B"):
                watch.label = "fan-out"
                while demo_server.tasks_pending(url):  # the mix's fan-out done
                    time.sleep(0.05)
                found["fanout"] = fanout(args, url, client)
            watch.label = "closing"
            streams["closed"] = client.close()
            client = None
            streams["open_after_close"] = probe.wait_for_streams(0)
        watch.label = "end"
        http_cpu.settle(url, server.pid)
        moment(f"streams closed (after {found['phases'][-1].label})")
        found["most"] = dict(watch.most)
    finally:
        watch.stop.set()
        if client is not None:
            client.kill()
    found["load"].append(os.getloadavg())
    return found


class Pooled:
    """The phases of one kind together: their samples, seconds and CPU."""

    def __init__(self, phases: list[Phase]) -> None:
        self.phases = phases
        self.seconds = sum(p.seconds for p in phases)

    def samples(self, name: str) -> list:
        return [s for p in self.phases for s in p.samples(name)]

    def rate(self, name: str | None = None) -> float:
        return sum(p.ops() if name is None else len(p.samples(name)) for p in self.phases) / (
            self.seconds
        )

    def p(self, name: str, at: float) -> float | None:
        times = sorted(s.ms for s in self.samples(name))
        return percentile(times, at) if times else None

    def cpu_per_op(self) -> float:
        return (
            sum(p.server_cpu for p in self.phases)
            * 1000
            / max(1, sum(p.ops() for p in self.phases))
        )

    def errors(self, name: str) -> int:
        return sum(1 for s in self.samples(name) if s.worst >= 400)


def ratio(value: float | None, base: float | None) -> str:
    if value is None or not base:
        return "-"
    return f"{value / base:.2f}"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def comparison(without: Pooled, beside: Pooled) -> list[tuple[str, ...]]:
    """Each operation without streams and beside them, and the ratio."""
    rows = [
        (
            "operation",
            "ops/s A",
            "ops/s B",
            "B / A",
            "p50 ms A",
            "p50 ms B",
            "p99 ms A",
            "p99 ms B",
            "B / A",
            "4xx+5xx",
        )
    ]
    for name, _ in MIX:
        rows.append(
            (
                name,
                f"{without.rate(name):,.1f}",
                f"{beside.rate(name):,.1f}",
                ratio(beside.rate(name), without.rate(name)),
                ms(without.p(name, 0.50)),
                ms(beside.p(name, 0.50)),
                ms(without.p(name, 0.99)),
                ms(beside.p(name, 0.99)),
                ratio(beside.p(name, 0.99), without.p(name, 0.99)),
                str(without.errors(name) + beside.errors(name)),
            )
        )
    rows.append(
        (
            "all operations",
            f"{without.rate():,.1f}",
            f"{beside.rate():,.1f}",
            ratio(beside.rate(), without.rate()),
            *("" for _ in range(6)),
        )
    )
    rows.append(
        (
            "server CPU ms/op",
            f"{without.cpu_per_op():.1f}",
            f"{beside.cpu_per_op():.1f}",
            ratio(beside.cpu_per_op(), without.cpu_per_op()),
            *("" for _ in range(6)),
        )
    )
    return rows


def checks(args: argparse.Namespace, found: dict) -> list[tuple[str, bool]]:
    n = args.streams
    idle = found["idle"]
    moments: list[Moment] = found["moments"]
    most = found["most"]
    without = [most[p.label][0] for p in found["phases"] if not p.streams and p.label in most]
    with_streams = [most[p.label][0] for p in found["phases"] if p.streams and p.label in most]
    with_streams += [most[label][0] for label in ("idle",) if label in most]
    slack = 2 * args.heartbeat + 1
    done = []
    for streams in found["streams"]:
        opened, alive, label = streams["opened"], streams["alive"], streams["label"]
        done += [
            (
                f"{label}: every stream answered 200 text/event-stream "
                f"({opened['statuses']}, {opened['content_types']})",
                opened["statuses"] == {"200": n}
                and opened["content_types"] == {"text/event-stream": n},
            ),
            (
                f"{label}: the server held them all open ({streams['open_on_server']:,} of {n:,})",
                streams["open_on_server"] == n,
            ),
            (
                f"{label}: all still open at its end, each heard within {slack:g} s "
                f"(open {alive['open']:,}; longest silence {alive['longest_silence'] or 0:.1f} s)",
                alive["open"] == n
                and streams["open_after"] == n
                and alive["longest_silence"] is not None
                and alive["longest_silence"] <= slack,
            ),
            (
                f"{label}: the server let them all go ({streams['open_after_close']} left open)",
                streams["open_after_close"] == 0,
            ),
        ]
    done += [
        (
            f"each stream heard a heartbeat while idle (fewest: {idle['fewest']})",
            idle["fewest"] >= 1,
        ),
        (
            f"no round trip while they sat idle ({idle['round_trips']} in {idle['seconds']:g} s)",
            idle["round_trips"] == 0,
        ),
        (
            f"threads did not grow with the streams ({moments[0].threads} before, "
            f"{moments[1].threads} with them open; most seen: {max(without, default=0)} "
            f"without, {max(with_streams, default=0)} with)",
            moments[1].threads <= moments[0].threads
            and max(with_streams, default=0) <= max(without, default=0),
        ),
        (
            "no mix operation failed (4xx, 5xx, a client thread stopped)",
            not any(p.errors() for p in found["phases"])
            and not any(d.failure for p in found["phases"] for d in p.drivers),
        ),
    ]
    return done


def beside_neighbours(phases: list[Phase]) -> list[tuple[str, float, float | None]]:
    """Each B against the As either side of it (their mean): a spike of the
    machine's other work during one phase moves one of these, not all."""
    found = []
    for at, p in enumerate(phases):
        if not p.streams:
            continue
        around = [q for q in phases[max(0, at - 1) : at + 2] if not q.streams]
        rate = sum(q.rate() for q in around) / len(around)
        p99s = [q.p("read", 0.99) for q in around]
        known = [x for x in p99s if x is not None]
        b99 = p.p("read", 0.99)
        found.append(
            (
                p.label,
                p.rate() / rate if rate else 0.0,
                b99 / (sum(known) / len(known)) if known and b99 is not None else None,
            )
        )
    return found


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def fanout_lines(found: dict[str, Any] | None) -> list[str]:
    if not found:
        return []
    return [
        f"fan-out: {found['posts']} posts by {found['author']} ({found['followers']} followers, "
        f"pushed) reached {', '.join(map(str, found['reached']))} open streams; from the POST "
        f"to the stream: p50 {ms(found['p50'])} ms, p99 {ms(found['p99'])} ms, "
        f"max {ms(found['max'])} ms"
    ]


def report(args: argparse.Namespace, found: dict, seeding: str) -> str:
    phases: list[Phase] = found["phases"]
    without = Pooled([p for p in phases if not p.streams])
    beside = Pooled([p for p in phases if p.streams])
    idle = found["idle"]
    ops = ratio(beside.rate(), without.rate())
    read_p99 = ratio(beside.p("read", 0.99), without.p("read", 0.99))
    within = ops != "-" and read_p99 != "-" and float(ops) >= 0.9 and float(read_p99) <= 1.1
    load = " / ".join(" ".join(f"{x:.2f}" for x in avg) for avg in found["load"])
    each = [
        (
            "phase",
            "streams",
            "ops/s",
            "read p99 ms",
            "server CPU ms/op",
            "switches/op",
            "client CPU",
        )
    ]
    each += [
        (
            p.label,
            f"{p.streams:,}",
            f"{p.rate():,.1f}",
            ms(p.p("read", 0.99)),
            f"{p.server_cpu * 1000 / max(1, p.ops()):.1f}",
            f"{p.switches / max(1, p.ops()):.0f}",
            f"{p.client_cpu / p.seconds:.1%}" if p.streams else "",
        )
        for p in phases
    ]
    moments = [("moment", "threads", "RSS MiB", "open streams")]
    moments += [
        (m.label, str(m.threads), f"{m.rss_kib / 1024:,.1f}", str(m.open_streams))
        for m in found["moments"]
    ]
    grown = found["moments"][1].rss_kib - found["moments"][0].rss_kib
    first = found["streams"][0]
    events: dict[str, int] = {}
    for streams in found["streams"]:
        for kind, count in streams["alive"]["events"].items():
            events[kind] = events.get(kind, 0) + count
    neighbours = beside_neighbours(phases)
    by_b = [
        f"{label}: {ops_ratio:.2f}x ops/s, "
        + (f"{p99_ratio:.2f}x read p99" if p99_ratio is not None else "- read p99")
        for label, ops_ratio, p99_ratio in neighbours
    ]
    if len(neighbours) > 1:
        p99_ratios = [r for _, _, r in neighbours if r is not None]
        by_b.append(
            f"median of the Bs: {median([r for _, r, _ in neighbours]):.2f}x ops/s, "
            f"{median(p99_ratios):.2f}x read p99"
            if p99_ratios
            else "median of the Bs: -"
        )
    lines = [
        f"{args.users:,} demo users; mix: {args.threads} threads, {args.sessions} signed in, "
        f"phases {args.phases} of {args.seconds:g} s after {args.warmup:g} s of warm-up; "
        f"{args.streams:,} streams, "
        f"heartbeat {args.heartbeat:g} s"
        + (f"; switch interval {args.switch_interval:g} s" if args.switch_interval else "")
        + f"; seeding: {seeding}; signing in: "
        f"{found['sign_in']:.1f} s",
        f"load average (1, 5, 15 min) before / after: {load}",
        "",
        "the mix without streams (A) and beside them (B), each kind's phases together:",
        table(comparison(without, beside)),
        f"beside {args.streams:,} open streams: {ops}x the operations a second, {read_p99}x "
        f"the read p99 (within 10 %: {'yes' if within else 'no'})",
        "",
        "phase by phase, in order:",
        table(each),
        "each B against the As either side of it: " + "; ".join(by_b),
        "",
        "the server's worker process (/proc):",
        table(moments),
        f"memory with the streams open: {grown / 1024:+,.1f} MiB "
        f"({grown / args.streams:,.1f} KiB a stream)",
        "",
        f"streams: {first['opened']['opened']:,} opened in {first['opened']['seconds']:.1f} s; "
        f"idle {idle['seconds']:g} s: {idle['round_trips']} round trips, "
        f"{idle['heartbeats']:,} heartbeats heard, server CPU "
        f"{idle['server_cpu'] / idle['seconds']:.1%} of a core, the client's "
        f"{idle['client_cpu'] / idle['seconds']:.1%}",
        "events the streams heard during B: "
        + (", ".join(f"{k} {v:,}" for k, v in sorted(events.items())) or "none"),
        *fanout_lines(found.get("fanout")),
        "",
        "checks:",
        *(f"  [{'ok' if ok else 'FAILED'}] {text}" for text, ok in checks(args, found)),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # A socket per stream on both sides: as many files as the system lets us.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    logs = Path(tempfile.mkdtemp(prefix="live_streams-"))
    env = {
        "LIVE_HEARTBEAT_SECONDS": str(args.heartbeat),
        "PASSWORD_HASHERS": "django.contrib.auth.hashers.MD5PasswordHasher",
        "TASKS_SWEEP_SECONDS": "3600",
        probed_demo.PROBE_FILE: str(logs / "probe.json"),
    }
    if args.switch_interval:
        env[probed_demo.SWITCH_INTERVAL] = str(args.switch_interval)
    server = None
    try:
        server, url, seeding = http_mix.start_server(
            args, logs, env=env, module="benchmarks.probed_demo"
        )
        found = run(args, server, url, logs / "probe.json")
    except RuntimeError as exc:
        print(f"{exc}; server logs in {logs}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            demo_server.stop(server)
    print(report(args, found, seeding))
    failed = [text for text, ok in checks(args, found) if not ok]
    if failed:
        print(f"server logs kept in {logs}", file=sys.stderr)
    else:
        shutil.rmtree(logs, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
