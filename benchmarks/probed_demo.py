"""`manage.py demo`, with a probe the live-streams benchmark reads from outside
(benchmarks/live_streams.py):

    python -m benchmarks.probed_demo demo 127.0.0.1:8000 --users 150

with DEMO_PROBE_FILE set. On PROBE_SIGNAL the gunicorn worker writes one JSON
line to that file: its database round trips since start-up (the counter of
socialsite/roundtrips.py, which the request log and `Server-Timing` read
per request) and the live streams its hub holds open. It answers without a
request, a thread or a round trip of its own, so reading it twice around an
idle spell gives exactly the round trips the process made meanwhile,
whoever made them (an idle stream, a sweeper, the task worker).

The server is otherwise `manage.py demo` as it is: the handler is installed
in the worker when gunicorn forks it (after the seeding, so in the process
that serves), on a real-time signal gunicorn does not use, and runs only
when signalled. With DEMO_SWITCH_INTERVAL set (seconds), the worker also
sets Python's switch interval to it (`sys.setswitchinterval`; 0.005 by
default), for the benchmark's `--switch-interval`.
"""

import json
import os
import signal
import sys
from types import FrameType

#: gunicorn's workers handle HUP, QUIT, INT, TERM, USR1, USR2, WINCH, CHLD
#: and ABRT; a real-time signal is nobody's.
PROBE_SIGNAL = signal.SIGRTMIN + 3
PROBE_FILE = "DEMO_PROBE_FILE"
SWITCH_INTERVAL = "DEMO_SWITCH_INTERVAL"


def _answer(signum: int, frame: FrameType | None) -> None:
    from live import broker
    from socialsite import roundtrips

    # The hub's topics are read without its lock: the handler runs on the
    # worker's main thread (its event loop), the only one that subscribes
    # and unsubscribes, and that thread may hold the lock where the signal
    # interrupted it. Other threads only read the hub.
    hub = broker._hub
    by_topic = hub._by_topic if hub is not None else {}
    streams = {sub for subs in list(by_topic.values()) for sub in subs}
    line = {"round_trips": roundtrips.total(), "open_streams": len(streams), "pid": os.getpid()}
    path = os.environ[PROBE_FILE]
    with open(path + ".tmp", "w") as out:
        out.write(json.dumps(line) + "\n")
    os.replace(path + ".tmp", path)  # whole, or not there yet


def _install() -> None:
    signal.signal(PROBE_SIGNAL, _answer)
    # An experiment, not the site's setting: how often the GIL changes hands
    # (docs/benchmarks.md#idle-live-streams-beside-the-mix).
    if os.environ.get(SWITCH_INTERVAL):
        sys.setswitchinterval(float(os.environ[SWITCH_INTERVAL]))


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
    from django.core.management import execute_from_command_line

    # The worker is forked from this process (the arbiter), after seeding.
    os.register_at_fork(after_in_child=_install)
    execute_from_command_line(["manage.py", *sys.argv[1:]])


if __name__ == "__main__":
    main()
