"""Counting database round trips (DESIGN.md §6): budgets are held by counts, not clocks.

On a real server a pymongo `CommandListener` sees every command sent,
`getMore` included: a cursor's results past its first batch (101 documents
unless a batch size is set) cost one more round trip per batch. In demo mode
`socialsite.demo_db` counts each collection call and each such batch the
same way. Tests, benchmarks and `feed_stats` read the same counter.
"""

import threading
from contextlib import contextmanager

from pymongo import monitoring

# Commands that are driver housekeeping, not work the page asked for.
_IGNORED = {"endSessions", "hello", "isMaster", "ismaster", "ping", "saslStart", "saslContinue"}


class _Counter:
    def __init__(self):
        self._lock = threading.Lock()
        self.total = 0
        self.commands: list[str] = []

    def add(self, name: str) -> None:
        with self._lock:
            self.total += 1
            self.commands.append(name)


_current = threading.local()
_global = _Counter()


def record(name: str) -> None:
    """Count one round trip (called by the listener or the demo wrapper)."""
    _global.add(name)
    for counter in getattr(_current, "counters", ()):
        counter.add(name)


class _Listener(monitoring.CommandListener):
    def started(self, event):
        if event.command_name not in _IGNORED:
            record(event.command_name)

    # A round trip is counted when it starts; its outcome adds nothing.
    def succeeded(self, event):
        return None

    def failed(self, event):
        return None


listener = _Listener()


@contextmanager
def count():
    """Count the round trips made by this thread inside the block.

    Blocks nest, and an outer block counts what the inner ones count: a test
    that counts around a request sees the trips the request log counts too.

    >>> with count() as c: ...
    >>> c.total
    """
    if not hasattr(_current, "counters"):
        _current.counters = []
    counter = _Counter()
    _current.counters.append(counter)
    try:
        yield counter
    finally:
        _current.counters.remove(counter)


def total() -> int:
    """Round trips made by every thread since start-up."""
    return _global.total
