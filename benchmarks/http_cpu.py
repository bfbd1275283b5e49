"""The server's CPU per operation of the HTTP mix (benchmarks/http_mix.py
`--cpu-seconds`): each operation alone on one client thread for a while,
the server's CPU over that time (every thread of its processes, the task
worker's included, read from /proc) divided by the requests made.

One Python process serves on one core at a time (its GIL), so 1000 / ms is
that operation's ceiling in operations per second for one process: the
demo is one process (docs/benchmarks.md#the-site-over-http)."""

import time
from collections.abc import Callable
from typing import Any

from benchmarks import demo_server

HEADER = ("operation", "count", "CPU ms/op", "ceiling ops/s (one process)")


def cpu_per_operation(
    make_driver: Callable[[str], Any],
    operations: list[str],
    *,
    url: str,
    server_pid: int,
    seconds: float,
) -> list[tuple]:
    """Rows for `operations`, each run by `make_driver(name)`: a client
    thread (http_mix's `Driver`) doing only that operation, signed in already.
    The server is let go idle before each, and its tasks are waited for
    after: an operation's figure holds its own fan-out, and nothing else."""
    rows = [HEADER]
    for name in operations:
        driver = make_driver(name)
        settle(url, server_pid)
        before = demo_server.cpu_seconds(server_pid)
        driver.deadline = time.perf_counter() + seconds
        driver.start()
        driver.join()
        while demo_server.tasks_pending(url):  # its own tasks count
            time.sleep(0.05)
        spent = demo_server.cpu_seconds(server_pid) - before
        # Every request the thread made (a scroll with no page to go on reads one first).
        count = sum(len(samples) for samples in driver.samples.values())
        if driver.failure or not count:
            rows.append((name, str(count), "-", "-"))
            continue
        ms = spent * 1000 / count
        rows.append((name, f"{count:,}", f"{ms:.1f}", f"{1000 / ms:,.0f}" if ms else "-"))
    return rows


def settle(url: str, server_pid: int, timeout: float = 120) -> None:
    """Wait until the server's task worker has run everything queued and the
    server is idle (under 4 % of a core over half a second)."""
    deadline = time.monotonic() + timeout
    while demo_server.tasks_pending(url) and time.monotonic() < deadline:
        time.sleep(0.05)
    while time.monotonic() < deadline:
        before = demo_server.cpu_seconds(server_pid)
        time.sleep(0.5)
        if demo_server.cpu_seconds(server_pid) - before < 0.02:
            return
