"""Idle live streams beside the HTTP mix, against one demo server
(docs/benchmarks.md#idle-live-streams-beside-the-mix):

    .venv/bin/python -m benchmarks.live_streams --users 1500 --streams 1000 --seconds 30

It starts `manage.py demo` once (benchmarks/http_mix.py's server: rate limits
and the debug toolbar off) and, in that one run:

- signs in the mix's `--sessions` users and the streams' users (the first
  `--streams` demo users, one stream each; several tabs each when there are
  more streams than users): all of it before the clock starts;
- A: runs the mix (benchmarks/http_mix.py) for `--seconds`, no stream open;
- opens `--streams` streams to `GET /live/stream` from a separate small
  process (benchmarks/sse_client.py: asyncio sockets, no thread per
  stream), checks every one was answered 200 `text/event-stream`, and lets
  them sit idle for `--idle` seconds: the server's database round trips
  and CPU meanwhile, and the heartbeats the streams heard;
- B: runs the same mix beside the open streams, then checks every stream is
  still open and heard a heartbeat lately;
- closes the streams and runs the mix once more (A'), so drift over the run
  (the posts the mix adds, the machine's other work) shows, and B is set
  against both.

It prints each phase's table side by side, B's ratios to the runs without
streams (their mean), and the server worker's threads and resident memory
before the streams, with them open and after (read from /proc), and the
stream client's own CPU, since on a small machine it shares the cores with
the server.

What the server is run with for this, beside http_mix's environment:
LIVE_HEARTBEAT_SECONDS is `--heartbeat` (5 s, a third of the default, so a
phase shows each stream alive several times over); sign-ins hash with MD5
(untimed: a thousand of PBKDF2's would take minutes); sweepers run hourly
(the first at start-up), so the idle spell's round trips are the streams'
own; and it runs through benchmarks/probed_demo.py, whose signal handler
tells the round trips and open streams of the worker.
"""

import argparse
import json
import os
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

from benchmarks import demo_server, http_cpu, http_mix, probed_demo
from benchmarks.common import table
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
    client_cpu: float | None = None  # seconds of the stream client over the phase

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
        "--heartbeat", type=float, default=5.0, help="the server's LIVE_HEARTBEAT_SECONDS"
    )
    parser.add_argument(
        "--idle",
        type=float,
        help="seconds the open streams sit idle, counted (default: 3 heartbeats)",
    )
    parser.add_argument(
        "--phases",
        choices=("ABA", "AB"),
        default="ABA",
        help="AB leaves out the last run without streams (A')",
    )
    parser.add_argument(
        "--start-timeout", type=float, default=900, help="seconds the server may take to seed"
    )
    args = parser.parse_args(argv)
    if args.users < 2 or args.threads < 1 or args.seconds <= 0 or args.streams < 1:
        parser.error("--users must be >= 2, --threads and --streams >= 1, --seconds > 0")
    if args.sessions < args.threads:
        parser.error("--sessions must be at least --threads (each thread signs in one)")
    if args.idle is None:
        args.idle = 3 * args.heartbeat
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


def run(args: argparse.Namespace, server: subprocess.Popen, url: str, probe_file: Path) -> dict:
    """Every phase; what the report prints."""
    found: dict[str, Any] = {"phases": [], "moments": [], "load": [os.getloadavg()]}
    worker = demo_server.worker_pid(server.pid)
    probe = Probe(worker, probe_file)
    watch = Watch(worker)
    watch.start()
    client: StreamClient | None = None

    def moment(label: str, open_streams: int | str) -> None:
        threads, rss = demo_server.threads_and_rss(worker)
        found["moments"].append(Moment(label, threads, rss, open_streams))

    def phase(label: str, streams: int) -> Phase:
        watch.label = label
        drivers = [d.again() for d in mix]
        cpu = demo_server.cpu_seconds(server.pid)
        client_cpu = client.ask(report=True)["cpu_seconds"] if client else None
        seconds = http_mix.run_phase(drivers, args.seconds)
        done = Phase(label, streams, drivers, seconds, demo_server.cpu_seconds(server.pid) - cpu)
        if client and client_cpu is not None:
            done.client_cpu = client.ask(report=True)["cpu_seconds"] - client_cpu
        found["phases"].append(done)
        return done

    try:
        started = time.perf_counter()
        mix = http_mix.sign_in(args, url)
        cookies = sign_in_streams(args, url)
        found["sign_in"] = time.perf_counter() - started

        phase("A", 0)
        watch.label = "between"
        http_cpu.settle(url, server.pid)
        moment("before the streams (after A)", probe.read()["open_streams"])

        client = StreamClient(url)
        opened = client.ask(open=[[cookie, "/live/stream"] for cookie in cookies], at_once=50)
        found["opened"] = opened
        found["open_on_server"] = probe.wait_for_streams(args.streams)
        while demo_server.tasks_pending(url):  # what the opening requests left
            time.sleep(0.05)
        time.sleep(0.5)
        moment(f"{args.streams:,} streams open, idle", found["open_on_server"])

        # The idle spell: nothing but the open streams and their heartbeats.
        watch.label = "idle"
        before, heard = probe.read(), client.ask(report=True)
        cpu = demo_server.cpu_seconds(server.pid)
        time.sleep(args.idle)
        after, heard_after = probe.read(), client.ask(report=True)
        found["idle"] = {
            "seconds": args.idle,
            "round_trips": after["round_trips"] - before["round_trips"],
            "heartbeats": heard_after["heartbeats"] - heard["heartbeats"],
            "server_cpu": demo_server.cpu_seconds(server.pid) - cpu,
            "client_cpu": heard_after["cpu_seconds"] - heard["cpu_seconds"],
        }

        phase("B", args.streams)
        found["alive"] = client.ask(report=True)
        found["open_after_b"] = probe.read()["open_streams"]
        moment(f"{args.streams:,} streams open, after B", found["open_after_b"])

        watch.label = "closing"
        client.close()
        client = None
        found["open_after_close"] = probe.wait_for_streams(0)
        if args.phases == "ABA":
            phase("A'", 0)
        watch.label = "end"
        http_cpu.settle(url, server.pid)
        last = found["phases"][-1].label
        moment(f"streams closed (after {last})", found["open_after_close"])
        found["most"] = dict(watch.most)
    finally:
        watch.stop.set()
        if client is not None:
            client.kill()
    found["load"].append(os.getloadavg())
    return found


def ratio(value: float | None, base: list[float | None]) -> str:
    known = [b for b in base if b]
    if value is None or not known:
        return "-"
    return f"{value / (sum(known) / len(known)):.2f}"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def comparison(phases: list[Phase]) -> list[tuple[str, ...]]:
    """Each operation in each phase side by side; B against the phases
    without streams (their mean)."""
    labels = [p.label for p in phases]
    with_streams = [p for p in phases if p.streams]
    without = [p for p in phases if not p.streams]
    header = (
        "operation",
        *(f"ops/s {label}" for label in labels),
        "B / A",
        *(f"p50 ms {label}" for label in labels),
        *(f"p99 ms {label}" for label in labels),
        "B / A",
        "4xx+5xx",
    )
    rows = [header]
    b = with_streams[0]
    for name, _ in MIX:
        rows.append(
            (
                name,
                *(f"{p.rate(name):,.1f}" for p in phases),
                ratio(b.rate(name), [p.rate(name) for p in without]),
                *(ms(p.p(name, 0.50)) for p in phases),
                *(ms(p.p(name, 0.99)) for p in phases),
                ratio(b.p(name, 0.99), [p.p(name, 0.99) for p in without]),
                str(sum(1 for p in phases for s in p.samples(name) if s.worst >= 400)),
            )
        )
    rows.append(
        (
            "all operations",
            *(f"{p.rate():,.1f}" for p in phases),
            ratio(b.rate(), [p.rate() for p in without]),
            *("" for _ in phases),
            *("" for _ in phases),
            "",
            str(sum(p.errors() for p in phases)),
        )
    )
    rows.append(
        (
            "server CPU ms/op",
            *(f"{p.server_cpu * 1000 / max(1, p.ops()):.1f}" for p in phases),
            ratio(
                b.server_cpu / max(1, b.ops()), [p.server_cpu / max(1, p.ops()) for p in without]
            ),
            *("" for _ in phases),
            *("" for _ in phases),
            "",
            "",
        )
    )
    return rows


def checks(args: argparse.Namespace, found: dict) -> list[tuple[str, bool]]:
    n = args.streams
    opened, alive, idle = found["opened"], found["alive"], found["idle"]
    moments: list[Moment] = found["moments"]
    most = found["most"]
    without = [most[p.label][0] for p in found["phases"] if not p.streams and p.label in most]
    with_streams = [most[label][0] for label in ("idle", "B") if label in most]
    slack = 2 * args.heartbeat + 1
    return [
        (
            f"every stream answered 200 text/event-stream ({opened['statuses']}, "
            f"{opened['content_types']})",
            opened["statuses"] == {"200": n}
            and opened["content_types"] == {"text/event-stream": n},
        ),
        (
            f"the server held them all open ({found['open_on_server']:,} of {n:,})",
            found["open_on_server"] == n,
        ),
        (
            f"all still open after B, each heard within {slack:g} s "
            f"(open {alive['open']:,}; longest silence {alive['longest_silence'] or 0:.1f} s)",
            alive["open"] == n
            and found["open_after_b"] == n
            and alive["longest_silence"] is not None
            and alive["longest_silence"] <= slack,
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
            f"the server let every stream go ({found['open_after_close']} left open)",
            found["open_after_close"] == 0,
        ),
        (
            "no mix operation failed (4xx, 5xx, a client thread stopped)",
            not any(p.errors() for p in found["phases"])
            and not any(d.failure for p in found["phases"] for d in p.drivers),
        ),
    ]


def report(args: argparse.Namespace, found: dict, seeding: str) -> str:
    phases: list[Phase] = found["phases"]
    b = next(p for p in phases if p.streams)
    without = [p for p in phases if not p.streams]
    opened, alive, idle = found["opened"], found["alive"], found["idle"]
    read_p99 = ratio(b.p("read", 0.99), [p.p("read", 0.99) for p in without])
    ops = ratio(b.rate(), [p.rate() for p in without])
    within = ops != "-" and read_p99 != "-" and float(ops) >= 0.9 and float(read_p99) <= 1.1
    load = " / ".join(" ".join(f"{x:.2f}" for x in avg) for avg in found["load"])
    moments = [("moment", "threads", "RSS MiB", "open streams")]
    moments += [
        (m.label, str(m.threads), f"{m.rss_kib / 1024:,.1f}", str(m.open_streams))
        for m in found["moments"]
    ]
    grown = found["moments"][1].rss_kib - found["moments"][0].rss_kib
    lines = [
        f"{args.users:,} demo users; mix: {args.threads} threads, {args.sessions} signed in, "
        f"{args.seconds:g} s a phase; {args.streams:,} streams, heartbeat {args.heartbeat:g} s; "
        f"seeding: {seeding}; signing in: {found['sign_in']:.1f} s",
        f"load average (1, 5, 15 min) before / after: {load}",
        "",
        "the mix "
        + ", ".join(
            f"{p.label}: " + (f"beside {p.streams:,} open streams" if p.streams else "no stream")
            for p in phases
        ),
        table(comparison(phases)),
        f"with the streams open: {ops}x the operations a second, {read_p99}x the read p99 "
        f"(within 10 %: {'yes' if within else 'no'})",
        "",
        "the server's worker process (/proc):",
        table(moments),
        f"memory with the streams open: {grown / 1024:+,.1f} MiB "
        f"({grown / args.streams:,.1f} KiB a stream)",
        "",
        f"streams: {opened['opened']:,} opened in {opened['seconds']:.1f} s; "
        f"idle {idle['seconds']:g} s: {idle['round_trips']} round trips, "
        f"{idle['heartbeats']:,} heartbeats heard, server CPU "
        f"{idle['server_cpu'] / idle['seconds']:.1%} of a core",
        f"during B the streams heard {sum(alive['events'].values()):,} events "
        f"({', '.join(f'{k} {v:,}' for k, v in sorted(alive['events'].items())) or 'none'})",
        f"the stream client's CPU: {b.client_cpu or 0:.2f} s over B "
        f"({(b.client_cpu or 0) / b.seconds:.1%} of a core), "
        f"{idle['client_cpu'] / idle['seconds']:.1%} while idle",
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
