"""`manage.py demo` as a child process, for what measures or tests the site
over HTTP (benchmarks/http_mix.py, tests/test_run_command.py): a free port,
start and wait until `/healthz` answers, stop the whole process group, and
time `/healthz` on one keep-alive connection."""

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(
    args: list[str],
    *,
    env: dict,
    logs: Path,
    timeout: float,
    run_script: bool = False,
    module: str | None = None,
) -> tuple[subprocess.Popen, int]:
    """`manage.py demo 127.0.0.1:<free port> <args>` with `env` over this
    process's environment, stdout and stderr in `logs`; returns once
    `/healthz` answers 200. RuntimeError if it exits or takes over `timeout` s.
    `run_script`: the README's first command instead, `./scripts/run` (with
    ADDRPORT; `args` are then not used: its environment says the rest).
    `module`: `python -m <module> demo ...`, a module that runs manage.py's
    commands with something of its own around them (benchmarks/probed_demo.py)."""
    port = free_port()
    manage = ["-m", module] if module else [str(ROOT / "manage.py")]
    command = [sys.executable, *manage, "demo", f"127.0.0.1:{port}", *args]
    if run_script:
        command = ["bash", str(ROOT / "scripts" / "run")]
        env = {**env, "ADDRPORT": f"127.0.0.1:{port}"}
    with (logs / "stdout").open("w") as out, (logs / "stderr").open("w") as err:
        server = subprocess.Popen(  # noqa: S603 (our own interpreter and manage.py)
            command,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            stdout=out,
            stderr=err,
            start_new_session=True,  # the worker goes down with the arbiter's group
        )
    deadline = time.monotonic() + timeout
    while not _healthy(port):
        if server.poll() is not None:
            raise RuntimeError(f"{command[1]} exited with {server.returncode}; see {logs}")
        if time.monotonic() > deadline:
            stop(server)
            raise RuntimeError(f"the demo server did not start in {timeout} s; see {logs}")
        time.sleep(0.25)
    return server, port


def _healthy(port: int) -> bool:
    try:
        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        probe.request("GET", "/healthz")
        return probe.getresponse().status == 200
    except OSError:  # not listening yet: seeding comes first
        return False


def stop(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def health_checks(url: str, n: int = 200) -> list[float]:
    """Milliseconds of `n` GET /healthz on one keep-alive connection, sorted."""
    host, port = url.split("://", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    timings = []
    for _ in range(n):
        started = time.perf_counter()
        connection.request("GET", "/healthz")
        connection.getresponse().read()
        timings.append((time.perf_counter() - started) * 1000)
    connection.close()
    return sorted(timings)


def worker_pid(server_pid: int, timeout: float = 10) -> int:
    """The gunicorn worker the demo's arbiter (`server_pid`) forked: the
    process that serves pages and streams (one worker: see the command)."""
    deadline = time.monotonic() + timeout
    while True:
        for entry in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = entry.read_text()
            except OSError:
                continue
            if int(text[text.rindex(")") + 2 :].split()[1]) == server_pid:
                return int(entry.parent.name)
        if time.monotonic() > deadline:
            raise RuntimeError(f"process {server_pid} has no worker")
        time.sleep(0.1)


def threads_and_rss(pid: int) -> tuple[int, int]:
    """A process's threads and resident memory in KiB, from /proc/<pid>/status."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value.split()
    return int(fields["Threads"][0]), int(fields["VmRSS"][0])


def context_switches(pid: int) -> int:
    """Context switches of every thread of a process, so far: a thread that
    waits for the GIL, a lock or a socket switches out and back in."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:  # the thread ended meanwhile
            continue
        for line in lines:
            if "ctxt_switches:" in line:
                total += int(line.split()[1])
    return total


def cpu_seconds(root_pid: int) -> float:
    """User and system CPU seconds of a process and all its descendants (the
    demo's gunicorn arbiter and its forked worker, whose threads serve the
    pages and run the tasks), read from /proc; 0.0 where /proc is missing."""
    ticks = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}  # pid -> (parent, seconds)
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = entry.read_text()
        except OSError:  # the process ended meanwhile
            continue
        # The command name sits in parentheses and may hold spaces.
        fields = text[text.rindex(")") + 2 :].split()
        parent, utime, stime = int(fields[1]), int(fields[11]), int(fields[12])
        stats[int(entry.parent.name)] = (parent, (utime + stime) / ticks)
    tree, total = {root_pid}, 0.0
    changed = True
    while changed:  # parents before children, whatever order /proc listed
        changed = False
        for pid, (parent, _) in stats.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                changed = True
    for pid in tree:
        total += stats.get(pid, (0, 0.0))[1]
    return total


def tasks_pending(url: str) -> int:
    """The server's task backlog from `/healthz` (0 where it shows none)."""
    host, port = url.split("://", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", "/healthz")
    body = json.loads(connection.getresponse().read())
    connection.close()
    return int(body.get("tasks_pending") or 0)
