"""`manage.py demo` as a child process, for what measures or tests the site
over HTTP (benchmarks/http_mix.py, tests/test_run_command.py): a free port,
start and wait until `/healthz` answers, stop the whole process group, and
time `/healthz` on one keep-alive connection."""

import http.client
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
    args: list[str], *, env: dict, logs: Path, timeout: float
) -> tuple[subprocess.Popen, int]:
    """`manage.py demo 127.0.0.1:<free port> <args>` with `env` over this
    process's environment, stdout and stderr in `logs`; returns once
    `/healthz` answers 200. RuntimeError if it exits or takes over `timeout` s."""
    port = free_port()
    command = [sys.executable, str(ROOT / "manage.py"), "demo", f"127.0.0.1:{port}", *args]
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
            raise RuntimeError(f"manage.py demo exited with {server.returncode}; see {logs}")
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
