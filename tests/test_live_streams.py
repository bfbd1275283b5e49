"""benchmarks/live_streams.py at a tiny scale: one demo server, the mix without
streams and beside open ones, and the checks it prints all pass: every
stream answered and stayed open, heard its heartbeats, cost no round trip
while idle and no thread."""

import pytest

from benchmarks import live_streams

pytestmark = pytest.mark.no_test_db(
    reason="the demo server runs in a subprocess on its own demo database"
)


def test_a_short_run_holds_streams_beside_the_mix(capsys, monkeypatch):
    monkeypatch.setenv("MONGODB_URI", "")  # the demo database, never a real server
    argv = ["--users", "30", "--streams", "20", "--seconds", "1", "--threads", "2"]
    argv += ["--sessions", "2", "--phases", "AB", "--heartbeat", "0.3", "--warmup", "0"]
    assert live_streams.main(argv) == 0
    output = capsys.readouterr().out
    checks = [line.strip() for line in output.splitlines() if line.startswith("  [")]
    assert len(checks) == 8, output
    failed = [line for line in checks if not line.startswith("[ok]")]
    assert not failed, output
    # What the checks stand on, as printed.
    assert "B1: every stream answered 200 text/event-stream ({'200': 20}" in output
    assert "no round trip while they sat idle (0 in " in output
    rows = {
        cells[0]: cells
        for line in output.splitlines()
        if " | " in line
        for cells in [[cell.strip() for cell in line.split(" | ")]]
    }
    for name, _ in live_streams.MIX:
        assert rows[name][-1] == "0", f"{name} failed: {rows[name]}"
    before = rows["before the streams (after A1)"]
    beside = rows["20 streams open, idle"]
    assert (before[3], beside[3]) == ("0", "20")  # the open streams the server counts
    assert int(beside[1]) <= int(before[1])  # threads
    assert rows["streams closed (after B1)"][3] == "0"
